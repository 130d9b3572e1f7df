#!/usr/bin/env bash
# Installs and builds (scripts/setup.sh), then runs the whole test suite:
# unit tests, multi-rank tests under mpirun (2, 3, 4 ranks), error-message tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600

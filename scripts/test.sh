#!/usr/bin/env bash
# Installs and builds (scripts/setup.sh), then runs the whole test suite:
# unit tests, multi-rank tests under mpirun (2, 3, 4 ranks), error-message tests,
# ccbench compare on fixtures and on two real runs (headless Chromium screenshot),
# --prom read back through a real node_exporter and Prometheus;
# then the same unit tests in a build without MPI, hwloc or fmt's library;
# then scripts/dev/sanitize.sh (ASan + UBSan build and tests, 10,000 runs per fuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "== test.sh: $1 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }  # docs/development.md "CI"
# kubectl (the Kubernetes files' offline checks): Debian's kubernetes-client, unless one is installed already.
kubectl_package=""; command -v kubectl >/dev/null || kubectl_package=kubernetes-client
CCBENCH_EXTRA_PACKAGES="chromium slurm-wlm munge clang-format prometheus prometheus-node-exporter postgresql python3-yaml $kubectl_package ${CCBENCH_EXTRA_PACKAGES:-}" scripts/setup.sh
stage "install + main build"
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600)
stage "main tests"

# The build a GPU machine without MPI, hwloc or the fmt/json/CLI11 packages
# gets (see scripts/dev/gpu-check.sh): headers staged in deps/, one process only.
# Unoptimised (build type None: -O0, no -g): it proves the build and its tests, not its speed, and
# header-only fmt at -O2 doubled the stage's time.
scripts/dev/gpu-check.sh --stage >/dev/null
variant=(-S . -B build-nompi -G Ninja -DCMAKE_BUILD_TYPE=None -DCCBENCH_MPI=OFF -DCCBENCH_BENCH=OFF
         -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON
         -DCMAKE_CUDA_ARCHITECTURES=90)
[ "${CI:-}" = "true" ] && variant+=(-DCCBENCH_WERROR=ON)
cmake "${variant[@]}" >/dev/null
cmake --build build-nompi -j "$(nproc)"
(cd build-nompi && ctest --output-on-failure -j "$(nproc)" --timeout 600)
stage "build without MPI + its tests"

# AddressSanitizer + UndefinedBehaviorSanitizer build (clang), a short fuzz run
# of every importer and of the YAML profile parser.
scripts/dev/sanitize.sh
stage "sanitizers + fuzzers"

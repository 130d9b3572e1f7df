#!/usr/bin/env bash
# Installs and builds (scripts/setup.sh), then runs the whole test suite:
# each test once (the main build's, or under the sanitizers: scripts/dev/main-stage-tests.py):
# unit tests, multi-rank tests under mpirun (2, 3, 4 ranks), error-message tests,
# ccbench compare on fixtures and on two real runs (headless Chromium screenshot),
# --prom read back through a real node_exporter and Prometheus;
# then the GPU check's rehearsal: a build as a bare GPU machine makes it (no MPI,
# hwloc or packaged fmt/json/CLI11/yaml-cpp/liburing), its output checked and its tests run;
# then scripts/dev/sanitize.sh (ASan + UBSan build and tests, 10,000 runs per fuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "== test.sh: $1 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }  # docs/development.md "CI"
# kubectl (the Kubernetes files' offline checks): Debian's kubernetes-client, unless one is installed already.
kubectl_package=""; command -v kubectl >/dev/null || kubectl_package=kubernetes-client
CCBENCH_EXTRA_PACKAGES="chromium slurm-wlm munge clang-format prometheus prometheus-node-exporter postgresql python3-yaml $kubectl_package ${CCBENCH_EXTRA_PACKAGES:-}" scripts/setup.sh
stage "install + main build"
# Every test once: the sanitizer build first, so that the main stage can leave
# to it what it runs (scripts/dev/main-stage-tests.py says which and why).
scripts/dev/sanitize.sh --build-only
stage "sanitizer build"
scripts/dev/main-stage-tests.py build build-sanitize > build/main-stage-tests.txt
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600 -I main-stage-tests.txt)
stage "main tests"

# The GPU check's rehearsal (scripts/dev/gpu-check.sh --rehearse): this machine
# as a bare GPU machine sees it (no MPI, hwloc, yaml-cpp, liburing, pkg-config or
# fmt/json/CLI11 packages; what it needs staged in deps/), preflight, the build
# and every step listed, then its output files checked; the build's tests run.
# Unoptimised (build type None: -O0, no -g): it proves the build and its tests, not its speed, and
# header-only fmt at -O2 doubled the stage's time.
scripts/dev/gpu-check.sh --stage >/dev/null
mkdir -p build-nompi
GPU_CHECK_BUILD=build-nompi GPU_CHECK_BUILD_TYPE=None GPU_CHECK_TARGETS_ONLY=0 GPU_CHECK_BUILD_BOUND=1500 \
  GPU_CHECK_BUDGET=1800 OUT=build-nompi/out scripts/dev/gpu-check.sh --rehearse > build-nompi/rehearsal.txt 2>&1 ||
  { cat build-nompi/rehearsal.txt; exit 1; }
tests/gpu_check_rehearsal.sh build-nompi/out
(cd build-nompi && ctest --output-on-failure -j "$(nproc)" --timeout 600)
stage "build without MPI + its tests"

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer (built above),
# then a short run of every fuzzer.
scripts/dev/sanitize.sh
stage "sanitizers + fuzzers"

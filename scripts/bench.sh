#!/usr/bin/env bash
# The performance figures in the README: host kernels vs memcpy, and the
# harness's per-iteration overhead vs a bare MPI loop, each in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bench/bench_kernels ] || scripts/setup.sh
build/bench/bench_kernels --benchmark_min_time=0.3
scripts/mpirun.sh -np 2 build/bench/bench_harness_overhead 20000 15

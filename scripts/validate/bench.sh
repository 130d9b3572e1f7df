#!/usr/bin/env bash
# The performance figures in docs/performance.md, each measured side by side with its
# baseline in one run:
#  1. host kernels (reduce, verify, fill) in GB/s of buffer, next to memcpy of
#     the same bytes; median of 5 repetitions, ratio = kernel / memcpy;
#  2. the harness's per-iteration overhead: ccbench's timed loop for an 8-byte
#     all_reduce vs a bare MPI_Allreduce loop, alternating in rounds;
#  3. the comparator: 1,000,000 vs 1,000,000 points next to a sort of the same
#     keys, and nccl-tests import speed next to a memchr scan of the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/bench/bench_kernels ] || scripts/setup.sh
build/bench/bench_kernels --benchmark_min_time=0.2 --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median"/ {
      name = $1; gsub(/"/, "", name); sub(/_median$/, "", name);
      label = $(NF-2); gsub(/"/, "", label);
      gbps = $6 / 1e9;
      if (name == "BM_memcpy") base = gbps;
      rows[++n] = name; rate[n] = gbps; lab[n] = label
    }
    END {
      printf "%-16s %-14s %10s %8s\n", "kernel", "dtype", "GB/s", "x memcpy";
      for (i = 1; i <= n; i++) printf "%-16s %-14s %10.2f %8.2f\n", rows[i], lab[i], rate[i], rate[i] / base
    }'
scripts/mpirun.sh -np 2 build/bench/bench_harness_overhead 20000 15
build/bench/bench_compare 1000000 200
build/bench/bench_model 10000 5

#!/usr/bin/env bash
# Precision per unit of time: the default sweep (all_reduce 8 B .. 64 MiB,
# factor 8, 4 ranks, per-iteration timing) with --precision 1%, then, in the
# same run, a fixed-iteration sweep whose -n is the largest count the adaptive
# sweep needed at any size (the fixed count that reaches the same precision at
# every size). Prints both wall times and the precision each reached.
#   scripts/validate/precision-bench.sh [NP] [PRECISION]     (default 4 and 1%)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/ccbench ] || scripts/setup.sh
np=${1:-4} precision=${2:-1%}
out=runs/precision-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
sweep=(all_reduce -b 8 -e 64M -f 8 --timing per_iteration -c 0 -w 5)
max_count() { grep -o '"per_iteration_count":[0-9]*' "$1" | cut -d: -f2 | sort -n | tail -1; }
reached() { grep -o '"precision_reached":[0-9.e-]*' "$1" | cut -d: -f2 | sort -g | awk '{v[NR]=$1} END {printf "median %.2f%%, worst %.2f%%", v[int((NR+1)/2)]*100, v[NR]*100}'; }

t0=$(date +%s.%N)
scripts/mpirun.sh -np "$np" build/ccbench "${sweep[@]}" -n 20 --precision "$precision" --max-time-per-size 60 -J "$out/adaptive.jsonl" > "$out/adaptive.txt"
t1=$(date +%s.%N)
n=$(max_count "$out/adaptive.jsonl")
scripts/mpirun.sh -np "$np" build/ccbench "${sweep[@]}" -n "$n" -J "$out/fixed.jsonl" > "$out/fixed.txt"
t2=$(date +%s.%N)
printf 'adaptive (--precision %s): %6.1f s, %s iterations at most, precision reached: %s\n' "$precision" \
  "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$n" "$(reached "$out/adaptive.jsonl")"
printf 'fixed    (-n %s at every size): %6.1f s, precision reached: %s\n' "$n" "$(awk -v a="$t1" -v b="$t2" 'BEGIN {print b - a}')" "$(reached "$out/fixed.jsonl")"
echo "records: $out"

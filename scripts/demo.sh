#!/usr/bin/env bash
# The main job on its embedded default: installs and builds ccbench alone (not
# the tests), then sweeps the main collectives with one MPI rank per core on
# this machine (at least 2), printing each table and writing JSON Lines and
# CSV under runs/<UTC time>/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --target ccbench
ranks=${CCBENCH_RANKS:-$(nproc)}
[ "$ranks" -lt 2 ] && ranks=2
out=runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
sweep=(-b 8 -e 64M -f 4 -n 20 -w 2)
status=0
for coll in all_reduce all_gather reduce_scatter alltoall broadcast sendrecv; do
  echo "=== $coll, $ranks ranks"
  scripts/mpirun.sh -np "$ranks" build/ccbench "$coll" "${sweep[@]}" \
    -J "$out/$coll.jsonl" --csv "$out/$coll.csv" || status=$?
done
echo "=== pingpong, 2 ranks"
scripts/mpirun.sh -np 2 build/ccbench pingpong -b 8 -e 4M -f 4 -n 50 -J "$out/pingpong.jsonl" \
  --csv "$out/pingpong.csv" || status=$?
echo "results: $out"
exit $status

#!/usr/bin/env bash
# Repeats one ccbench sweep over several mpirun launches and reports
# launch-to-launch variation separately from within-launch variation
# (bench/launch_variation.cpp). The launches' JSON Lines are kept.
#   scripts/validate/repeat-launches.sh LAUNCHES NP [ccbench arguments...]
#   e.g. scripts/validate/repeat-launches.sh 5 4 all_reduce -b 8 -e 64M -f 8 -n 50
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { echo "usage: scripts/validate/repeat-launches.sh LAUNCHES NP COLLECTIVE [ccbench arguments...]" >&2; exit 2; }
launches=$1 np=$2
shift 2
[ -x build/bench/launch_variation ] || scripts/setup.sh
out=runs/repeat-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
files=()
for i in $(seq 1 "$launches"); do
  scripts/mpirun.sh -np "$np" build/ccbench "$@" --timing per_iteration -J "$out/launch$i.jsonl" > "$out/launch$i.txt"
  files+=("$out/launch$i.jsonl")
done
build/bench/launch_variation "${files[@]}" | tee "$out/variation.txt"
echo "launches and report: $out"

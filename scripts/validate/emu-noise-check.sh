#!/usr/bin/env bash
# The emulated-cluster acceptance tests under CPU load: N times in a row
# (default 10) with a CPU hog beside them (stress-ng, one worker per core);
# prints each run's result and the number of false rejections (a clean
# cluster rejected, or a verdict naming anything but the throttled hosts).
# Usage: scripts/validate/emu-noise-check.sh [N] [CTEST_REGEX]   (default 'emu\.(clean|throttled|bisect)')
set -uo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10} regex=${2:-'emu\.(clean|throttled|bisect)'}
command -v stress-ng >/dev/null || { echo "needs stress-ng (apt-get install stress-ng)"; exit 2; }
stress-ng --cpu "$(nproc)" --quiet &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT
failures=0
for i in $(seq "$n"); do
  log=$(mktemp)
  (cd build && ctest -R "$regex" --output-on-failure >"$log" 2>&1)
  rc=$?
  summary=$(grep -E 'tests passed|same cluster' "$log" | tr '\n' ' ')
  echo "run $i: exit $rc: $summary"
  [ $rc = 0 ] || { failures=$((failures + 1)); grep -E 'FAIL|Failed' "$log" | head -5; }
  rm -f "$log"
done
echo "$n runs under stress-ng --cpu $(nproc): $failures with a failing test"
[ $failures = 0 ]

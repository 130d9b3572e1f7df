#!/usr/bin/env bash
# The scripts' option parsers: an option given without its value is one line
# and exit 2, never a loop (each parser shifted by 2 with one argument left and
# spun forever printing "unbound variable"). Every value option of every
# script is tried last on its command line, each bounded by 10 s.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
failures=0 count=0
for script in scripts/emu-cluster.sh scripts/validate/history-validate.sh scripts/validate/model-validate.sh \
  scripts/validate/nccl-tests-parity.sh scripts/validate/osu-imb-parity.sh scripts/validate/replay-cpu-share.sh \
  scripts/validate/workload-validate.sh; do
  # The value options: the guard's pattern line in the script.
  options=$(grep -A1 '# an option without its value' "$root/$script" | tail -1 | tr -d ' )' | tr '|' ' ')
  [ -n "$options" ] || { echo "FAIL $script: no guard for options without a value"; failures=$((failures + 1)); continue; }
  for option in $options; do
    count=$((count + 1))
    err=$(timeout 10 "$root/$script" "$option" 2>&1 >/dev/null)
    rc=$?
    if [ $rc != 2 ] || [ "$(grep -c . <<<"$err")" != 1 ] || ! grep -q -- "$option needs a value" <<<"$err"; then
      echo "FAIL $script $option: exit $rc (want 2), stderr: $(head -c 300 <<<"$err")"
      failures=$((failures + 1))
    fi
  done
done
echo "$count options, $failures failed"
[ $failures = 0 ]

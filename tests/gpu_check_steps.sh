#!/usr/bin/env bash
# scripts/dev/gpu-check-steps.sh without a GPU: every step of the GPU check ends
# within its bound whatever hangs (a step that ignores SIGTERM is killed), a
# missing binary, an exhausted budget and a check that finds nothing each fail
# with one line, and a passing step passes.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d /tmp/ccbench-gpusteps.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export STEP_KILL_AFTER=1 GPU_CHECK_BUDGET=30
. "$root/scripts/dev/gpu-check-steps.sh"

step passes 5 true || fail "a passing step failed"
start=$SECONDS
step ignores_sigterm 1 bash -c 'trap "" TERM; sleep 60' && fail "a hung step passed"
[ $((SECONDS - start)) -le 5 ] || fail "a step that ignores SIGTERM ran $((SECONDS - start)) s past a 1 s bound"
step exits_3 5 bash -c 'echo the reason it failed; exit 3' && fail "a failing step passed"
built missing "$OUT/no-such-binary" && fail "a missing binary passed"
echo "nothing here" > "$OUT/log"
expect_in empty_check "$OUT/log" 'ncclCommAbort' "ncclCommAbort in the log" && fail "a check that found nothing passed"
expect_in found "$OUT/log" 'nothing' "the word" || fail "a check that found its line failed"
floor low_figure "copy GB/s" 12.5 30 GB/s && fail "a figure under its floor passed"
floor no_figure "copy GB/s" "" 30 GB/s && fail "a missing figure passed"
floor high_figure "copy GB/s" 55.2 37.8 GB/s || fail "a figure over its floor failed"
skip not_here "1 GPU"
# A rehearsal lists a step with the bound it would get, and runs nothing.
GPU_CHECK_REHEARSE=1 step rehearsed 5 bash -c 'touch "$0"' "$OUT/ran" || fail "a rehearsed step failed"
[ ! -e "$OUT/ran" ] || fail "a rehearsed step ran"
BUDGET=$SECONDS
step no_budget 5 true && fail "a step without budget passed"

summary=$(printf '%s\n' "${SUMMARY[@]}")
echo "$summary"
for want in "passes +ok" "ignores_sigterm +FAILED \\(over its 1 s\\)" "exits_3 +FAILED \\(exit 3\\)" \
            "missing +FAILED \\(not built" "empty_check +FAILED \\(ncclCommAbort in the log not found\\)" \
            "no_budget +FAILED \\(no budget left\\)" "low_figure +FAILED \\(copy GB/s 12.5 GB/s < floor 30\\)" \
            "no_figure +FAILED \\(copy GB/s: no figure\\)" "high_figure +ok \\(copy GB/s 55.2 GB/s >= 37.8\\)" \
            "not_here +skipped: 1 GPU" "rehearsed +not run \\(rehearsal; bound 5 s\\)"; do
  echo "$summary" | grep -Eq "^$want" || fail "no summary line '$want'"
done
[ "$(echo "$summary" | grep -c FAILED)" -eq 7 ] || fail "expected 7 FAILED lines"
# The summary file holds every line and the failed step's log tail, as it happened.
grep -q "^-- exits_3 (last 15 lines of exits_3.log):" "$OUT/summary.txt" || fail "no log tail of a failed step in the summary"
grep -q "^the reason it failed" "$OUT/summary.txt" || fail "the failed step's output is not in the summary"
[ "$(grep -c FAILED "$OUT/summary.txt")" -eq 7 ] || fail "the summary file misses FAILED lines"
echo PASS

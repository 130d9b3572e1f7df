# shellcheck shell=bash
# Sourced by scripts/dev/gpu-check.sh (and tests/gpu_check_steps.sh): bounded
# steps and their one-line verdicts, kept in a summary file as they happen.
# Needs OUT (the logs' folder) and SUMMARY_FILE (the summary, rewritten after
# every step, so that a check cut short still leaves what it learned).
#   GPU_CHECK_BUDGET  seconds for the whole check (default 440); a step that
#                     starts with less than its bound left is cut to what is left
#   STEP_KILL_AFTER   seconds between a step's SIGTERM and its SIGKILL (default 10)
#   GPU_CHECK_REHEARSE=1  steps are listed with the bound they would get, not run
BUDGET=${GPU_CHECK_BUDGET:-440}
SUMMARY_FILE=${SUMMARY_FILE:-$OUT/summary.txt}
SUMMARY=()
TAILS=()
BOUNDS_TOTAL=0
write_summary() {
  { [ -n "${PREFLIGHT_FILE:-}" ] && [ -f "$PREFLIGHT_FILE" ] && cat "$PREFLIGHT_FILE"
    echo "== steps (${SECONDS} s of a ${BUDGET} s budget; bounds add up to ${BOUNDS_TOTAL} s)"
    printf '%s\n' "${SUMMARY[@]}"
    [ ${#TAILS[@]} -eq 0 ] || printf '%s\n' "${TAILS[@]}"
  } > "$SUMMARY_FILE.tmp" 2>/dev/null && mv "$SUMMARY_FILE.tmp" "$SUMMARY_FILE"
}
record() {  # record NAME VERDICT SECONDS
  SUMMARY+=("$(printf '%-28s %-40s %4ds' "$1" "$2" "$3")")
  echo "== $1: $2"
  write_summary
}
tail_of() {  # tail_of NAME: a failed step's log tail, inline in the summary
  [ -f "$OUT/$1.log" ] || return 0
  TAILS+=("-- $1 (last 15 lines of $1.log):" "$(tail -15 "$OUT/$1.log" | cut -c1-300)")
}
skip() {  # skip NAME WHY: a step that cannot run here, said in one line
  record "$1" "skipped: $2" 0
}
step() {  # step NAME TIMEOUT CMD...: runs, logs, records ok/FAILED
  local name=$1 limit=$2; shift 2
  BOUNDS_TOTAL=$((BOUNDS_TOTAL + limit))
  local start=$SECONDS left=$((BUDGET - SECONDS))
  if [ "$left" -le 5 ]; then record "$name" "FAILED (no budget left)" 0; return 1; fi
  [ "$limit" -le "$left" ] || limit=$left
  if [ "${GPU_CHECK_REHEARSE:-0}" = 1 ]; then record "$name" "not run (rehearsal; bound ${limit} s)" 0; return 0; fi
  timeout -k "${STEP_KILL_AFTER:-10}" "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -eq 0 ] || verdict="FAILED (exit $rc)"
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="FAILED (over its ${limit} s)"
  [ $rc -eq 0 ] || tail_of "$name"
  record "$name" "$verdict" $((SECONDS - start))
  return $rc
}
built() {  # built NAME BINARY: a step whose binary is missing fails, never vanishes
  [ -x "$2" ] && return 0
  record "$1" "FAILED (not built: $2)" 0
  return 1
}
expect_in() {  # expect_in NAME FILE REGEX WHAT: a check of a step's output
  [ "${GPU_CHECK_REHEARSE:-0}" = 1 ] && return 0
  grep -Eq "$3" "$2" 2>/dev/null && return 0
  record "$1" "FAILED ($4 not found)" 0
  return 1
}
floor() {  # floor NAME WHAT VALUE MIN UNIT: a figure held against its floor
  [ "${GPU_CHECK_REHEARSE:-0}" = 1 ] && return 0
  if [ -z "$3" ]; then record "$1" "FAILED ($2: no figure)" 0; return 1; fi
  if awk -v v="$3" -v m="$4" 'BEGIN { exit !(v + 0 >= m + 0) }'; then
    record "$1" "ok ($2 $3 $5 >= $4)" 0
    return 0
  fi
  record "$1" "FAILED ($2 $3 $5 < floor $4)" 0
  return 1
}

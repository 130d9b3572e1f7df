# Sourced by scripts/dev/gpu-check.sh (and tests/gpu_check_steps.sh): bounded
# steps and their one-line verdicts. Needs OUT (the log folder).
#   GPU_CHECK_BUDGET  seconds for the whole script (default 290); a step that
#                     starts with less than its bound left is cut to what is left
#   STEP_KILL_AFTER   seconds between a step's SIGTERM and its SIGKILL (default 10)
BUDGET=${GPU_CHECK_BUDGET:-290}
declare -a SUMMARY
record() {  # record NAME VERDICT SECONDS
  SUMMARY+=("$(printf '%-28s %-34s %4ds' "$1" "$2" "$3")")
  echo "== $1: $2"
}
step() {  # step NAME TIMEOUT CMD...: runs, logs, records ok/FAILED
  local name=$1 limit=$2; shift 2
  local start=$SECONDS left=$((BUDGET - SECONDS))
  if [ "$left" -le 5 ]; then record "$name" "FAILED (no budget left)" 0; return 1; fi
  [ "$limit" -le "$left" ] || limit=$left
  timeout -k "${STEP_KILL_AFTER:-10}" "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -eq 0 ] || verdict="FAILED (exit $rc)"
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="FAILED (over its ${limit} s)"
  record "$name" "$verdict" $((SECONDS - start))
  return $rc
}
built() {  # built NAME BINARY: a step whose binary is missing fails, never vanishes
  [ -x "$2" ] && return 0
  record "$1" "FAILED (not built: $2)" 0
  return 1
}
expect_in() {  # expect_in NAME FILE REGEX WHAT: a check of a step's output
  grep -Eq "$3" "$2" 2>/dev/null && return 0
  record "$1" "FAILED ($4 not found)" 0
  return 1
}


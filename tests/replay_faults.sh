#!/usr/bin/env bash
# ccbench replay's failure promises (docs/failures.md "ccbench replay"): what
# is left behind when a rank hangs or stops, a signal arrives or an output
# fails. Usage: replay_faults.sh CCBENCH WORKLOAD_DIR MODE
#   hang     3 ranks, rank 1 hangs at the first timed step, -T 2: exit 4 within
#            2 + 3.1 s plus start-up, a line from every rank, the end record
#   sigstop  3 ranks, one stopped with SIGSTOP mid-run, -T 2: exit 4, the end
#            record names the step, the steps before it are kept
#   sigterm  SIGTERM to mpirun mid-run: end record "interrupted: SIGTERM", 143
#   full     -J /dev/full: exit 5, one line naming the file
#   pipe     one process, stdout a pipe closed early: exit 5
#   locked   -J a file another process holds (flock): exit 2, nothing run
set -u
ccbench=$1 wkl=$2 mode=$3
. "$(dirname "$0")/fault_common.sh"
steps() { records step; }
wait_steps() { wait_records step "$1"; }
json_lines() { python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$out" || fail "a line is not JSON"; }
replay=(replay "$wkl/fsdp-3.yaml" -w 1)
case $mode in
  hang)
    start=$(date +%s)
    timeout 60 "${mpirun[@]}" -np 3 -x CCBENCH_FAULT=hang:rank=1 "$ccbench" "${replay[@]}" -n 5 -T 2 -J "$out" \
      >/dev/null 2>"$dir/err"
    code=$? elapsed=$(( $(date +%s) - start ))
    [ $code = 4 ] || fail "exit $code, expected 4"
    [ $elapsed -le 20 ] || fail "took ${elapsed}s: the bound is 2 s + 3.1 s after start-up"
    for r in 0 1 2; do grep -q "^ccbench: rank $r (.*): timeout: no operation completed for 2.[0-9] s during timed step 1 of 5" "$dir/err" || fail "no report from rank $r"; done
    grep -q '"exit_code":4,.*"status":"failed: timeout: no operation completed for 2.[0-9] s during timed step 1 of 5.*"steps":0,"type":"end"' "$out" || fail "no end record saying why"
    json_lines
    ;;
  sigstop)
    timeout 120 "${mpirun[@]}" -np 3 "$ccbench" "${replay[@]}" -n 100000 -T 2 -J "$out" >/dev/null 2>"$dir/err" &
    pid=$!
    wait_steps 3
    rank=$(pgrep -P "$(pgrep -P $pid)" | tail -1)  # timeout's child is mpirun, whose children are the ranks
    [ -n "$rank" ] || fail "no rank process under mpirun $pid"
    kill -STOP "$rank"
    wait $pid
    code=$?
    kill -CONT "$rank" 2>/dev/null
    [ $code = 4 ] || fail "exit $code, expected 4"
    grep -q '"exit_code":4,.*"status":"failed: timeout: no operation completed for 2.[0-9] s during timed step [0-9]* of 100000' "$out" || fail "no end record naming the step"
    kept=$(steps)
    grep -q "\"steps\":$kept,\"type\":\"end\"" "$out" || fail "the end record does not count the $kept steps kept"
    json_lines
    ;;
  sigterm)
    "${mpirun[@]}" --mca odls_base_sigkill_timeout 5 -np 2 "$ccbench" "${replay[@]}" -n 100000 -J "$out" \
      >/dev/null 2>"$dir/err" &
    pid=$!
    wait_steps 3
    kill -TERM $pid
    wait $pid
    code=$?
    [ $code != 0 ] || fail "exit 0 after SIGTERM"
    grep -q '"exit_code":143,.*"status":"interrupted: SIGTERM' "$out" || fail "no end record saying SIGTERM"
    json_lines
    ;;
  full)
    timeout 60 "${mpirun[@]}" -np 2 "$ccbench" "${replay[@]}" -n 3 -J /dev/full >/dev/null 2>"$dir/err"
    code=$?
    [ $code = 5 ] || fail "exit $code, expected 5"
    grep -q "^ccbench: cannot write -J/--json /dev/full: No space left on device; stopped after 0 steps$" "$dir/err" || fail "no line naming the file"
    ;;
  pipe)
    # One process (MPI singleton): its stdout is the pipe itself.
    set -o pipefail
    timeout 60 "$ccbench" "${replay[@]}" -n 100000 2>"$dir/err" | head -c 10 >/dev/null
    code=$?
    [ $code = 5 ] || fail "exit $code, expected 5"
    grep -q "^ccbench: cannot write stdout: Broken pipe; stopped after [0-9]* steps$" "$dir/err" || fail "no line naming stdout"
    ;;
  locked)
    exec 9>>"$out"
    flock -n 9 || fail "cannot lock $out"  # this shell holds it, as another run would
    timeout 60 "${mpirun[@]}" -np 2 "$ccbench" "${replay[@]}" -n 3 -J "$out" >"$dir/stdout" 2>"$dir/err"
    code=$?
    [ $code = 2 ] || fail "exit $code, expected 2"
    grep -q "^ccbench: -J/--json $out: another ccbench run is writing this file" "$dir/err" || fail "no line saying the file is held"
    [ "$(grep -c 'another ccbench run' "$dir/err")" = 1 ] || fail "the line is printed more than once"
    [ ! -s "$out" ] || fail "the held file was written"
    ! grep -q "^  *1 " "$dir/stdout" || fail "a step ran"
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "ok: $mode"

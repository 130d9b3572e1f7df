#!/usr/bin/env bash
# Failure tests: a fault is injected (CCBENCH_FAULT, test-only) or a signal
# sent, and what is left behind is checked.
# Usage: fault.sh CCBENCH VALIDATE_JSONL MODE
#   hang     3 ranks, rank 1 hangs at 4 KiB, -T 3: exit 4 within 3 + 2 + 10 s,
#            a report from every rank, the 5 points before intact, an end record
#   stuck    one process hangs at 4 KiB and its abort never returns either
#            (as ncclCommAbort on a blocking communicator can), -T 2: exit 4
#            within 2 + 5 (abort bound) + 2 (grace) + 3 s, the end record written
#   error    one process: its backend fails at 4 KiB (as an NCCL async error
#            would): exit 1, one line naming rank, collective and size, the
#            end record "failed: ... during ...", the 5 points before intact
#   exit     2 ranks, rank 1 dies (SIGKILL) at 4 KiB: non-zero exit, the 5
#            points before intact, every line valid JSON
#   sigterm  one process: SIGTERM once 3 points are written: exit 143, end
#            record "interrupted: SIGTERM"
#   sigint   the same with SIGINT: exit 130
#   mpirun_sigterm  SIGTERM to mpirun: every rank stops, end record written
#   startup  3 ranks, rank 1 hangs in the start-up (outputs open, no run record
#            yet), -T 3: exit 4, every rank's line, -J holds a run record and
#            the end record saying "during the start-up", --csv its header
set -u
ccbench=$1 validate=$2 mode=$3
. "$(dirname "$0")/fault_common.sh"
points() { records point; }
wait_points() { wait_records point "$1"; }
sweep=(all_reduce -b 8 -e 64K -f 4 -n 5 -J "$out")
case $mode in
  hang)
    start=$(date +%s)
    timeout 60 "${mpirun[@]}" -np 3 -x CCBENCH_FAULT=hang:rank=1:bytes=4096 "$ccbench" "${sweep[@]}" -T 3 >/dev/null 2>"$dir/err"
    code=$? elapsed=$(( $(date +%s) - start ))
    [ $code = 4 ] || fail "exit $code, expected 4"
    [ $elapsed -le 15 ] || fail "took ${elapsed}s: the bound is 3 s timeout + 2 s grace + start-up"
    for r in 0 1 2; do grep -q "^ccbench: rank $r (.*): timeout: no operation completed for 3.[0-9] s during all_reduce float sum 8192 B out-of-place" "$dir/err" || fail "no report from rank $r"; done
    [ "$(points)" = 5 ] || fail "$(points) points kept, expected 5 (8 B .. 2 KiB)"
    grep -q '"exit_code":4,.*"status":"failed: timeout.*"type":"end"' "$out" || fail "no end record saying why"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    ;;
  stuck)
    start=$(date +%s)
    CCBENCH_FAULT=stuck:rank=0:bytes=4096 timeout 60 "$ccbench" "${sweep[@]}" -T 2 >/dev/null 2>"$dir/err"
    code=$? elapsed=$(( $(date +%s) - start ))
    [ $code = 4 ] || fail "exit $code, expected 4"
    [ $elapsed -le 12 ] || fail "took ${elapsed}s: the bound is 2 s timeout + 5 s for the abort + 2 s grace"
    grep -q "the abort did not return within 5 s; exiting without it" "$dir/err" || fail "no line about the abort"
    grep -q '"exit_code":4,.*"status":"failed: timeout.*"type":"end"' "$out" || fail "no end record saying why"
    [ "$(points)" = 5 ] || fail "$(points) points kept, expected 5"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    ;;
  error)
    CCBENCH_FAULT=error:rank=0:bytes=4096 timeout 60 "$ccbench" "${sweep[@]}" >/dev/null 2>"$dir/err"
    code=$?
    [ $code = 1 ] || fail "exit $code, expected 1"
    grep -q "^ccbench: run failed: rank 0: CCBENCH_FAULT: an injected library error (test-only) during all_reduce float sum 8192 B out-of-place$" "$dir/err" || fail "no line naming rank, collective and size"
    grep -q '"exit_code":1,.*"status":"failed: CCBENCH_FAULT: an injected library error (test-only) during all_reduce float sum 8192 B out-of-place".*"type":"end"' "$out" || fail "no end record saying what failed"
    [ "$(points)" = 5 ] || fail "$(points) points kept, expected 5"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    ;;
  exit)
    timeout 60 "${mpirun[@]}" -np 2 -x CCBENCH_FAULT=exit:rank=1:bytes=4096 "$ccbench" "${sweep[@]}" >/dev/null 2>"$dir/err"
    code=$?
    [ $code != 0 ] || fail "exit 0 after a rank died"
    [ "$(points)" = 5 ] || fail "$(points) points kept, expected 5"
    # every line is complete JSON; an end record, when rank 0 could write it, says why
    "$validate" "$out" >"$dir/v" 2>&1 || grep -q 'no "end" record' "$dir/v" || fail "$(cat "$dir/v")"
    if grep -q '"type":"end"' "$out"; then grep -q '"status":"interrupted: SIGTERM' "$out" || fail "end record without the reason"; fi
    ;;
  sigterm|sigint)
    sig=TERM want=143
    [ $mode = sigint ] && sig=INT want=130
    "$ccbench" all_reduce -b 8 -e 256M -f 2 -n 20 -J "$out" >/dev/null 2>"$dir/err" &
    pid=$!
    wait_points 3
    kill -$sig $pid
    wait $pid
    code=$?
    [ $code = $want ] || fail "exit $code, expected $want"
    grep -q "\"exit_code\":$want.*\"status\":\"interrupted: SIG$sig" "$out" || fail "no end record saying SIG$sig"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    ;;
  mpirun_sigterm)
    # mpirun follows its SIGTERM with SIGKILL after odls_base_sigkill_timeout
    # (1 s by default); 5 s keeps a loaded machine from racing the end record.
    "${mpirun[@]}" --mca odls_base_sigkill_timeout 5 -np 2 "$ccbench" all_reduce -b 8 -e 256M -f 2 -n 20 -J "$out" \
      >/dev/null 2>"$dir/err" &
    pid=$!
    wait_points 3
    kill -TERM $pid
    wait $pid
    code=$?
    [ $code != 0 ] || fail "exit 0 after SIGTERM"
    grep -q '"exit_code":143.*"status":"interrupted: SIGTERM' "$out" || fail "no end record saying SIGTERM"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    ;;
  startup)
    start=$(date +%s)
    timeout 60 "${mpirun[@]}" -np 3 -x CCBENCH_FAULT=startup_hang:rank=1 "$ccbench" "${sweep[@]}" --csv "$dir/out.csv" \
      -T 3 >/dev/null 2>"$dir/err"
    code=$? elapsed=$(( $(date +%s) - start ))
    [ $code = 4 ] || fail "exit $code, expected 4"
    [ $elapsed -le 20 ] || fail "took ${elapsed}s: the bound is 3 s timeout + 3.1 s after start-up"
    for r in 0 1 2; do grep -q "^ccbench: rank $r (.*): timeout: no operation completed for 3.[0-9] s during the start-up" "$dir/err" || fail "no report from rank $r"; done
    head -1 "$out" | grep -q '"type":"run"' || fail "the file does not start with a run record"
    grep -q '"exit_code":4,.*"status":"failed: timeout: no operation completed for 3.[0-9] s during the start-up' "$out" || fail "no end record saying why"
    "$validate" "$out" >/dev/null || fail "the file does not validate"
    head -1 "$dir/out.csv" | grep -q '^collective,backend,' || fail "the CSV holds no header"
    ;;
  init)
    # Issue 54 item 6: the backend's initialisation (NCCL's bootstrap) is bounded under -T
    # (CCBENCH_INIT_TIMEOUT here; max(-T, 120 s) by default): rank 1 stalls there.
    start=$(date +%s)
    timeout 60 "${mpirun[@]}" -np 3 -x CCBENCH_INIT_TIMEOUT=2 -x CCBENCH_FAULT=init_hang:rank=1 "$ccbench" "${sweep[@]}" \
      -T 30 >/dev/null 2>"$dir/err"
    code=$? elapsed=$(( $(date +%s) - start ))
    [ $code = 4 ] || fail "exit $code, expected 4"
    [ $elapsed -le 25 ] || fail "took ${elapsed}s: the bound is 2 s + 2 s grace"
    grep -q "^ccbench: rank 1 (.*): timeout: the backend's initialisation (CCBENCH_INIT_TIMEOUT sets the bound) did not finish within 2.[0-9] s" "$dir/err" ||
      fail "rank 1 does not say where it stalled"
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "ok: $mode"

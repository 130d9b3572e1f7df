#!/usr/bin/env bash
# Outputs that never clobber and never truncate silently (docs/failures.md).
# Usage: output_safety.sh CCBENCH VALIDATE_JSONL CASE
#   links       a link planted at an output or at the old fixed temporary
#               name: refused / never followed; the link's target unchanged
#   devices     compare --json /dev/null and baseline --out /dev/null write
#               into the device; /dev/null stays a character device (root)
#   full_disk   -J, --csv and topo --json on a full file system (a 16 KiB
#               tmpfs; skipped, exit 77, where it cannot be mounted): exit 5,
#               one line naming the file and "No space left on device", the
#               JSON Lines file valid up to its last whole record
#   stdout      the table, compare's report and --help to /dev/full: exit 5,
#               one line; compare still writes its files; the run's -J file
#               gets its end record
#   pipe        one process piped into a reader that never reads and exits
#               (the table is larger than the pipe's buffer): exit 5, the
#               points so far and an end record in the -J file
#   sighup      SIGHUP to one process (held by a test-only hang, so the signal
#               cannot come after the end): exit 129, end record
#               "interrupted: SIGHUP ..."
#   same_path   one path twice (-J X --csv X, compare --json = an input,
#               baseline --out = its input), a second run on a -J file
#               locked by a first one (held by a test-only hang), a FIFO with
#               no reader: exit 2 with one line, nothing
#               written or truncated
#   inputs      an output that is an input by identity: a file inside an
#               input folder (model fit, baseline), compare's --cost and
#               --workload, a hard link, accept's spec / cluster file as a
#               verdict file or inside --out/raw: exit 2, one line, unchanged
#   big_input   a 3 GiB sparse file in a results folder, compare and baseline
#               under a 2 GiB address-space limit (CCBENCH_HOSTILE_VMEM_KB: ASan
#               builds lift it): listed as unread, no crash
set -u
ccbench=$1 validate=$2 mode=$3
dir=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
fail() { echo "FAIL: $*"; echo "--- stderr"; head -c 3000 "$dir/err" 2>/dev/null; exit 1; }
one_line() {  # $1 regex: exactly one stderr line matches it
  [ "$(grep -cE -- "$1" "$dir/err")" = 1 ] || fail "expected one stderr line matching /$1/"
}
cd "$dir" || exit 1
# A small valid result to compare and to build baselines from.
"$ccbench" all_reduce -b 8 -e 64 -f 2 -n 3 -J run.jsonl >/dev/null 2>"$dir/err" || fail "the reference run failed"
cp run.jsonl run2.jsonl

case $mode in
  links)
    echo precious > target
    ln -s target out.json
    "$ccbench" compare --run a=run.jsonl --run b=run2.jsonl --json out.json >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "a link as output was not refused"
    one_line "--json out.json: is a symbolic link"
    [ "$(cat target)" = precious ] || fail "the link's target was written"
    rm out.json
    # The fixed temporary name of earlier versions, and a guess at others.
    for t in out.json.tmp-ccbench .out.json.tmp out.json.tmp; do ln -s target "$t"; done
    "$ccbench" compare --run a=run.jsonl --run b=run2.jsonl --json out.json >/dev/null 2>"$dir/err" || fail "compare failed"
    [ "$(cat target)" = precious ] || fail "a planted temporary link was followed"
    [ -f out.json ] && [ ! -L out.json ] || fail "out.json is not a regular file"
    ln -s target base.json
    "$ccbench" baseline --out base.json run.jsonl >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "baseline --out through a link was not refused"
    ln -s target j.jsonl
    "$ccbench" all_reduce -b 8 -e 8 -J j.jsonl >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "-J through a link was not refused"
    one_line "-J/--json j.jsonl: is a symbolic link"
    [ "$(cat target)" = precious ] || fail "the link's target was written"
    ls -a | grep -qE '^\.out\.json\.[A-Za-z0-9]{6}$' && fail "a temporary file was left behind"
    ;;
  devices)
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (only root could replace /dev/null)"; exit 77; }
    "$ccbench" compare --run a=run.jsonl --run b=run2.jsonl --json /dev/null --md /dev/null --quiet 2>"$dir/err" || fail "compare --json /dev/null failed"
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
    "$ccbench" baseline --out /dev/null run.jsonl >/dev/null 2>"$dir/err" || fail "baseline --out /dev/null failed"
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
    mkdir folder
    "$ccbench" compare --run a=run.jsonl --run b=run2.jsonl --html folder --quiet 2>"$dir/err"
    [ $? = 2 ] || fail "a folder as output was not refused"
    one_line "--html folder: is a folder"
    ;;
  full_disk)
    mnt=$dir/small
    mkdir -p "$mnt"
    mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null || { mnt=""; echo "SKIP: cannot mount a tmpfs here"; exit 77; }
    "$ccbench" all_reduce -b 8 -e 1M -f 2 -n 2 -J "$mnt/out.jsonl" --csv "$mnt/out.csv" >/dev/null 2>"$dir/err"
    code=$?
    [ $code = 5 ] || fail "exit $code on a full disk, expected 5"
    one_line "cannot write $mnt/out\.(jsonl|csv): No space left on device; stopped after [0-9]+ points"
    "$validate" "$mnt/out.jsonl" >/dev/null 2>&1 || python3 - "$mnt/out.jsonl" <<'EOF' || fail "the JSON Lines file is not valid up to its last record"
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n")
for line in text.splitlines(): json.loads(line)
EOF
    [ "$(tail -c 1 "$mnt/out.csv" | od -An -c | tr -d ' ')" = '\n' ] || fail "the CSV ends in the middle of a row"
    rm -f "$mnt"/*
    # ccbench io fails the same way (harness/run_outputs.hpp): it stops at the next point, not at its end.
    mkdir -p "$dir/io"
    "$ccbench" io "$dir/io" -p seq_read,rand_read,seq_write,rand_write -b 4K -e 4M -f 2 --file-size 4M -c 0 -q \
      -J "$mnt/out.jsonl" >/dev/null 2>"$dir/err"
    code=$?
    [ $code = 5 ] || fail "io: exit $code on a full disk, expected 5"
    one_line "cannot write $mnt/out\.jsonl: No space left on device; stopped after [0-9]+ points"
    points=$(grep -Eo 'stopped after [0-9]+' "$dir/err" | grep -Eo '[0-9]+$')
    [ "$points" -lt 44 ] || fail "io wrote all its 44 points before it stopped"
    python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$mnt/out.jsonl" ||
      fail "io's JSON Lines file is not valid up to its last record"
    [ -z "$(ls -A "$dir/io")" ] || fail "io left its files behind after the output failed"
    rm -f "$mnt"/*
    head -c 15000 /dev/zero > "$mnt/filler"
    if "$ccbench" topo --help >/dev/null 2>&1; then :; fi
    "$ccbench" topo --json "$mnt/topo.json" >/dev/null 2>"$dir/err"
    code=$?
    [ $code = 5 ] || fail "topo --json on a full disk: exit $code, expected 5"
    one_line "--json $mnt/topo.json: cannot write: No space left on device"
    [ ! -e "$mnt/topo.json" ] || fail "a partial topo.json was left"
    # Issue 73: the file cannot grow at the last point under mpirun: rank 0
    # stopped alone and rank 1 waited in the end's collective for ever. A
    # file-size limit on each rank (RLIMIT_FSIZE: the write fails with EFBIG,
    # byte for byte where a tmpfs fills by pages; ccbench ignores SIGXFSZ) in
    # the middle of the last point's record; TCP between the ranks, since
    # shared-memory segments are files under the same limit.
    sweep2() {  # sweep2 LIMIT FILE: a 2-rank sweep of 5 points, -J FILE, each rank's files limited to LIMIT bytes
      timeout -k 5 30 mpirun --allow-run-as-root --oversubscribe --mca btl self,tcp -np 2 python3 -c 'import os, resource, sys
n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
os.execvp(sys.argv[2], sys.argv[2:])' "$1" "$ccbench" all_reduce -b 8 -e 128 -f 2 -n 2 -w 1 -J "$2" >/dev/null 2>"$dir/err"
    }
    sweep2 100000000 "$dir/whole.jsonl" || fail "the 2-rank sweep without a limit"
    limit=$(python3 -c 'import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
points = [i for i, l in enumerate(lines) if b"\"type\":\"point\"" in l]
last = points[-1]
print(sum(len(l) + 1 for l in lines[:last]) + len(lines[last]) // 2)' "$dir/whole.jsonl")
    sweep2 "$limit" "$dir/limited.jsonl"; code=$?
    [ $code = 124 ] && fail "the file full at the last point: the job hung"
    [ $code = 5 ] && grep -q 'stopped after 5 points' "$dir/err" ||
      { cat "$dir/err"; fail "the file full at the last point: exit $code, expected 5"; }
    ;;
  stdout)
    "$ccbench" --help >/dev/full 2>"$dir/err"
    [ $? = 5 ] || fail "--help > /dev/full did not exit 5"
    one_line "cannot write stdout: No space left on device"
    "$ccbench" compare --help >/dev/full 2>"$dir/err"
    [ $? = 5 ] || fail "compare --help > /dev/full did not exit 5"
    "$ccbench" compare --run a=run.jsonl --run b=run2.jsonl --json cmp.json --md cmp.md >/dev/full 2>"$dir/err"
    [ $? = 5 ] || fail "compare > /dev/full did not exit 5"
    one_line "cannot write the report to stdout: No space left on device \(the report files are written\)"
    [ -s cmp.json ] && [ -s cmp.md ] || fail "compare did not write its files"
    "$ccbench" all_reduce -b 8 -e 1K -f 2 -n 2 -J t.jsonl >/dev/full 2>"$dir/err"
    [ $? = 5 ] || fail "a run with its table to /dev/full did not exit 5"
    one_line "cannot write stdout: No space left on device"
    grep -q '"status":"failed: output stdout: No space left on device","type":"end"' t.jsonl || fail "no end record in the -J file"
    "$validate" t.jsonl >/dev/null || fail "the -J file does not validate"
    ;;
  pipe)
    # The reader never reads and exits after 1 s; the table (130 KB) cannot fit
    # the pipe's 64 KiB, so ccbench is still writing when the reader is gone.
    "$ccbench" all_reduce -b 8 -e 1M -f 2 -n 2 -w 0 -d all -o all -J p.jsonl 2>"$dir/err" | sleep 1
    code=${PIPESTATUS[0]}
    [ "$code" = 5 ] || fail "exit $code when stdout's reader went away, expected 5"
    one_line "cannot write stdout: Broken pipe"
    grep -q '"status":"failed: output stdout: Broken pipe","type":"end"' p.jsonl || fail "no end record in the -J file"
    ;;
  sighup)
    # The run hangs (test-only fault) before its 1 KiB point: the signal
    # cannot arrive after the run has ended.
    CCBENCH_FAULT=hang:rank=0:bytes=1024 "$ccbench" all_reduce -b 8 -e 64K -f 2 -J h.jsonl >/dev/null 2>"$dir/err" &
    pid=$!
    for _ in $(seq 600); do grep -q '"requested_bytes":512,' h.jsonl 2>/dev/null && break; sleep 0.1; done
    kill -HUP $pid
    wait $pid
    code=$?
    [ $code = 129 ] || fail "exit $code after SIGHUP, expected 129"
    grep -q '"exit_code":129,.*"status":"interrupted: SIGHUP[^"]*".*"type":"end"' h.jsonl || fail "no end record"
    ;;
  same_path)
    "$ccbench" all_reduce -b 8 -e 8 -J x.out --csv x.out >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "-J X --csv X was not refused"
    one_line "--csv x.out: the same file as -J/--json"
    cp run.jsonl keep.jsonl
    "$ccbench" compare --run a=keep.jsonl --run b=run2.jsonl --json ./keep.jsonl >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "compare --json naming an input was not refused"
    one_line "--json ./keep.jsonl: is also the input --run a"
    cmp -s keep.jsonl run.jsonl || fail "the input was changed"
    "$ccbench" baseline --out keep.jsonl keep.jsonl >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "baseline --out naming its input was not refused"
    cmp -s keep.jsonl run.jsonl || fail "the input was changed"
    # The first run hangs (test-only fault) before its 1 KiB point, holding
    # the lock until it is told to stop.
    CCBENCH_FAULT=hang:rank=0:bytes=1024 "$ccbench" all_reduce -b 8 -e 64K -f 2 -J locked.jsonl >/dev/null 2>/dev/null &
    pid=$!
    for _ in $(seq 600); do grep -q '"type":"point"' locked.jsonl 2>/dev/null && break; sleep 0.1; done
    "$ccbench" all_reduce -b 8 -e 8 -J locked.jsonl >/dev/null 2>"$dir/err"
    code=$?
    kill -TERM $pid; wait $pid
    [ $code = 2 ] || fail "a second run on a locked -J file: exit $code, expected 2"
    one_line "-J/--json locked.jsonl: another ccbench run is writing this file"
    grep -q '"type":"end"' locked.jsonl || fail "the first run's file lost its records"
    mkfifo fifo
    timeout 30 "$ccbench" all_reduce -b 8 -e 8 -J fifo >/dev/null 2>"$dir/err"
    [ $? = 2 ] || fail "-J to a FIFO without a reader did not exit 2"
    one_line "-J/--json fifo: a FIFO with no reader"
    ;;
  inputs)
    # Every input by identity, folders file by file: none is replaced by an
    # output (each refused with one line, exit 2, the input unchanged).
    expect_kept() {  # $1 what, $2 regex, $3 file that must stay as it was, then the command
      local what=$1 regex=$2 file=$3
      shift 3
      cp "$file" "$dir/before"
      "$ccbench" "$@" >/dev/null 2>"$dir/err"
      [ $? = 2 ] || fail "$what was not refused"
      one_line "$regex"
      cmp -s "$file" "$dir/before" || fail "$what: the input was changed"
    }
    mkdir -p runs && cp run.jsonl runs/2n.jsonl && cp run2.jsonl runs/3n.jsonl
    expect_kept "model fit --out inside its input folder" "--out runs/2n.jsonl: is also runs/2n.jsonl, read as input from input runs" \
      runs/2n.jsonl model fit runs --out runs/2n.jsonl
    expect_kept "baseline --out inside its input folder" "--out runs/3n.jsonl: is also runs/3n.jsonl" runs/3n.jsonl baseline --out runs/3n.jsonl runs
    printf 'kind: cloud\ncurrency: USD\nprice_per_gpu_hour: 2\n' > cost.yaml
    expect_kept "compare --json = a --cost file" "--json cost.yaml: is also the input --cost a" cost.yaml \
      compare --run a=run.jsonl --run b=run2.jsonl --cost a=cost.yaml --json cost.yaml
    printf 'parameters: 1e6\ngpus: 2\n' > wl.yaml
    expect_kept "compare --md = the --workload" "--md wl.yaml: is also the input --workload" wl.yaml \
      compare --run a=run.jsonl --run b=run2.jsonl --workload wl.yaml --md wl.yaml
    ln run.jsonl hard.jsonl
    expect_kept "compare --json = a hard link of an input" "--json hard.jsonl: is also the input --run a" run.jsonl \
      compare --run a=run.jsonl --run b=run2.jsonl --json hard.jsonl
    mkdir -p acc/raw/x
    printf 'checks:\n  - name: x\n    collective: all_reduce\n    sizes: [8]\n    gates: [{metric: time, at: 8, max: 1e6}]\n' > acc/verdict.md
    expect_kept "accept --out holding the spec as verdict.md" "--out \\(verdict.md\\) acc/verdict.md: is also the input spec" acc/verdict.md \
      accept acc/verdict.md --out acc
    cp acc/verdict.md acc/raw/x/spec.yaml
    expect_kept "accept with its spec inside --out/raw" "--out acc/raw: the input spec acc/raw/x/spec.yaml is inside" acc/raw/x/spec.yaml \
      accept acc/raw/x/spec.yaml --out acc
    printf 'nodes: 4\n' > acc/report.html
    cp acc/verdict.md s.yaml
    expect_kept "accept --simulate cluster file as report.html" "--out \\(report.html\\) acc/report.html: is also the input --simulate" acc/report.html \
      accept s.yaml --simulate acc/report.html --out acc
    ;;
  big_input)
    mkdir big
    cp run.jsonl big/
    truncate -s 3G big/core
    (ulimit -v "${CCBENCH_HOSTILE_VMEM_KB:-2097152}"; "$ccbench" compare --run a=big --run b=run2.jsonl --quiet --json big.json 2>"$dir/err")
    [ $? = 0 ] || fail "compare with a 3 GiB file in the folder failed"
    grep -q 'core:1: not a result format' big.json || fail "the big file is not listed as unread"
    (ulimit -v "${CCBENCH_HOSTILE_VMEM_KB:-2097152}"; "$ccbench" baseline --out b.json big >/dev/null 2>"$dir/err")
    [ $? = 0 ] || fail "baseline with a 3 GiB file in the folder failed"
    ;;
  *) echo "unknown case $mode"; exit 2 ;;
esac
echo "ok: $mode"

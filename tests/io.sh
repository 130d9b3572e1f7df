#!/usr/bin/env bash
# ccbench io on this machine's disk, in a temporary folder (docs/io.md).
# Usage: io.sh CCBENCH VALIDATE_JSONL CASE [MPIRUN...]
#   patterns   every pattern at small sizes: buffered io_uring (2 threads,
#              qd 4) and O_DIRECT psync: exit 0, every row verified, valid
#              JSON Lines, nothing left in the folder
#   corrupt    a flipped byte on the storage (CCBENCH_FAULT=corrupt:rank=0)
#              under every pattern: exit 3, #wrong 1, end status wrong_data
#   ranks      under MPIRUN with 2 and 3 ranks, file per rank and one shared
#              file: each rank's bytes counted once, per-rank rates kept; a
#              rank stopped mid-pass ends the run under -T 3 (exit 4)
#   sigint     SIGINT during a long pass: exit 130, the point so far marked
#              cut short, end record "interrupted: SIGINT", files removed
#   keep       --keep leaves the files; a second run never touches them
#   full       a plan larger than a small tmpfs, one whose byte sum wraps, a
#              dataset beyond the free inodes: exit 2 before anything is
#              written (skipped, exit 77, where tmpfs cannot be mounted)
#   compare    two io runs side by side in ccbench compare: series aligned
#   accept     acceptance specs with io checks: a checkpoint-time gate that
#              holds (exit 0), a bandwidth gate that cannot (exit 1), a bad
#              io pattern in the spec (exit 2, one line naming the line)
set -u
ccbench=$1 validate=$2 mode=$3
shift 3
mpirun=("$@")
dir=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
fail() { echo "FAIL: $*"; echo "--- stdout"; head -c 3000 "$dir/out" 2>/dev/null; echo "--- stderr"; head -c 3000 "$dir/err" 2>/dev/null; exit 1; }
mkdir "$dir/t"
empty() { [ -z "$(ls -A "$dir/t")" ] || fail "files left in the target: $(ls -R "$dir/t" | head)"; }
run() {  # expected exit code, then ccbench io arguments
  local want=$1; shift
  "$ccbench" io "$dir/t" "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "exit $rc, expected $want: ccbench io $*"
}
field_sum() {  # sum of a numeric field over the point records: $1 key, $2 file
  python3 -c "import json,sys; print(sum(json.loads(l)$1 or 0 for l in open('$2') if json.loads(l)['type']=='point'))"
}
all="seq_read,seq_write,rand_read,rand_write,mixed,checkpoint,dataset"
# Several requests in flight need io_uring; a build without liburing (psync
# only) runs the same cases at queue depth 1.
qd=4
"$ccbench" io "$dir/t" -p seq_read -b 4K --file-size 4K --engine io_uring -c 0 -q >/dev/null 2>&1 || qd=1

case $mode in
patterns)
  run 0 -p all -b 4K -e 64K -f 16 --file-size 1M --files 8 --threads 2 --qd $qd -J "$dir/a.jsonl" --csv "$dir/a.csv"
  empty
  "$validate" "$dir/a.jsonl" || fail "JSON Lines not valid"
  [ "$(grep -c '"type":"point"' "$dir/a.jsonl")" = 14 ] || fail "expected 7 patterns x 2 block sizes"
  [ "$(field_sum "['out_of_place']['wrong']" "$dir/a.jsonl")" = 0 ] || fail "wrong blocks"
  grep -q '"wrong":null' "$dir/a.jsonl" && fail "a point was not checked"
  [ "$(wc -l < "$dir/a.csv")" = 15 ] || fail "CSV: a header and 14 rows expected"
  for p in ${all//,/ }; do grep -qE "^ +$p +4096 " "$dir/out" || fail "no $p row in the table"; done
  run 0 -p all -b 4K -e 4K --file-size 256K --files 4 --direct --engine psync -J "$dir/b.jsonl"
  empty
  grep -q '"page_cache_resident_before":null' "$dir/b.jsonl" || fail "O_DIRECT rows must not report the page cache"
  grep -q '"mode":"direct psync qd1 x1 file-per-rank"' "$dir/b.jsonl" || fail "mode not recorded"
  ;;
corrupt)
  for p in ${all//,/ }; do
    CCBENCH_FAULT=corrupt:rank=0 run 3 -p "$p" -b 64K --file-size 512K --files 4 -J "$dir/c.jsonl"
    empty
    [ "$(field_sum "['out_of_place']['wrong']" "$dir/c.jsonl")" = 1 ] || fail "$p: the flipped byte was not found once"
    grep -q '"status":"wrong_data"' "$dir/c.jsonl" || fail "$p: end status"
    grep -q 'did not verify : 1 FAILED' "$dir/out" || fail "$p: table summary"
  done
  CCBENCH_FAULT=corrupt:rank=0 run 0 -p seq_read -b 64K --file-size 512K -c 0 -J "$dir/c.jsonl"  # not checked: not caught
  grep -q '"wrong":null' "$dir/c.jsonl" || fail "-c 0 must leave wrong null"
  ;;
ranks)
  for n in 2 3; do
    for layout in "" --shared-file; do
      "${mpirun[@]}" -np $n "$ccbench" io "$dir/t" -p all -b 64K --file-size 512K --files 4 --threads 2 --qd $qd $layout \
        -J "$dir/r.jsonl" >"$dir/out" 2>"$dir/err" || fail "$n ranks $layout: exit $?"
      empty
      "$validate" "$dir/r.jsonl" || fail "JSON Lines not valid"
      [ "$(field_sum "['out_of_place']['wrong']" "$dir/r.jsonl")" = 0 ] || fail "$n ranks $layout: wrong blocks"
      python3 - "$dir/r.jsonl" $n <<'PY' || fail "$n ranks $layout: per-rank accounting"
import json, sys
n = int(sys.argv[2])
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] != "point": continue
    io = r["io"]
    assert r["ranks"] == n and len(io["rank_gbps"]) == n, r
    want = n * 4 * 65536 if io["pattern"] == "dataset" else n * 512 * 1024
    assert io["bytes_moved"] == want, (io["pattern"], io["bytes_moved"], want)
    assert io["ops"] == want // 65536
PY
    done
  done
  CCBENCH_FAULT=corrupt:rank=2 "${mpirun[@]}" -np 3 "$ccbench" io "$dir/t" -p seq_read -b 64K --file-size 512K --shared-file \
    >"$dir/out" 2>"$dir/err"
  [ $? = 3 ] || fail "a corrupt block in rank 2's region of the shared file: exit 3 expected"
  empty
  # A rank stopped mid-pass (SIGSTOP: an NFS stall looks the same) with -T 3: the run ends with exit 4
  # and the end record within the bound; it hung before -T existed for io.
  "${mpirun[@]}" -np 2 "$ccbench" io "$dir/t" -p seq_write,rand_read -b 4K --file-size 256M --time-per-size 10 -T 3 \
    -J "$dir/stop.jsonl" >"$dir/out" 2>"$dir/err" &
  job=$!
  sleep 2
  pkill -STOP -n -f "ccbench io $dir/t"
  start=$SECONDS
  wait $job; rc=$?
  pkill -CONT -f "ccbench io $dir/t"; pkill -KILL -f "ccbench io $dir/t"
  [ $rc = 4 ] || fail "a stopped rank with -T 3: exit $rc, not 4"
  [ $((SECONDS - start)) -lt 30 ] || fail "a stopped rank with -T 3 took $((SECONDS - start)) s"
  grep -q '"status":"failed: timeout: io ' "$dir/stop.jsonl" || fail "no end record naming the timeout"
  rm -rf "$dir/t"
  ;;
sigint)
  # interrupted JSONL WHAT LAID ARGS...: ccbench io ARGS, SIGINT 1.5 s after its
  # run record and after a file of LAID bytes exists (0: none awaited: the
  # setup lays files out first, and on a slow disk 1.5 s was inside it):
  # exit 130, nothing left behind, end record "interrupted: SIGINT".
  interrupted() {
    local jsonl=$1 what=$2 laid=$3; shift 3
    "$ccbench" io "$dir/t" "$@" -J "$jsonl" >"$dir/out" 2>"$dir/err" &
    local pid=$!
    for _ in $(seq 100); do grep -q '"type":"run"' "$jsonl" 2>/dev/null && break; sleep 0.1; done
    if [ "$laid" -gt 0 ]; then
      for _ in $(seq 600); do
        find "$dir/t" -type f -size "${laid}c" 2>/dev/null | grep -q . && break
        sleep 0.1
      done
    fi
    sleep 1.5
    kill -INT $pid
    wait $pid
    local rc=$?
    [ $rc = 130 ] || fail "$what: exit $rc after SIGINT, expected 130"
    empty
    grep -q '"status":"interrupted: SIGINT"' "$jsonl" || fail "$what: end record"
  }
  interrupted "$dir/s.jsonl" "psync rand_read" $((256 << 20)) -p rand_read -b 512 --file-size 256M --direct --engine psync
  grep -q '"cut_short":true' "$dir/s.jsonl" || fail "the interrupted point is not marked cut short"
  # The same through io_uring during a checkpoint's writes: a request the
  # signal cut is the pass cut short (it was "Input/output error", exit 1,
  # before 2026-12-01), and a cut write pass is not verified.
  if [ $qd -gt 1 ]; then
    interrupted "$dir/c.jsonl" "io_uring checkpoint" 0 -p checkpoint -b 1M --file-size 8G --engine io_uring --qd 8
  fi
  # A signal while the files are created (300,000 of them: minutes) stops the
  # setup within seconds, removes what was made and ends as interrupted (it
  # ran on to the end before 2026-12-01).
  "$ccbench" io "$dir/t" -p dataset -b 4K --files 300000 -J "$dir/d.jsonl" >"$dir/out" 2>"$dir/err" &
  pid=$!
  for _ in $(seq 100); do grep -q '"type":"run"' "$dir/d.jsonl" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  start=$SECONDS
  kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc = 143 ] || fail "exit $rc after SIGTERM during setup, expected 143"
  [ $((SECONDS - start)) -le 30 ] || fail "setup took $((SECONDS - start)) s to stop"
  empty
  grep -q '"status":"interrupted: SIGTERM during setup (files removed)"' "$dir/d.jsonl" || fail "end record of a stopped setup"
  ;;
keep)
  run 0 -p seq_write,checkpoint -b 64K --file-size 256K --keep
  kept=$(find "$dir/t" -type f | sort)
  [ "$(echo "$kept" | wc -l)" = 2 ] || fail "--keep: expected the data file and the checkpoint: $kept"
  before=$(cat $kept | md5sum)
  run 0 -p all -b 64K --file-size 256K --files 4
  [ "$(find "$dir/t" -type f | sort)" = "$kept" ] || fail "a second run left or removed files: $(find "$dir/t" -type f)"
  [ "$(cat $kept | md5sum)" = "$before" ] || fail "a second run changed a kept file"
  ;;
full)
  mkdir "$dir/small"
  mount -t tmpfs -o size=1m tmpfs "$dir/small" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
  mnt="$dir/small"
  "$ccbench" io "$dir/small" -p seq_read,checkpoint -b 64K --file-size 1M >"$dir/out" 2>"$dir/err"
  [ $? = 2 ] || fail "exit 2 expected"
  [ "$(wc -l < "$dir/err")" = 1 ] && grep -q "the plan needs 2097152 bytes free" "$dir/err" || fail "one line naming the space needed"
  [ -z "$(ls -A "$dir/small")" ] || fail "something was written"
  # A plan whose byte sum wraps (2 x 8388608 TiB = 2^64) filled the disk before
  # 2026-12-01: it saturates and is refused.
  "$ccbench" io "$dir/small" -p seq_read,checkpoint -b 1M --file-size 8388608T >"$dir/out" 2>"$dir/err"
  [ $? = 2 ] && grep -q "the plan needs more than 2^64 bytes free" "$dir/err" || fail "a wrapping plan was not refused"
  [ -z "$(ls -A "$dir/small")" ] || fail "something was written by a wrapping plan"
  # Inodes: a dataset of more files than the file system can hold.
  umount "$dir/small"
  mount -t tmpfs -o size=8m,nr_inodes=64 tmpfs "$dir/small" || fail "cannot mount a tmpfs with 64 inodes"
  "$ccbench" io "$dir/small" -p dataset -b 4K --files 1000 >"$dir/out" 2>"$dir/err"
  [ $? = 2 ] && grep -q "the plan creates 1004 files and folders, 63 inodes are free" "$dir/err" || fail "a dataset beyond the free inodes was not refused"
  [ -z "$(ls -A "$dir/small")" ] || fail "something was written by a plan beyond the inodes"
  ;;
threads)
  # 512 threads' stacks do not fit in 4 GiB of address space: the thread that
  # cannot start is an error (exit 1, one line), not an abort; the others do
  # not wait for it forever, the workspace is removed, -J ends with its record.
  [ -n "${CCBENCH_HOSTILE_VMEM_KB:-}" ] && { echo "SKIP: the address-space limit is lifted (sanitizer build)"; exit 77; }
  (ulimit -v 4194304; "$ccbench" io "$dir/t" -b 1M --file-size 1M --threads 512 -J "$dir/th.jsonl" >"$dir/out" 2>"$dir/err")
  code=$?
  [ $code = 1 ] || fail "--threads 512 under 4 GiB: exit $code, expected 1"
  # Which runs out first is a race: a thread's stack, or the io_uring ring
  # a started thread maps meanwhile (seen once in CI's unoptimised build).
  why='--threads 512: cannot start thread [0-9]* (.*): use fewer --threads|io_uring could not start \(Cannot allocate memory\)'
  [ "$(wc -l < "$dir/err")" = 1 ] && grep -qE -- "$why" "$dir/err" ||
    fail "one line naming the thread (or its ring) that could not start"
  [ -z "$(ls -A "$dir/t")" ] || fail "the workspace was left behind"
  tail -1 "$dir/th.jsonl" | grep -qE '"status":"failed: (--threads 512: cannot start thread|io_uring could not start)' ||
    fail "-J has no end record"
  ;;
compare)
  run 0 -p seq_read,rand_read -b 4K -e 16K -f 4 --file-size 1M -J "$dir/one.jsonl"
  run 0 -p seq_read,rand_read -b 4K -e 16K -f 4 --file-size 1M -J "$dir/two.jsonl"
  "$ccbench" compare --run one="$dir/one.jsonl" --run two="$dir/two.jsonl" --quiet --md "$dir/r.md" >"$dir/out" 2>"$dir/err" \
    || fail "compare: exit $?"
  engine='io\_uring'
  [ $qd = 1 ] && engine=psync  # the default engine of a build without liburing
  grep -qF "io\\_rand\\_read, 1 rank, 1 node, buffered $engine qd1 x1 file-per-rank, pageable memory | two" "$dir/r.md" \
    || fail "io series not aligned by pattern and settings"
  grep -qi "no measured points\|nothing lines up" "$dir/r.md" && fail "compare did not line the runs up"
  grep -qE '^\| 4 KiB \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' "$dir/r.md" || fail "GB/s of one rank not compared"
  ;;
accept)
  spec() {  # $1 check name, $2 io mapping, $3 gate
    printf 'name: io\nchecks:\n  - name: %s\n    io: %s\n    sizes: [64K]\n    pattern: per-node\n    gates:\n      - %s\n' \
      "$1" "$2" "$3" >"$dir/spec.yaml"
  }
  spec ckpt "{dir: $dir/t, pattern: checkpoint, file_size: 1M, qd: $qd}" "{metric: time, at: 64K, max: 600000000}"
  "$ccbench" accept "$dir/spec.yaml" --out "$dir/acc" >"$dir/out" 2>"$dir/err" || fail "accept: exit $?"
  empty
  grep -q '"collective": *"io_checkpoint"' "$dir/acc/verdict.json" || fail "verdict.json does not name the io series"
  ls "$dir"/acc/raw/ckpt/*.jsonl >/dev/null || fail "no raw results"
  spec read "{dir: $dir/t, pattern: seq_read, file_size: 1M}" "{metric: busbw, at: 64K, min: 1000000}"
  "$ccbench" accept "$dir/spec.yaml" --out "$dir/acc2" >"$dir/out" 2>"$dir/err"
  [ $? = 1 ] || fail "an impossible bandwidth floor must reject (exit 1)"
  grep -q "FAIL" "$dir/out" || fail "the rejected check is not shown"
  spec bad "{dir: $dir/t, pattern: bogus}" "{metric: time, at: 64K, max: 1}"
  "$ccbench" accept "$dir/spec.yaml" --out "$dir/acc3" >"$dir/out" 2>"$dir/err"
  [ $? = 2 ] || fail "a bad io pattern must be exit 2"
  [ "$(wc -l < "$dir/err")" = 1 ] && grep -q "spec.yaml:3: checks: bad: io: -p/--pattern 'bogus': not a pattern" "$dir/err" \
    || fail "one line naming the spec line"
  ;;
*) echo "unknown case $mode"; exit 2 ;;
esac
echo "ok: io $mode"

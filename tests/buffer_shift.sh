#!/usr/bin/env bash
# The buffer shift (--buffer-shift, harness/buffer_slots.hpp) on the mpi
# backend: iteration k's arguments are computed when it is issued, so a sweep
# from 16 B (2^24 slots of a 256 MiB span; -f 4: 13 sizes) holds no per-slot state. Side by
# side in one run: peak RSS per rank with the shift stays within that of
# --fixed-buffers on the same buffers + 64 MiB; both verify; the run record
# gives the span; 3 ranks verify a split collective under the shift.
#   buffer_shift.sh CCBENCH MPIRUN...
set -uo pipefail
ccbench=$1
shift
mpirun=("$@")
out=$(mktemp -d /tmp/ccbench-shift.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Each rank under a wrapper that prints its peak RSS (KiB) on stderr.
peak() {  # NAME ARGS...
  local name=$1
  shift
  "${mpirun[@]}" -np 2 python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print("maxrss_kib", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(rc)' "$ccbench" all_reduce -b 16 -e 256M -f 4 -n 4 -w 1 -c 1 "$@" -J "$out/$name.jsonl" \
    > "$out/$name.out" 2> "$out/$name.err" || fail "$name: exit $? ($(tail -3 "$out/$name.err"))"
  grep -q "Out of bounds values : 0 OK" "$out/$name.out" || fail "$name: did not verify"
  sort -n -k2 <(grep '^maxrss_kib' "$out/$name.err") | tail -1 | awk '{print $2}'
}
shifted=$(peak shifted --buffer-shift) || exit 1
fixed=$(peak fixed --fixed-buffers) || exit 1
echo "peak RSS per rank: --buffer-shift ${shifted} KiB, --fixed-buffers ${fixed} KiB (buffers: 2 x 256 MiB)"
[ "$shifted" -le $((fixed + 65536)) ] || fail "the shift costs $(((shifted - fixed) / 1024)) MiB beyond fixed buffers"
[ "$shifted" -ge 524288 ] || fail "peak RSS $shifted KiB is below the buffers: was the sweep run?"
span=$(head -1 "$out/shifted.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["sampling"]["buffer_shift_bytes"])')
[ "$span" = 268435456 ] || fail "config.sampling.buffer_shift_bytes is $span, not 268435456 (-e)"
fixed_span=$(head -1 "$out/fixed.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["sampling"]["buffer_shift_bytes"])')
[ "$fixed_span" = 0 ] || fail "--fixed-buffers recorded a shift of $fixed_span"

# Odd ranks, a split collective, in place too, under the shift.
"${mpirun[@]}" -np 3 "$ccbench" reduce_scatter -b 12 -e 12M -f 8 -n 7 -w 2 -c 2 --buffer-shift -d all -o sum \
  > "$out/np3.out" 2> "$out/np3.err" || fail "np 3: exit $? ($(tail -3 "$out/np3.err"))"
grep -q "Out of bounds values : 0 OK" "$out/np3.out" || fail "np 3 under the shift did not verify"
echo "PASS"

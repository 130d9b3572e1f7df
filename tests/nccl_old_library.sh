#!/usr/bin/env bash
# Issue 54 item 1: ccbench built with NCCL 2.28 headers must start on an
# older NCCL under immediate binding (-z now, LD_BIND_NOW=1): a library
# that exports only what NCCL 2.18 has (no ncclAlltoAll, ncclGather,
# ncclScatter, ...) ended it at load before ("undefined symbol", exit 127).
# The stand-in library is built here from the symbol list of a 2.18-era
# libnccl (its functions are never called: `ccbench list` asks the version
# only); the list of what the binary links strongly is checked against it.
#   nccl_old_library.sh CCBENCH CC
set -uo pipefail
ccbench=$1 cc=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
linked=$(nm -D --undefined-only "$ccbench" | awk '/ nccl/ {print $2}')
grep -qx ncclGetVersion <<<"$linked" || { echo "SKIP: this ccbench does not link NCCL" >&2; exit 77; }
# NCCL 2.18's host API (nccl.h of 2.18.3), ncclGetVersion answering 2.18.3.
old="ncclMemAlloc_absent ncclGetLastError ncclCommInitRankConfig ncclCommInitRank ncclCommInitAll ncclCommFinalize
ncclCommDestroy ncclCommAbort ncclCommSplit ncclGetErrorString ncclCommGetAsyncError ncclCommCount ncclCommCuDevice
ncclCommUserRank ncclRedOpCreatePreMulSum ncclRedOpDestroy ncclReduce ncclBcast ncclBroadcast ncclAllReduce
ncclReduceScatter ncclAllGather ncclSend ncclRecv ncclGroupStart ncclGroupEnd ncclGetUniqueId"
{
  echo 'int ncclGetVersion(int* v) { *v = 21803; return 0; }'
  for f in $old; do [ "$f" = ncclMemAlloc_absent ] || echo "int $f(void) { return 2; }"; done
} > "$dir/stub.c"
"$cc" -shared -fPIC -o "$dir/libnccl.so.2" -Wl,-soname,libnccl.so.2 "$dir/stub.c" || fail "cannot build the stand-in library"
for sym in $linked; do
  grep -qw "$sym" <<<"ncclGetVersion $old" || fail "the binary links $sym strongly, which NCCL 2.18 does not have"
done
out=$(LD_BIND_NOW=1 LD_LIBRARY_PATH="$dir" "$ccbench" list 2>&1)
rc=$?
[ $rc = 0 ] || fail "exit $rc under LD_BIND_NOW=1 with NCCL 2.18: $out"
grep -q 'NCCL over GPU memory (built, NCCL 2.18.3)' <<<"$out" || fail "the loaded version is not reported: $out"
echo "ok"

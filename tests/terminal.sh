#!/usr/bin/env bash
# What a reader sees on a terminal (issue: reports a reader trusts at a glance).
# Usage: terminal.sh CCBENCH FIXTURES CASE [MPIRUN...]
#   width     every table and help text ccbench prints fits 160 columns:
#             list, the help texts, a sweep table (a long backend reason and
#             clock wrapped), compare on fixtures with cost, accept --simulate
#             on 1,024 nodes, model predict and check, an io table
#   folder    a real results folder (JSON Lines + CSV + the table saved with
#             tee) compared with another: nothing unread, the CSV and table
#             skipped as duplicates of the JSON Lines beside them
#   escapes   accept under MPIRUN with stdout redirected to a file: no escape
#             codes in it; with --color always there are (the check can fail)
set -u
ccbench=$1 fixtures=$2 mode=$3
shift 3
mpirun=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none CCBENCH_BACKEND=mpi
fail() { echo "FAIL: $*"; exit 1; }
fits() {  # $1 what, then the command: stdout within 160 columns
  local what=$1; shift
  "$@" >"$dir/out" 2>"$dir/err"
  local widest
  widest=$(awk '{ if (length($0) > m) { m = length($0); l = $0 } } END { print m + 0 }' "$dir/out")
  [ -s "$dir/out" ] || fail "$what printed nothing ($(head -c 300 "$dir/err"))"
  [ "$widest" -le 160 ] || fail "$what: a line of $widest columns: $(awk 'length($0) > 160' "$dir/out" | head -2)"
  echo "ok: $what within $widest columns"
}

case $mode in
width)
  fits "list" "$ccbench" list
  for sub in "" compare accept model io baseline; do fits "$sub --help" "$ccbench" $sub --help; done
  fits "sweep table" "$ccbench" all_reduce -b 8 -e 64K -f 8 -n 2 -w 0
  cmp=$fixtures/compare/nccl-tests
  fits "compare report" "$ccbench" compare --run bare="$cmp/bare-metal-all_reduce.log" --run cloud="$cmp/cloud-all_reduce.log" \
    --color never
  printf 'nodes: 1024\ndefective: {nodes: [node0017, node0342], factor: 0.3}\nnoise_cv: 0.05\nseed: 1\n' >"$dir/c.yaml"
  fits "accept --simulate" sh -c "'$ccbench' accept '$fixtures/accept/sim-bisect.yaml' --simulate '$dir/c.yaml' --out '$dir/v' --color never; true"
  fits "model predict" "$ccbench" model predict "$fixtures/model/model-200mbit.json" --ranks 1024 --nodes 128
  fits "model check" sh -c "'$ccbench' model check '$fixtures/model/model-200mbit.json' '$fixtures/model/emu-200mbit-8-hosts.jsonl'; true"
  mkdir "$dir/t"
  fits "io table" "$ccbench" io "$dir/t" -p all -b 4K -e 64K -f 16 --file-size 1M --files 4
  ;;
folder)
  for run in a b; do
    mkdir "$dir/$run"
    "${mpirun[@]}" -np 2 "$ccbench" all_reduce -b 1K -e 64K -f 8 -n 2 -w 0 -J "$dir/$run/ar.jsonl" --csv "$dir/$run/ar.csv" \
      >"$dir/$run/ar.txt" 2>/dev/null || fail "run $run"
  done
  "$ccbench" compare --run a="$dir/a" --run b="$dir/b" --color never --md "$dir/r.md" >"$dir/out" 2>"$dir/err" || fail "compare: exit $?"
  grep -qE '^\| a \| baseline \| ccbench JSON Lines \| 1 \| [0-9]+ \| 0 \|' "$dir/r.md" || fail "set a: files or unread not as expected: $(grep '^| a |' "$dir/r.md")"
  grep -qE '^\| b \| compared \| ccbench JSON Lines \| 1 \| [0-9]+ \| 0 \|' "$dir/r.md" || fail "set b: files or unread not as expected"
  grep -q "ar.csv" "$dir/r.md" && grep -q "ar.txt" "$dir/r.md" || fail "the skipped CSV and table are not named"
  grep -qi "no measured points" "$dir/r.md" && fail "a file listed as having no measured points"
  echo "ok: a results folder compares with nothing unread"
  ;;
escapes)
  "${mpirun[@]}" -np 2 "$ccbench" accept "$fixtures/accept/local.yaml" --out "$dir/acc" >"$dir/out" 2>&1 || fail "accept: exit $?"
  ! grep -q $'\033' "$dir/out" || fail "escape codes in redirected output under mpirun"
  "${mpirun[@]}" -np 2 "$ccbench" accept "$fixtures/accept/local.yaml" --out "$dir/acc2" --color always >"$dir/out" 2>&1
  grep -q $'\033' "$dir/out" || fail "--color always gave no escape codes: the check above cannot fail"
  echo "ok: no escape codes under mpirun unless asked"
  ;;
*) echo "unknown case $mode"; exit 2 ;;
esac

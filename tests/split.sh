#!/bin/sh
# --split (nccl-tests' NCCL_TESTS_SPLIT): groups side by side, each row one
# group's; the records say so; what cannot be split is refused.
#   tests/split.sh CCBENCH MPIRUN...   (run in a scratch directory)
set -eu
ccbench=$1
shift
fail() { echo "FAIL: $*" >&2; exit 1; }

# Even: 4 ranks MOD 2 = 2 groups of 2 (ranks 0,2 and 1,3).
"$@" -np 4 "$ccbench" all_reduce -b 1K -e 64K -f 4 -n 3 --split "MOD 2" -J even.jsonl --csv even.csv > even.txt
grep -q "ranks 2 nodes 1 groups 2 " even.txt || fail "header: $(grep '#  ranks' even.txt)"
grep -q "Out of bounds values : 0 OK" even.txt || fail "even: wrong data"
python3 - even.jsonl 2 2 "MOD 2 (--split)" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
run = next(r for r in recs if r["type"] == "run")
pts = [r for r in recs if r["type"] == "point"]
assert run["split"] == sys.argv[4] and run["groups"] == int(sys.argv[3]), (run["split"], run["groups"])
assert pts and all(p["groups"] == int(sys.argv[3]) and p["ranks"] == int(sys.argv[2]) for p in pts), pts[0]
assert len(run["placement"]) == 4, len(run["placement"])  # every rank of every group
PY
# Odd group size from the environment: 6 ranks DIV 3 = 2 groups of 3.
NCCL_TESTS_SPLIT="DIV 3" "$@" -x NCCL_TESTS_SPLIT -np 6 "$ccbench" reduce_scatter -b 3K -e 48K -f 4 -n 2 -J odd.jsonl > odd.txt
grep -q "split DIV 3 (NCCL_TESTS_SPLIT): 2 groups of 3 ranks" odd.txt || fail "odd header: $(grep '#  split' odd.txt)"
grep -q "Out of bounds values : 0 OK" odd.txt || fail "odd: wrong data"
# A split curve and a single group's never line up in compare.
"$@" -np 2 "$ccbench" all_reduce -b 1K -e 64K -f 4 -n 3 -J alone.jsonl > /dev/null
"$ccbench" compare --run a=alone.jsonl --run b=even.jsonl --color never > cmp.txt || true
grep -q "0 sizes in 0 series" cmp.txt || fail "compare aligned a split run with a single group's: $(grep -m1 'sizes in' cmp.txt)"
# The table text reads back as the JSON does (one group's ranks, 2 groups).
"$ccbench" compare --run a=even.txt --run b=even.jsonl --color never > same.txt || true
grep -q "2 ranks, 1 node, 2 groups side by side" same.txt || fail "table text: $(grep -m3 all_reduce same.txt)"
"$ccbench" compare --run a=even.csv --run b=even.jsonl --color never > csv.txt || true
grep -q "2 ranks, 1 node, 2 groups side by side" csv.txt || fail "csv: $(grep -m3 all_reduce csv.txt)"
# history does not keep split runs (their series would mix).
"$ccbench" history add --db h.db even.jsonl > hist.txt 2>&1 || true
grep -q "a --split run (2 groups side by side): not kept" hist.txt || fail "history: $(cat hist.txt)"
echo "split: ok"

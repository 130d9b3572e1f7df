#!/usr/bin/env bash
# The training step predicted beyond the measured scale, on recorded runs of
# the emulated cluster (200 Mbit/s, nonblocking calls; docs/workload.md
# "Beyond the measured scale"): dp's all_reduce forcing libnbc's rabenseifner
# at 2, 3, 4 hosts, `model fit`, `workload predict --model` of emu-2d.yaml at
# 6 and 8 hosts against the replays recorded there: dp within 20%, its steps
# inside the interval. The same fits read as blocking calls (coll/tuned's
# rules, which they did not force) are refused with one line.
#   workload_scale_model.sh CCBENCH FIXTURES
set -uo pipefail
ccbench=$1 fx=$2
out=$(mktemp -d /tmp/ccbench-wsm.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ccbench" model fit "$fx"/emu-200mbit-dp{2,3,4}-hosts-libnbc3.jsonl --out "$out/m.json" > "$out/fit.txt" ||
  { cat "$out/fit.txt"; fail "fit"; }
grep -q 'forced rabenseifner (libnbc:3), multi-node (1 rank/node) .* 2,3,4 .* rabenseifner' "$out/fit.txt" ||
  { cat "$out/fit.txt"; fail "fit summary: one series per forced libnbc algorithm, its family"; }
grep -q '"mpi_calls": "nonblocking"' "$out/m.json" || fail "the model file keeps its runs' calls"

for hosts in 6 8; do
  "$ccbench" workload predict "$fx/emu-2d.yaml" --ranks $((2 * hosts)) --ranks-per-node 2 \
    --curves "$fx/emu-200mbit-tp-nonblocking.jsonl" --model "$out/m.json" --json "$out/p$hosts.json" > "$out/p$hosts.txt" ||
    { cat "$out/p$hosts.txt"; fail "predict at $hosts hosts"; }
  grep -q "^# not measured, from the scale model: all_reduce at $hosts ranks on $hosts nodes: the library's choice by its rules, from .*forced rabenseifner (libnbc:3)" "$out/p$hosts.txt" ||
    { cat "$out/p$hosts.txt"; fail "$hosts hosts: dp read off the library's choice"; }
  python3 - "$out/p$hosts.json" "$fx/replay-emu-$hosts-hosts-2d.jsonl" <<'PY' || fail "$hosts hosts: dp against the replay"
import json, statistics, sys
pred = json.load(open(sys.argv[1]))["exposed_by_dim_s"]["dp"]
dp = [json.loads(l)["exposed_by_dim_s"]["dp"] for l in open(sys.argv[2]) if '"type":"step"' in l]
m = statistics.median(dp)
err = (pred["mid"] - m) / m
inside = sum(pred["lo"] <= d <= pred["hi"] for d in dp)
print(f"dp replayed {m*1e3:.1f} ms, predicted {pred['mid']*1e3:.1f} ms ({err:+.1%}), {inside} of {len(dp)} inside")
assert abs(err) <= 0.20 and inside >= 0.7 * len(dp)
PY
done
# 8 hosts fold nothing: faster than 6, as replayed.
python3 -c "import json,sys; a,b=(json.load(open(f))['exposed_by_dim_s']['dp']['mid'] for f in sys.argv[1:]); sys.exit(0 if b < 0.6 * a else 1)" \
  "$out/p6.json" "$out/p8.json" || fail "8 hosts predicted no faster than 6 (rabenseifner folds 6 into 4)"

# Read as blocking calls, coll/tuned's rules choose algorithms these fits did not force: refused, named.
sed 's/"mpi_calls": "nonblocking"/"mpi_calls": "blocking"/' "$out/m.json" > "$out/blocking.json"
"$ccbench" workload predict "$fx/emu-2d.yaml" --ranks 16 --ranks-per-node 2 --curves "$fx/emu-200mbit-tp-nonblocking.jsonl" \
  --model "$out/blocking.json" > "$out/b.txt" 2> "$out/b.err"
rc=$?
[ $rc = 2 ] || { cat "$out/b.txt" "$out/b.err"; fail "blocking reading: expected exit 2, got $rc"; }
grep -q "no measured curve for 'dp all_reduce (gradient buckets)'.*its all_reduce fits force rabenseifner (libnbc:3)" "$out/b.err" ||
  { cat "$out/b.err"; fail "blocking reading: the error names the forced fits"; }
echo "workload scale model: ok"

#!/usr/bin/env bash
# The training step's prediction against its replay, time-dilated (docs/
# validation.md "Time-dilated"), on runs recorded on the emulated cluster
# (links 50 Mbit/s, a host's ranks over a loopback shaped to 100 Mbit/s,
# tests/fixtures/workload/emu-3d-dilated.yaml): `workload predict` from the
# recorded curves at 6 and 8 hosts against the replays recorded there: the
# exposed communication and each of tp, pp and dp within 20%, 70% of the
# steps inside the interval. Recorded by scripts/validate/workload-validate.sh
# --workload tests/fixtures/workload/emu-3d-dilated.yaml --rate 50mbit
# --in-host-rate 100mbit --hosts H --measured "" --out DIR.
#   workload_dilated.sh CCBENCH FIXTURES
set -uo pipefail
ccbench=$1 fx=$2
out=$(mktemp -d /tmp/ccbench-dil.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for hosts in 6 8; do
  dp=$((hosts / 2))
  "$ccbench" workload predict "$fx/emu-3d-dilated.yaml" --ranks $((2 * hosts)) --ranks-per-node 2 \
    --curves "$fx/dilated-tp-curve.jsonl" --curves "$fx/dilated-pp-curve.jsonl" --curves "$fx/dilated-pp2-curve.jsonl" \
    --curves "$fx/dilated-dp$dp-curve.jsonl" --json "$out/p$hosts.json" > "$out/p$hosts.txt" ||
    { cat "$out/p$hosts.txt"; fail "predict at $hosts hosts"; }
  python3 - "$out/p$hosts.json" "$fx/replay-dilated-$hosts-hosts.jsonl" "$hosts" <<'PY' || fail "$hosts hosts against the replay"
import json, statistics, sys
pred = json.load(open(sys.argv[1]))
steps = [json.loads(l) for l in open(sys.argv[2]) if '"type":"step"' in l]
ok = True
for dim in ("exposed", "tp", "pp", "dp"):
    if dim == "exposed":
        p, got = pred["exposed_s"], [s["exposed_s"] for s in steps]
    else:
        p, got = pred["exposed_by_dim_s"][dim], [s["exposed_by_dim_s"][dim] for s in steps]
    m = statistics.median(got)
    err = (p["mid"] - m) / m
    inside = sum(p["lo"] <= g <= p["hi"] for g in got)
    print(f"{sys.argv[3]} hosts {dim}: replayed {m*1e3:.1f} ms, predicted {p['mid']*1e3:.1f} ms ({err:+.1%}), {inside} of {len(got)} inside")
    ok = ok and abs(err) <= 0.20
    if dim == "exposed":
        ok = ok and inside >= 0.7 * len(got)
sys.exit(0 if ok else 1)
PY
done
echo "workload dilated: ok"

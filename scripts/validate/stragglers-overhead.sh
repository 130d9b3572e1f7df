#!/usr/bin/env bash
# What --stragglers costs the measured time: the same sweep with and without
# it, alternating, on this machine's MPI; per size the median over rounds of
# each one's per-iteration p50, then the geometric mean over sizes of
# with / without (docs/stragglers.md). Exit 0 within --tolerance, 1 not, 2 bad
# options or a failed run.
#
#   scripts/validate/stragglers-overhead.sh [--np N] [--rounds R] [--ccbench PATH]
#                                           [--sweep "ARGS"] [--tolerance F]
#     defaults: --np 2, --rounds 6, --sweep "all_reduce -b 8K -e 1M -f 4 -n 300 -w 20",
#               --tolerance 0.02
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
np=2 rounds=6 ccbench="$here/build/ccbench" sweep="all_reduce -b 8K -e 1M -f 4 -n 300 -w 20" tolerance=0.02
while [ $# -gt 0 ]; do
  case "$1" in
    --np|--rounds|--ccbench|--sweep|--tolerance)
      [ $# -ge 2 ] || { echo "stragglers-overhead: $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --np) np=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ccbench) ccbench=$2; shift 2 ;;
    --sweep) sweep=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "stragglers-overhead: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ccbench" ] || { echo "stragglers-overhead: $ccbench: not an executable" >&2; exit 2; }
out=$(mktemp -d /tmp/ccbench-stragglers.XXXXXX)
trap 'rm -rf "$out"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe -np "$np")
for r in $(seq "$rounds"); do
  for mode in plain stragglers; do
    extra=(); [ $mode = stragglers ] && extra=(--stragglers)
    # shellcheck disable=SC2086
    "${mpirun[@]}" "$ccbench" $sweep --timing per_iteration "${extra[@]}" -J "$out/$mode-$r.jsonl" > /dev/null 2>&1 ||
      { echo "stragglers-overhead: the $mode run failed" >&2; exit 2; }
  done
done
python3 - "$out" "$rounds" "$tolerance" <<'PY'
import glob, json, math, statistics, sys
out, rounds, tol = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
p50 = {}
for mode in ("plain", "stragglers"):
    for f in glob.glob(f"{out}/{mode}-*.jsonl"):
        for line in open(f):
            rec = json.loads(line)
            if rec.get("type") != "point": continue
            for place in ("out_of_place", "in_place"):
                m = rec.get(place)
                if m and m.get("per_iteration"):
                    p50.setdefault((mode, rec["bytes"], place), []).append(m["per_iteration"]["p50_us"])
logs = []
print(f"{'bytes':>10} {'placement':>13} {'plain us':>10} {'stragglers us':>14} {'ratio':>7}")
for (mode, b, place), v in sorted(p50.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    if mode != "plain": continue
    w = p50.get(("stragglers", b, place))
    if not w: continue
    a, s = statistics.median(v), statistics.median(w)
    logs.append(math.log(s / a))
    print(f"{b:>10} {place:>13} {a:>10.2f} {s:>14.2f} {s / a:>7.3f}")
g = math.exp(sum(logs) / len(logs))
print(f"geomean with / without over {len(logs)} measurements ({rounds} alternating rounds each): {g:.3f} "
      f"(tolerance {100 * tol:.0f}%): {'met' if abs(g - 1) <= tol else 'MISSED'}")
sys.exit(0 if abs(g - 1) <= tol else 1)
PY

#!/usr/bin/env bash
# What timing every rank (--stragglers, on in every acceptance check) costs an
# acceptance run's wall time: the same check with `stragglers: false` and
# with the default, alternating, each a whole `ccbench accept` under mpirun;
# prints the median wall seconds of each and their ratio (docs/acceptance.md
# "Stragglers in every check"). Exit 0, or 2 on bad options or a failed run.
#
#   scripts/validate/accept-stragglers-cost.sh [--np N] [--rounds R] [--ccbench PATH]
#     defaults: --np 2, --rounds 8; the check: all_reduce 8 B, 64 KiB, 1 MiB and
#     16 MiB, 20 iterations after 5 warm-up, 3 repeats, pattern all
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
np=2 rounds=8 ccbench="$here/build/ccbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --np|--rounds|--ccbench) [ $# -ge 2 ] || { echo "accept-stragglers-cost: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --np) np=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ccbench) ccbench=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "accept-stragglers-cost: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ccbench" ] || { echo "accept-stragglers-cost: $ccbench: not an executable" >&2; exit 2; }
out=$(mktemp -d /tmp/ccbench-accept-cost.XXXXXX)
trap 'rm -rf "$out"' EXIT
for mode in off on; do
  cat > "$out/$mode.yaml" <<SPEC
name: stragglers cost ($mode)
checks:
  - name: all
    collective: all_reduce
    sizes: [8, 64K, 1M, 16M]
    iterations: 20
    warmup: 5
    repeats: 3
    pattern: all
    stragglers: $([ $mode = on ] && echo true || echo false)
    gates:
      - {metric: busbw, at: 1M, min: 0.001}
SPEC
done
for r in $(seq "$rounds"); do
  for mode in off on; do
    t0=$(date +%s.%N)
    mpirun --allow-run-as-root --oversubscribe -np "$np" "$ccbench" accept "$out/$mode.yaml" --out "$out/v-$mode" \
      > /dev/null 2>&1 || { echo "accept-stragglers-cost: the $mode run failed" >&2; exit 2; }
    echo "$mode $(date +%s.%N) $t0" >> "$out/times"
  done
done
python3 - "$out/times" <<'PY'
import statistics, sys
t = {"off": [], "on": []}
for line in open(sys.argv[1]):
    mode, end, start = line.split()
    t[mode].append(float(end) - float(start))
off, on = statistics.median(t["off"]), statistics.median(t["on"])
print(f"accept wall s (median of {len(t['on'])}): stragglers off {off:.3g}, on {on:.3g}, on / off {on / off:.3g}")
PY

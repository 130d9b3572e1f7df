#!/usr/bin/env bash
# How much a replay on the emulated cluster loses to other ranks on the same
# cores (docs/workload.md "Validation"): one workload replayed on its own
# emulated cluster alone, then COPIES of it at once, each on its own
# emulated cluster (own namespaces, own shaped links: nothing shared but
# this machine's CPUs), alternating ROUNDS times. Prints each replay's
# median step and exposed communication, and the median of each kind.
#
#   scripts/validate/replay-cpu-share.sh [options]
#     --ccbench PATH     the binary (default build/ccbench)
#     --workload FILE    default tests/fixtures/workload/emu-3d.yaml
#     --hosts N          hosts per cluster (default 2), 2 ranks each
#     --rate RATE        every host's link (default 200mbit)
#     --copies K         replays at once in the shared rounds (default 3)
#     --rounds R         alone / shared rounds, alternating (default 2)
#     --steps N          timed steps per replay (default 10)
# Exit 0; 77 when namespaces cannot be made here; 1 when a replay failed; 2 on bad options.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
ccbench="$here/../build/ccbench" workload="$here/../tests/fixtures/workload/emu-3d.yaml"
hosts=2 rate=200mbit copies=3 rounds=2 steps=10
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    --ccbench|--workload|--hosts|--rate|--copies|--rounds|--steps)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --ccbench) ccbench=$2; shift 2 ;;
    --workload) workload=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --copies) copies=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "replay-cpu-share: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for n in "$hosts" "$copies" "$rounds" "$steps"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "replay-cpu-share: '$n' is not a positive whole number" >&2; exit 2; }
done
[ -x "$ccbench" ] || { echo "replay-cpu-share: $ccbench: not an executable (build first or give --ccbench)" >&2; exit 2; }
out=$(mktemp -d /tmp/ccbench-cpu-share.XXXXXX)
trap 'rm -rf "$out"' EXIT

replay() {  # replay NAME: one replay on its own emulated cluster, its log in $out/NAME.log
  timeout 600 "$here/emu-cluster.sh" -n "$hosts" --slots 2 --rate "$rate" -- -np $((2 * hosts)) \
    "$ccbench" replay "$workload" -n "$steps" > "$out/$1.log" 2>&1
}
result() {  # result NAME KIND: "KIND step_ms exposed_ms" off the replay's summary line
  local line
  line=$(grep '^# median of' "$out/$1.log") || { tail -20 "$out/$1.log" >&2; echo "replay-cpu-share: $1 failed" >&2; exit 1; }
  sed -E "s/.* step ([0-9.]+) ms, compute [0-9.]+ ms, exposed ([0-9.]+) ms.*/$2 \1 \2/" <<<"$line"
}

: > "$out/results"
for r in $(seq 1 "$rounds"); do
  replay "alone-$r"
  rc=$?
  if [ $rc = 77 ]; then grep SKIP "$out/alone-$r.log" >&2; exit 77; fi
  result "alone-$r" alone >> "$out/results"
  pids=()
  for k in $(seq 1 "$copies"); do
    replay "shared-$r-$k" &
    pids+=($!)
  done
  wait "${pids[@]}"
  for k in $(seq 1 "$copies"); do result "shared-$r-$k" "shared" >> "$out/results"; done
done
echo "replay-cpu-share: $workload on $hosts hosts x 2 ranks at $rate; $copies at once in the shared rounds"
python3 - "$out/results" "$copies" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print(f"{'kind':<8} {'step_ms':>9} {'exposed_ms':>11}")
for kind, step, exposed in rows:
    print(f"{kind:<8} {float(step):9.1f} {float(exposed):11.1f}")
med = {k: statistics.median(float(r[1]) for r in rows if r[0] == k) for k in ("alone", "shared")}
print(f"median step: alone {med['alone']:.1f} ms, {sys.argv[2]} at once {med['shared']:.1f} ms "
      f"({med['shared'] / med['alone']:.2f}x)")
EOF

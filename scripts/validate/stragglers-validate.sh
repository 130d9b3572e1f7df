#!/usr/bin/env bash
# --stragglers on the emulated cluster (docs/stragglers.md "Validated"): R runs
# each of a uniform cluster, one host's link throttled (tc), and one host's
# rank slowed after every barrier (CCBENCH_FAULT=slow:host=...); counts the
# runs that name the right host (the link probe for the link, the footer's
# "Straggler:" for the rank) and those that name any other. Exit 0 when the
# slowed hosts are named in >= 9 of 10 of their runs (scaled to R) and the
# uniform runs name nothing, 1 otherwise, 77 without namespaces, 2 bad options.
#
#   scripts/validate/stragglers-validate.sh [--hosts N] [--runs R] [--rate RATE]
#        [--slow-rate RATE] [--host I] [--ccbench PATH]
#     defaults: --hosts 6, --runs 10, --rate 200mbit, --slow-rate 50mbit, --host 4
#   KEEP=DIR keeps every run's table there.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
ccbench="$here/../build/ccbench" hosts=6 runs=10 rate=200mbit slow_rate=50mbit host=4
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts|--runs|--rate|--slow-rate|--host|--ccbench)
      [ $# -ge 2 ] || { echo "stragglers-validate: $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --hosts) hosts=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --slow-rate) slow_rate=$2; shift 2 ;;
    --host) host=$2; shift 2 ;;
    --ccbench) ccbench=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "stragglers-validate: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ccbench" ] || { echo "stragglers-validate: $ccbench: not an executable" >&2; exit 2; }
out=${KEEP:-}
if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/ccbench-stragglers-val.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
name="emu-h$host"
sweep=(all_reduce -b 64K -e 1M -f 4 -n 20 -w 1 --stragglers)
run() {  # run CASE K EMU-OPTIONS... -- MPIRUN-OPTIONS...: one sweep's table into $out/CASE-K.txt
  local case=$1 k=$2
  shift 2
  timeout 300 "$here/emu-cluster.sh" -n "$hosts" --rate "$rate" "$@" "$ccbench" "${sweep[@]}" > "$out/$case-$k.txt" 2>&1
  local rc=$?
  [ $rc = 77 ] && { grep SKIP "$out/$case-$k.txt" >&2; exit 77; }
  [ $rc = 0 ] || { cat "$out/$case-$k.txt" >&2; echo "stragglers-validate: $case run $k failed ($rc)" >&2; exit 2; }
}
declare -A right=() wrong=()
for k in $(seq "$runs"); do
  run uniform "$k" -- -np "$hosts"
  run link "$k" --throttle "$host=$slow_rate" -- -np "$hosts"
  run cpu "$k" -- -np "$hosts" -x "CCBENCH_FAULT=slow:host=$name:us=2000"
  for c in uniform link cpu; do
    f="$out/$c-$k.txt"
    named=$( { grep -o 'host [^:]*: both its links slow' "$f" | sed 's/^host \([^:]*\):.*/\1/'
               grep -o '^# Straggler: rank [0-9]* ([^)]*)' "$f" | sed 's/.*(\(.*\))/\1/'; } | sort -u)
    if [ "$c" != uniform ] && echo "$named" | grep -qx "$name"; then right[$c]=$(( ${right[$c]:-0} + 1 )); fi
    if echo "$named" | grep -v "^$" | grep -vqx "$name" || { [ "$c" = uniform ] && [ -n "$named" ]; }; then
      wrong[$c]=$(( ${wrong[$c]:-0} + 1 ))
    fi
  done
  echo "stragglers-validate: round $k of $runs done" >&2
done
need=$(( (9 * runs + 9) / 10 ))
printf "%-8s %14s %20s\n" case "named $name" "named another host"
for c in uniform link cpu; do printf "%-8s %14s %20s\n" "$c" "${right[$c]:-0}/$runs" "${wrong[$c]:-0}/$runs"; done
ok=1
[ "${right[link]:-0}" -ge "$need" ] && [ "${right[cpu]:-0}" -ge "$need" ] && [ "${wrong[uniform]:-0}" = 0 ] || ok=0
echo "target: the slowed host named in >= $need of $runs runs of each, the uniform cluster naming none: $([ $ok = 1 ] && echo met || echo MISSED)"
[ $ok = 1 ]

#!/usr/bin/env bash
# Validation of ccbench's alltoallv prediction on the emulated cluster: uniform
# alltoall and sendrecv (the link bound) sweeps on --fit host counts (shaped
# links), `ccbench model fit`, then alltoallv sweeps under each --traffic
# model on --check host counts and `ccbench model check` (each alltoallv
# point predicted at the larger of the alltoall at its size and the sendrecv
# at its busiest rank's link bytes: docs/alltoallv.md). Exit: model check's for
# every traffic model together (0 targets met, 1 missed), 77 when namespaces
# cannot be made here, 2 on bad options.
#
#   scripts/validate/alltoallv-validate.sh [options]
#     --ccbench PATH     the binary (default build/ccbench)
#     --rate RATE        every host's link (tc units; default 200mbit)
#     --fit LIST         host counts of the alltoall fit (default 2,3,4,6)
#     --check LIST       host counts of the alltoallv runs (default 4,6)
#     --traffic "LIST"   traffic models (default "hot:1 hot:2 hot:4 lognormal:1")
#     --sweep "ARGS"     default "-b 256K -e 4M -f 2 -n 5 -w 1"
#     --traffic-sweep "ARGS" the alltoallv sweeps (default: --sweep's); the
#                        alltoall fit should reach their busiest bytes (moe
#                        sends each token to several ranks: docs/moe.md)
#     --link-sweep "ARGS" the sendrecv sweeps (default "-b 256K -e 16M -f 2 -n 5 -w 1";
#                        "none": no link bound, each point at the alltoall of its busiest bytes)
#     --targets L,S,C    model check's targets (default 20,30,70: the issue's 20% at >= 1 MiB)
#     --out DIR          keep the runs, model and checks there
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
ccbench="$here/../build/ccbench" rate=200mbit fit=2,3,4,6 check=4,6 traffic="hot:1 hot:2 hot:4 lognormal:1"
sweep="-b 256K -e 4M -f 2 -n 5 -w 1" traffic_sweep="" link_sweep="-b 256K -e 16M -f 2 -n 5 -w 1" targets=20,30,70 out=""
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    --ccbench|--rate|--fit|--check|--traffic|--sweep|--traffic-sweep|--link-sweep|--targets|--out)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --ccbench) ccbench=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --fit) fit=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    --traffic) traffic=$2; shift 2 ;;
    --sweep) sweep=$2; shift 2 ;;
    --traffic-sweep) traffic_sweep=$2; shift 2 ;;
    --link-sweep) link_sweep=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "alltoallv-validate: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ccbench" ] || { echo "alltoallv-validate: $ccbench: not an executable (build first or give --ccbench)" >&2; exit 2; }
if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/ccbench-a2av.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

measure() {  # measure HOSTS NAME ARGS...: one sweep on HOSTS emulated hosts into $out/NAME.jsonl
  local n=$1 name=$2
  shift 2
  rm -f "$out/$name.jsonl"
  # shellcheck disable=SC2086
  timeout 600 "$here/emu-cluster.sh" -n "$n" --rate "$rate" -- -np "$n" "$ccbench" "$@" \
    -J "$out/$name.jsonl" > "$out/$name.log" 2>&1
  local rc=$?
  if [ $rc = 77 ]; then grep SKIP "$out/$name.log" >&2; exit 77; fi
  [ $rc = 0 ] || { cat "$out/$name.log" >&2; echo "alltoallv-validate: $name on $n hosts failed (exit $rc)" >&2; exit 1; }
  echo "alltoallv-validate: measured $name on $n hosts at $rate" >&2
}

fits=()
# shellcheck disable=SC2086
for n in ${fit//,/ }; do
  measure "$n" "alltoall-$n" alltoall $sweep
  fits+=("$out/alltoall-$n.jsonl")
  if [ "$link_sweep" != none ]; then
    measure "$n" "sendrecv-$n" sendrecv $link_sweep
    fits+=("$out/sendrecv-$n.jsonl")
  fi
done
"$ccbench" model fit "${fits[@]}" --out "$out/model.json" || exit 1
checks=()
for t in $traffic; do
  for n in ${check//,/ }; do
    name="alltoallv-${t//[:=]/_}-$n"
    # shellcheck disable=SC2086
    measure "$n" "$name" alltoallv --traffic "$t" ${traffic_sweep:-$sweep}
    checks+=("$out/$name.jsonl")
  done
done
"$ccbench" model check "$out/model.json" "${checks[@]}" --targets "$targets" | tee "$out/check.txt"
exit "${PIPESTATUS[0]}"

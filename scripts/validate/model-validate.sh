#!/usr/bin/env bash
# Validation of ccbench's scale model on the emulated cluster: sweeps on 2, 3
# and 4 hosts (shaped links), `ccbench model fit`, then sweeps on 6 and 8
# hosts and `ccbench model check` (per-point error table, median errors and
# interval coverage against the targets). Exit: model check's (0 targets met,
# 1 missed), 77 when namespaces cannot be made here, 2 on bad options.
#
#   scripts/validate/model-validate.sh [options]
#     --ccbench PATH     the binary (default build/ccbench)
#     --rate RATE        every host's link (tc units; default 200mbit)
#     --fit LIST         host counts to fit on (default 2,3,4)
#     --check LIST       host counts to predict and measure (default 6,8)
#     --collective C     default all_reduce
#     --sweep "ARGS"     default "-b 64K -e 4M -f 2 -n 7 -w 1 --timing per_iteration"
#     --algorithm N|auto|rules
#                        N: Open MPI's tuned algorithm N pinned in every sweep
#                        (4: ring for all_reduce); auto: nothing pinned, fit
#                        and check on what the library chose (its fixed rules
#                        switch algorithms with the communicator size, which a
#                        fit at 2-4 ranks cannot see); rules (default): the fit
#                        sweeps force each of --fit-algorithms, the check
#                        sweeps pin nothing, and the model predicts them by
#                        Open MPI's fixed rules from the forced fits
#     --fit-algorithms L with rules: the algorithms to fit (default 6,
#                        rabenseifner: what Open MPI 4.1's rules choose for
#                        all_reduce >= 8 KiB at 4-15 ranks; model check says
#                        NOT FITTED for a point whose algorithm is missing)
#     --retest           when a target is missed, measure, fit and check once
#                        more (noise on a shared machine)
#     --out DIR          keep the runs, model and check there
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
ccbench="$here/../build/ccbench" rate=200mbit fit=2,3,4 check=6,8 collective=all_reduce
sweep="-b 64K -e 4M -f 2 -n 7 -w 1 --timing per_iteration" algorithm=rules fit_algorithms=6 retest=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    --ccbench|--rate|--fit|--check|--collective|--sweep|--algorithm|--fit-algorithms|--out)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --ccbench) ccbench=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --fit) fit=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    --collective) collective=$2; shift 2 ;;
    --sweep) sweep=$2; shift 2 ;;
    --algorithm) algorithm=$2; shift 2 ;;
    --fit-algorithms) fit_algorithms=$2; shift 2 ;;
    --retest) retest=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "model-validate: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ccbench" ] || { echo "model-validate: $ccbench: not an executable (build first or give --ccbench)" >&2; exit 2; }
if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/ccbench-model.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
short=${collective//_/}
[ "$collective" = reduce_scatter ] && short=reduce_scatter_block  # ccbench calls MPI_Reduce_scatter_block
pin() {  # pin ALG: the mpirun options forcing Open MPI's algorithm ALG ("" for none)
  [ -n "$1" ] && echo "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_${short}_algorithm $1"
}
case $algorithm in
  auto) fit_pins=("") check_pin="" ;;
  rules) IFS=, read -r -a fit_pins <<< "$fit_algorithms"; check_pin="" ;;
  *[!0-9]*|"") echo "model-validate: --algorithm '$algorithm': expected a number, auto or rules" >&2; exit 2 ;;
  *) fit_pins=("$algorithm") check_pin=$algorithm ;;
esac

measure() {  # measure HOSTS ALG: one sweep on HOSTS emulated hosts (ALG pinned, "" none) into $out/HOSTS[-aALG].jsonl
  local n=$1 name=$1${2:+-a$2}
  rm -f "$out/$name.jsonl"
  # shellcheck disable=SC2046
  timeout 600 "$here/emu-cluster.sh" -n "$n" --rate "$rate" -- -np "$n" $(pin "$2") \
    "$ccbench" "$collective" $sweep -J "$out/$name.jsonl" > "$out/$name.log" 2>&1
  local rc=$?
  if [ $rc = 77 ]; then grep SKIP "$out/$name.log" >&2; exit 77; fi
  [ $rc = 0 ] || { cat "$out/$name.log" >&2; echo "model-validate: the sweep on $n hosts failed (exit $rc)" >&2; exit 1; }
  echo "model-validate: measured $collective on $n hosts at $rate${2:+ (algorithm $2 forced)}" >&2
}

# Measure the fit counts, fit, measure the check counts, check; sets rc.
fit_and_check() {
  local fits=() checks=() n
  local a
  for a in "${fit_pins[@]}"; do
    for n in ${fit//,/ }; do measure "$n" "$a"; fits+=("$out/$n${a:+-a$a}.jsonl"); done
  done
  "$ccbench" model fit "${fits[@]}" --out "$out/model.json" || exit 1
  for n in ${check//,/ }; do measure "$n" "$check_pin"; checks+=("$out/$n${check_pin:+-a$check_pin}.jsonl"); done
  "$ccbench" model check "$out/model.json" "${checks[@]}" | tee "$out/check.txt"
  rc=${PIPESTATUS[0]}
}

fit_and_check
if [ "$rc" = 1 ] && [ "$retest" = 1 ]; then
  # Both ends are measurements: a noisy fit sweep can choose the wrong family
  # as surely as a noisy check sweep can miss, so everything is measured again.
  echo "model-validate: a target was missed; measuring ${fit} and ${check} hosts once more (re-test)" >&2
  fit_and_check
fi
exit "$rc"

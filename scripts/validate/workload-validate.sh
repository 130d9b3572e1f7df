#!/usr/bin/env bash
# Validation of ccbench's training-step prediction on the emulated cluster
# (docs/workload.md "Validation"): single-collective curves measured on 1-4
# hosts (tp's all_reduce at 2 ranks in a host, dp's all_reduce at 2, 3 and 4
# hosts, pp's pingpong (one way) and sendrecv (both ways) between 2 hosts;
# with --sharing measured also dp's and pp's two groups per host side by
# side, --split "MOD 2"), `ccbench workload predict` from them, then
# `ccbench replay` of the same step on 4, 6 and 8 hosts (2 ranks per host:
# tp 2 x pp 2 x dp hosts/2) with --check. Prints, per host count, the median
# exposed communication measured and predicted, the error, how many steps
# fell inside the predicted interval, and each dimension's error. Exit 0
# when every target is met (median |error| of the exposed communication, or
# of --dim's, <= 20%, <= 10% on --measured hosts; steps inside the interval
# >= 70% over all host counts), 1 when one is missed, 77 when namespaces
# cannot be made here, 2 on bad options. With --fit-hosts the dp curves are
# measured at those host counts only, forcing each algorithm Open MPI's
# rules choose for a dp bucket at the targets (libnbc's rabenseifner 3 for
# nonblocking calls, and its binomial 2 where a dp group is below 4 hosts;
# coll/tuned's rabenseifner 6 for blocking ones), and every dp
# group is read off their scale model (`ccbench model fit`, `workload
# predict --model`), which predicts the library's own choice by its rules:
# the step predicted beyond the measured scale.
#
#   scripts/validate/workload-validate.sh [options]
#     --ccbench PATH     the binary (default build/ccbench)
#     --workload FILE    default tests/fixtures/workload/emu-3d.yaml
#     --rate RATE        every host's link (tc units; default 200mbit)
#     --in-host-rate RATE ranks of a host over TCP through its loopback shaped to
#                        RATE, not shared memory (time-dilated emulation, with a
#                        workload whose compute is scaled to match:
#                        tests/fixtures/workload/emu-3d-dilated.yaml)
#     --hosts LIST       host counts to predict and replay (default 4,6,8)
#     --measured LIST    of those, the ones whose dp group size was measured
#                        on as many hosts as the curve (default 4: its dp
#                        group of 2 hosts is the 2-host curve's own scale)
#     --sharing HOW      measured: the dp and pp curves of two groups side by
#                        side are measured too (--split); model: left out, so
#                        predict models the sharing (k x the bytes; the default)
#     --mpi-calls HOW    the curves' MPI calls: nonblocking (default: the
#                        replay's own, MPI_Iallreduce ...) or blocking
#     --steps N          timed replay steps (default 10)
#     --min-inside F     the share of steps inside the interval to meet (default 0.7)
#     --max-error PCT    the median |error| to meet on every host count (default 20;
#                        --measured ones: 10 or this, the smaller)
#     --dim DIM          judge one dimension's exposed time (tp, pp, dp, ...)
#                        instead of the whole exposed communication
#     --fit-hosts LIST   measure dp's all_reduce at these host counts only
#                        (e.g. 2,3,4) and fit the scale model on them; with
#                        tests/fixtures/workload/emu-2d.yaml (dp = hosts) and
#                        --hosts 6,8 every dp group is beyond them (needs
#                        --sharing model: the model is of one group)
#     --out DIR          keep the curves, predictions and replays there
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)  # scripts/
ccbench="$here/../build/ccbench" workload="$here/../tests/fixtures/workload/emu-3d.yaml" rate=200mbit in_host=""
hosts_list=4,6,8 measured=4 sharing=model calls=nonblocking steps=10 min_inside=0.7 max_error=20 out="" dim=""
fit_hosts=""
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    --ccbench|--workload|--rate|--in-host-rate|--hosts|--measured|--steps|--sharing|--mpi-calls|--min-inside|--max-error|--out|--dim|--fit-hosts)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    --ccbench) ccbench=$2; shift 2 ;;
    --workload) workload=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --in-host-rate) in_host=$2; shift 2 ;;
    --hosts) hosts_list=$2; shift 2 ;;
    --measured) measured=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --sharing) sharing=$2; shift 2 ;;
    --mpi-calls) calls=$2; shift 2 ;;
    --min-inside) min_inside=$2; shift 2 ;;
    --max-error) max_error=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --dim) dim=$2; shift 2 ;;
    --fit-hosts) fit_hosts=$2; shift 2 ;;
    -h|--help) sed -n '2,52p' "$0"; exit 0 ;;
    *) echo "workload-validate: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$sharing" in measured|model) ;; *) echo "workload-validate: --sharing '$sharing': measured or model" >&2; exit 2 ;; esac
case "$calls" in nonblocking|blocking) ;; *) echo "workload-validate: --mpi-calls '$calls': nonblocking or blocking" >&2; exit 2 ;; esac
case "$dim" in ""|tp|pp|dp|ep|edp) ;; *) echo "workload-validate: --dim '$dim': tp, pp, dp, ep or edp" >&2; exit 2 ;; esac
[ -x "$ccbench" ] || { echo "workload-validate: $ccbench: not an executable (build first or give --ccbench)" >&2; exit 2; }
[ -r "$workload" ] || { echo "workload-validate: $workload: cannot read" >&2; exit 2; }
[ -z "$fit_hosts" ] || [ "$sharing" = model ] ||
  { echo "workload-validate: --fit-hosts needs --sharing model (the scale model is of one group)" >&2; exit 2; }
if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/ccbench-workload.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
emu() {  # emu NAME HOSTS SLOTS MPIRUN-ARGS...: one run on the emulated cluster, its output in $out/NAME.log
  local name=$1 n=$2 slots=$3
  shift 3
  timeout 600 "$here/emu-cluster.sh" -n "$n" --slots "$slots" --rate "$rate" ${in_host:+--in-host-rate "$in_host"} \
    -- "$@" > "$out/$name.log" 2>&1
  local rc=$?
  if [ $rc = 77 ]; then grep SKIP "$out/$name.log" >&2; exit 77; fi
  [ $rc = 0 ] || { tail -20 "$out/$name.log" >&2; echo "workload-validate: $name on $n hosts failed (exit $rc)" >&2; exit 1; }
}

# The curves: every group the steps below use, measured alone.
sweep="-n 12 -w 2 --timing per_iteration --mpi-calls $calls"
emu curve-tp 1 2 -np 2 "$ccbench" all_reduce -b 32K -e 512K -f 2 $sweep -J "$out/curve-tp.jsonl"
emu curve-pp 2 1 -np 2 "$ccbench" pingpong -b 32K -e 512K -f 2 $sweep -J "$out/curve-pp.jsonl"
emu curve-pp2 2 1 -np 2 "$ccbench" sendrecv -b 32K -e 512K -f 2 $sweep -J "$out/curve-pp2.jsonl"
curves=("$out/curve-tp.jsonl" "$out/curve-pp.jsonl" "$out/curve-pp2.jsonl")
dp_of() {  # dp_of HOSTS: the workload's data-parallel group size at 2 ranks per host
  "$ccbench" workload show "$workload" --ranks $((2 * $1)) --ranks-per-node 2 | sed -n 's/^#.* dp \([0-9]*\),.*/\1/p' | head -1
}
if [ -n "$fit_hosts" ]; then
  dps=$(echo "${fit_hosts//,/ }" | tr ' ' '\n' | sort -un)
else
  dps=$(for h in ${hosts_list//,/ }; do dp_of "$h"; done | sort -un)
fi
for d in $dps; do
  case "$d" in ''|*[!0-9]*|0|1) echo "workload-validate: a dp group of '$d' hosts: need 2 or more (--hosts, --fit-hosts)" >&2; exit 2 ;; esac
done
fit_algs=""  # --fit-hosts: the algorithms forced in the dp fit sweeps (what the rules choose at the targets)
if [ -n "$fit_hosts" ]; then
  if [ "$calls" = nonblocking ]; then
    fit_algs=3  # libnbc's rabenseifner: >= 4 ranks, out of place, >= 64 KiB; binomial (2) below 4 ranks
    for h in ${hosts_list//,/ }; do [ "$(dp_of "$h")" -lt 4 ] && fit_algs="2 3"; done
  else
    fit_algs=6  # coll/tuned's rabenseifner: 4-15 ranks >= 8 KiB (and >= 256 KiB below 4)
  fi
fi
pin() {  # pin ALG: the mpirun options forcing ALG for this run's calls
  if [ "$calls" = nonblocking ]; then echo "--mca coll_libnbc_iallreduce_algorithm $1"
  else echo "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm $1"; fi
}
fits=()
for d in $dps; do
  if [ -n "$fit_hosts" ]; then  # forced: the scale model's input, not curves of what the library chooses
    for a in $fit_algs; do
      # shellcheck disable=SC2046
      emu "curve-dp$d-a$a" "$d" 1 -np "$d" $(pin "$a") "$ccbench" all_reduce -b 256K -e 4M -f 2 $sweep \
        -J "$out/curve-dp$d-a$a.jsonl"
      fits+=("$out/curve-dp$d-a$a.jsonl")
    done
    continue
  fi
  emu "curve-dp$d" "$d" 1 -np "$d" "$ccbench" all_reduce -b 256K -e 4M -f 2 $sweep -J "$out/curve-dp$d.jsonl"
  curves+=("$out/curve-dp$d.jsonl")
  [ "$sharing" = measured ] || continue
  emu "curve-dp$d-x2" "$d" 2 -np $((2 * d)) "$ccbench" all_reduce -b 256K -e 4M -f 2 $sweep --split "MOD 2" \
    -J "$out/curve-dp$d-x2.jsonl"
  curves+=("$out/curve-dp$d-x2.jsonl")
done
if [ "$sharing" = measured ]; then
  emu curve-pp-x2 2 2 -np 4 "$ccbench" pingpong -b 32K -e 512K -f 2 $sweep --split "MOD 2" -J "$out/curve-pp-x2.jsonl"
  curves+=("$out/curve-pp-x2.jsonl")
fi
models=()
if [ -n "$fit_hosts" ]; then
  "$ccbench" model fit "${fits[@]}" --out "$out/model-dp.json" > "$out/model-fit.txt" 2>&1 ||
    { cat "$out/model-fit.txt" >&2; exit 1; }
  models=(--model "$out/model-dp.json")
fi
echo "workload-validate: curves measured at $rate${in_host:+ (in a host: $in_host over TCP)} (tp: 2 ranks in a host; pp: 2 hosts, one way and both; dp: $(echo $dps | tr ' ' ,) hosts$([ -n "$fit_hosts" ] && echo ", forcing algorithm $fit_algs, scale model fitted on them"); sharing $sharing; $calls MPI calls)" >&2

printf '%-6s %12s %12s %9s %-12s %s\n' hosts measured_ms predicted_ms error steps_inside "error by dimension"
fail=0 inside_all=0 steps_all=0
for h in ${hosts_list//,/ }; do
  "$ccbench" workload predict "$workload" --ranks $((2 * h)) --ranks-per-node 2 --curves "${curves[@]}" "${models[@]}" \
    --json "$out/predict-$h.json" > "$out/predict-$h.txt" || { cat "$out/predict-$h.txt"; exit 1; }
  emu "replay-$h" "$h" 2 -np $((2 * h)) "$ccbench" replay "$workload" -n "$steps" --check "$out/predict-$h.json" \
    -J "$out/replay-$h.jsonl"
  # shellcheck disable=SC2046
  read -r meas pred err inside total by_dim < <(python3 - "$out/predict-$h.json" "$out/replay-$h.jsonl" "$dim" <<'EOF'
import json, statistics, sys
p = json.load(open(sys.argv[1]))
steps = [json.loads(l) for l in open(sys.argv[2]) if '"type":"step"' in l]
dim = sys.argv[3]
def error(pred, series):
    m = statistics.median(series)
    return m, (pred["mid"] - m) / m * 100 if m > 0 else float("nan")
by_dim = []
for d, pred in p["exposed_by_dim_s"].items():
    if pred["hi"] > 0:
        by_dim.append(f"{d}:{error(pred, [s['exposed_by_dim_s'][d] for s in steps])[1]:+.1f}%")
pred = p["exposed_by_dim_s"][dim] if dim else p["exposed_s"]
exposed = [s["exposed_by_dim_s"][dim] if dim else s["exposed_s"] for s in steps]
m, err = error(pred, exposed)
inside = sum(1 for e in exposed if pred["lo"] <= e <= pred["hi"])
print(f"{m*1e3:.1f} {pred['mid']*1e3:.1f} {err:+.1f} {inside} {len(exposed)} {','.join(by_dim)}")
EOF
  )
  printf '%-6s %12s %12s %8s%% %-12s %s\n' "$h" "$meas" "$pred" "$err" "$inside/$total" "$by_dim"
  inside_all=$((inside_all + inside)) steps_all=$((steps_all + total))
  limit=$max_error
  case ",$measured," in *",$h,"*) [ "$max_error" -gt 10 ] && limit=10 ;; esac
  python3 -c "import sys; sys.exit(0 if abs(float('$err')) <= $limit else 1)" ||
    { echo "workload-validate: $h hosts: |error| ${err#[+-]}% > $limit%" >&2; fail=1; }
done
python3 -c "import sys; sys.exit(0 if $inside_all >= $min_inside * $steps_all else 1)" ||
  { echo "workload-validate: $inside_all of $steps_all steps inside the predicted interval (< $min_inside)" >&2; fail=1; }
echo "workload-validate: $inside_all of $steps_all steps inside the interval; targets $([ $fail = 0 ] && echo met || echo MISSED)" >&2
exit $fail

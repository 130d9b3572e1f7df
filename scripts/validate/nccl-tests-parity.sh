#!/usr/bin/env bash
# ccbench next to nccl-tests on this machine's GPUs, same flags, alternating:
# builds nccl-tests from its source archive in --peers DIR (default deps/peers,
# where `scripts/dev/gpu-check.sh --stage DIR` puts it), --archive FILE, or takes
# --nccl-tests DIR (a built tree), runs each tool --rounds times per collective, and prints per
# size the ratio ccbench / nccl-tests of time and algbw (medians over the
# rounds, through ccbench compare), after one run of each with -I 1 -J x.json
# whose stdout and document must have the same structure
# (scripts/validate/nccl_tests_view.py diff), then the targets of issue 14: time within
# +-2% at >= 1 MiB and +-5% below, out-of-place and in-place rows alike. A
# case that fails (a run over its bound, a build of its binary missing) is
# reported and the next case runs; the exit says whether any failed.
#
#   scripts/validate/nccl-tests-parity.sh [-g N] [--rounds R] [--collectives "all_reduce ..."]
#                                [--graph N] [--nccl-tests DIR | --archive FILE]
#                                [--peers DIR] [--ccbench PATH] [--out DIR] [-- FLAGS...]
#     -g N            GPUs, one process (default: all visible)
#     --rounds R      alternations per collective (default 3)
#     --collectives   default: the 9 nccl-tests shares with ccbench (all_reduce all_gather
#                     reduce_scatter alltoall broadcast reduce gather scatter sendrecv)
#     --graph N       also run all_reduce with -G N on both (default 10; 0: skip)
#     --ccbench PATH  default build-gpu/ccbench (scripts/dev/gpu-check.sh's build), else build/ccbench
#     FLAGS           the sweep, passed to both (default: -b 8 -e 1G -f 2)
# Every run (and the build) ends within its bound whatever hangs: timeout -k,
# PARITY_RUN_SECONDS each (default 120; the build 300), SIGKILL 10 s after SIGTERM.
# Exit: 0 targets met, 1 missed (or a run over its bound), 77 no GPU or no nvcc here, 2 bad options.
set -uo pipefail
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }  # paths given are the caller's
ccbench="" archive="" peers=""
gpus="" rounds=3 graph=10 nt="" out=""
collectives="all_reduce all_gather reduce_scatter alltoall broadcast reduce gather scatter sendrecv"
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    -g|--rounds|--collectives|--graph|--nccl-tests|--archive|--peers|--ccbench|--out)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    -g) gpus=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --collectives) collectives=$2; shift 2 ;;
    --graph) graph=$2; shift 2 ;;
    --nccl-tests) nt=$(abs "$2"); shift 2 ;;
    --archive) archive=$(abs "$2"); shift 2 ;;
    --peers) peers=$(abs "$2"); shift 2 ;;
    --ccbench) ccbench=$(abs "$2"); shift 2 ;;
    --out) out=$(abs "$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set /{/^set /!p}' "$0"; exit 0 ;;
    *) echo "nccl-tests-parity: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
sweep=("$@")
[ ${#sweep[@]} -gt 0 ] || sweep=(-b 8 -e 1G -f 2)
skip() { echo "nccl-tests-parity: SKIP: $*" >&2; exit 77; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || skip "no GPU visible (nvidia-smi -L fails)"
if [ -z "$ccbench" ]; then
  ccbench=$root/build-gpu/ccbench
  [ -x "$ccbench" ] || ccbench=$root/build/ccbench
fi
. scripts/dev/nccl-home.sh  # NCCL for nccl-tests' build, and libnccl.so.2 for both when they run
if [ ! -x "$ccbench" ]; then  # a fresh machine: build it as scripts/dev/gpu-check.sh does
  echo "nccl-tests-parity: building ccbench into build-gpu ..." >&2
  export PATH=/usr/local/cuda/bin:$PATH
  gen=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
  { timeout -k 10 120 cmake -S . -B build-gpu -G "$gen" -DCMAKE_BUILD_TYPE=Release -DCCBENCH_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=native && timeout -k 10 300 cmake --build build-gpu -j "$(nproc)" --target ccbench; } \
    > /tmp/ccbench-parity-build.log 2>&1 || { tail -20 /tmp/ccbench-parity-build.log >&2; exit 2; }
  ccbench=$root/build-gpu/ccbench
fi
[ -n "$gpus" ] || gpus=$(nvidia-smi -L | wc -l)
if [ -z "$out" ]; then out=$(mktemp -d /tmp/ccbench-parity.XXXXXX); fi
mkdir -p "$out"

# nccl-tests: the snapshot, built without MPI (one process, -g N GPUs).
if [ -z "$nt" ]; then
  [ -n "$peers" ] || peers=$root/deps/peers
  [ -n "$archive" ] || archive=$(ls "$peers"/nccl-tests-*.tar.gz 2>/dev/null | head -1)
  [ -f "$archive" ] || skip "no nccl-tests archive in $peers (give --peers DIR, --archive FILE or --nccl-tests DIR)"
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc to build nccl-tests"
  cuda=${CUDA_HOME:-/usr/local/cuda}
  nccl=${NCCL_HOME:-$cuda}
  rm -rf "$out/src" && mkdir -p "$out/src" && tar xzf "$archive" -C "$out/src"
  src=$(ls -d "$out"/src/*/src | head -1)
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  targets=""
  for c in $collectives; do targets="$targets $out/nt/${c}_perf"; done
  echo "nccl-tests-parity: building $(basename "$archive") for sm_$cc ..." >&2
  timeout -k 10 300 make -C "$src" -j "$(nproc)" MPI=0 CUDA_HOME="$cuda" NCCL_HOME="$nccl" \
    NVCC_GENCODE="-gencode=arch=compute_$cc,code=sm_$cc" BUILDDIR="$out/nt" $targets > "$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log" >&2; echo "nccl-tests-parity: nccl-tests did not build" >&2; exit 1; }
  nt=$out/nt
  echo "nccl-tests-parity: nccl-tests from $(basename "$archive")" >&2
fi

bound=${PARITY_RUN_SECONDS:-120}
runs() {  # runs NAME COLLECTIVE EXTRA...: the alternating rounds of one case
  local name=$1 coll=$2; shift 2
  mkdir -p "$out/$name/nccl-tests" "$out/$name/ccbench"
  for r in $(seq 1 "$rounds"); do
    timeout -k 10 "$bound" "$nt/${coll}_perf" -g "$gpus" "${sweep[@]}" "$@" > "$out/$name/nccl-tests/$r.txt" 2>&1 ||
      { tail -5 "$out/$name/nccl-tests/$r.txt" >&2; echo "nccl-tests-parity: ${coll}_perf $* failed (exit $?; 124/137: over ${bound} s)" >&2; return 1; }
    timeout -k 10 "$bound" "$ccbench" "$coll" --backend nccl -g "$gpus" "${sweep[@]}" "$@" --timing pipelined -J "$out/$name/ccbench/$r.jsonl" \
      > "$out/$name/ccbench/$r.txt" 2>&1 ||
      { tail -5 "$out/$name/ccbench/$r.txt" >&2; echo "nccl-tests-parity: ccbench $coll $* failed (exit $?; 124/137: over ${bound} s)" >&2; return 1; }
  done
  # The structure: what a parser of nccl-tests' stdout and -J JSON sees, diffed (scripts/validate/nccl_tests_view.py).
  timeout -k 10 "$bound" "$nt/${coll}_perf" -g "$gpus" "${sweep[@]}" "$@" -I 1 -J "$out/$name/structure-nt.json" \
    > "$out/$name/structure-nt.txt" 2>&1 &&
    timeout -k 10 "$bound" "$ccbench" "$coll" --backend nccl -g "$gpus" "${sweep[@]}" "$@" -I 1 \
      -J "$out/$name/structure-cc.json" > "$out/$name/structure-cc.txt" 2>&1 ||
    { echo "nccl-tests-parity: $name: the structure runs (-I 1 -J .json) failed" >&2; return 1; }
  for f in txt json; do
    python3 scripts/validate/nccl_tests_view.py diff "$out/$name/structure-nt.$f" "$out/$name/structure-cc.$f" \
      > "$out/$name/structure-$f.diff" ||
      { cat "$out/$name/structure-$f.diff" >&2; echo "nccl-tests-parity: $name: the $f structure differs" >&2; return 1; }
  done
  "$ccbench" compare --run nccl-tests="$out/$name/nccl-tests" --run ccbench="$out/$name/ccbench" \
    --ignore-key path,memory,nodes --csv "$out/$name/compare.csv" -q --color never ||
    { echo "nccl-tests-parity: compare failed for $name" >&2; return 1; }
}

cases=() failed=()
for c in $collectives; do
  if runs "$c" "$c"; then cases+=("$c"); else failed+=("$c"); fi
done
if [ "$graph" -gt 0 ]; then
  if runs "all_reduce-G$graph" all_reduce -G "$graph"; then cases+=("all_reduce-G$graph"); else failed+=("all_reduce-G$graph"); fi
fi

# Per size, ccbench / nccl-tests (medians over the rounds); every row judged.
rc=0
for name in "${failed[@]}"; do echo "== $name: FAILED (see above)"; rc=1; done
for name in "${cases[@]}"; do
  echo "== $name on $gpus GPU(s): ccbench / nccl-tests, medians of $rounds alternating rounds"
  awk -F, -v name="$name" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      b = $col["bytes"]; t = $col["time_ratio"]; a = 1 / t; ip = $col["in_place"]
      printf "  %12s %-13s time %.3f  algbw %.3f\n", b, (ip == "true" ? "in-place" : "out-of-place"), t, a
      if (b == 0) next
      d = t > 1 ? t - 1 : 1 - t
      if (b >= 1048576) { nl++; if (d > wl) wl = d } else { ns++; if (d > ws) ws = d }
    }
    END {
      okl = wl <= 0.02; oks = ws <= 0.05
      printf "  >= 1 MiB: worst |time ratio - 1| %.1f%% over %d sizes (target 2%%): %s\n", 100 * wl, nl, okl ? "met" : "MISSED"
      printf "  <  1 MiB: worst |time ratio - 1| %.1f%% over %d sizes (target 5%%): %s\n", 100 * ws, ns, oks ? "met" : "MISSED"
      exit !(okl && oks)
    }' "$out/$name/compare.csv" || rc=1
done
echo "nccl-tests-parity: outputs in $out"
exit $rc

#!/usr/bin/env bash
# The GPU check, made for one device call (docs/gpu.md "GPU check" gives the
# exact call): on a machine with NVIDIA GPU(s), the CUDA toolkit and NCCL,
#   preflight  tools, libraries (system or staged in deps/), GPUs, driver, NCCL;
#   build      only the targets it runs (ccbench, the GPU unit tests, bench_gpu);
#   steps      GPU unit tests (failing, not skipping, without a GPU), copy
#              bandwidth against a share of the PCIe limit nvidia-smi reports,
#              every collective x dtype x op verified, -G / -R / -z runs
#              verified, NCCL's chosen algorithms, the watchdog and hang
#              bounds, nccl-tests' flags, compute-sanitizer memcheck, storage
#              -> GPU, accept, bench_gpu's targets enforced; multi-GPU steps
#              print "skipped: 1 GPU" when there is one.
# Every step ends within its bound (timeout -k), the whole within
# GPU_CHECK_BUDGET seconds (default 440: with the kill delay and packing, a
# 540 s device call with a minute to spare); a failed step puts its log's tail
# into the summary.
#
# What comes back ($OUT, the device tool's output folder; default
# build-gpu/out), three files at most: summary.txt (preflight, one line per
# step, failed steps' log tails; rewritten after every step, so a check cut
# short still says what it learned), check.tar.gz (every log and record) and
# whatever the caller redirects stdout to. Exit 0 when every step passed,
# 1 when one failed, 2 when the machine cannot run the check at all.
#
#   gpu-check.sh                 the check
#   gpu-check.sh --stage [PEERS] here, before: copy into deps/ what a bare GPU
#                                machine lacks (scripts/dev/gpu-check-stage.sh)
#   gpu-check.sh --rehearse      on a machine without a GPU (CI): the same
#                                script as on a bare device (no MPI, hwloc,
#                                yaml-cpp, liburing or pkg-config visible; deps
#                                from --stage), preflight and build, every
#                                step listed with its bound, the files of $OUT
# GPU_CHECK_BUILD (build folder, default build-gpu), GPU_CHECK_BUILD_TYPE
# (default Release), GPU_CHECK_TARGETS_ONLY=0 (build every target) and
# GPU_CHECK_BUILD_BOUND (seconds, default 240) serve CI's rehearsal on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
case "${1:-}" in
  --stage) shift; exec scripts/dev/gpu-check-stage.sh "$@" ;;
  --rehearse) export GPU_CHECK_REHEARSE=1 ;;
  "") ;;
  *) echo "usage: scripts/dev/gpu-check.sh [--stage [PEERS] | --rehearse]" >&2; exit 2 ;;
esac
REHEARSE=${GPU_CHECK_REHEARSE:-0}
BUILD=${GPU_CHECK_BUILD:-build-gpu}
RESULTS=${OUT:-$BUILD/out}
LOGS=$BUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS" "$RESULTS" || exit 2
OUT=$LOGS SUMMARY_FILE=$RESULTS/summary.txt PREFLIGHT_FILE=$LOGS/preflight.txt
export PATH=/usr/local/cuda/bin:$PATH
BARE_CMAKE_FLAGS=()
if [ "$REHEARSE" = 1 ]; then . scripts/dev/gpu-check-bare.sh; fi  # PATH and CMake see a bare device
. scripts/dev/gpu-check-steps.sh

pack() {  # the files of $OUT: the summary and every log and record, under 16 MiB
  write_summary
  local tarball=$RESULTS/check.tar.gz
  tar -czf "$tarball" --exclude=io-data -C "$BUILD" check 2>/dev/null
  if [ "$(stat -c %s "$tarball" 2>/dev/null || echo 0)" -gt $((15 * 1024 * 1024)) ]; then
    tar -czf "$tarball" --exclude=io-data --exclude='*.jsonl' --exclude='*.json' -C "$BUILD" check 2>/dev/null
  fi
}
trap pack EXIT
trap 'record interrupted "FAILED (signal)" 0; exit 1' TERM INT

# --- preflight: what this machine has, in the summary's first lines ----------------
have() { command -v "$1" >/dev/null 2>&1; }
tool() { if have "$1"; then printf '%s ' "$1"; else printf '%s(missing) ' "$1"; fi; }
header_from() {  # header_from NAME HEADER: system, staged or missing
  if [ -e "/usr/include/$2" ] && [ "$REHEARSE" != 1 ]; then echo "$1 system"
  elif [ -e "deps/include/$2" ]; then echo "$1 staged"
  else echo "$1 missing"; fi
}
. scripts/dev/nccl-home.sh 2>>"$LOGS/preflight.err"
NCCL_H=${NCCL_HOME:+$NCCL_HOME/include/nccl.h}
[ -n "$NCCL_H" ] || NCCL_H=/usr/local/cuda/include/nccl.h
nccl_header=$(awk '/#define NCCL_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END {print v}' "$NCCL_H" 2>/dev/null)
NGPUS=0
if ! have nvidia-smi; then echo "nvidia-smi not found" > "$LOGS/gpus.txt"
elif nvidia-smi -L > "$LOGS/gpus.txt" 2>&1; then NGPUS=$(grep -c '^GPU ' "$LOGS/gpus.txt"); fi
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
# The yaml-cpp staged as a static library links only with a compatible C++
# library: tried here, so that a mismatch costs the accept step, not the build.
yaml=$(header_from yaml-cpp yaml-cpp/yaml.h)
YAML_FLAG=()
if [ "$yaml" = "yaml-cpp staged" ]; then
  printf '#include <yaml-cpp/yaml.h>\nint main() { return YAML::Load("a: 1")["a"].as<int>() - 1; }\n' > "$LOGS/yaml.cpp"
  if ! c++ -std=c++17 -Ideps/include "$LOGS/yaml.cpp" deps/lib/libyaml-cpp.a -o "$LOGS/yaml-probe" \
       > "$LOGS/yaml-probe.log" 2>&1; then
    yaml="yaml-cpp staged but does not link here (accept skipped)"
    YAML_FLAG=(-DCCBENCH_DEPS_YAML=OFF)
  fi
fi
{
  echo "== gpu-check preflight ($(date -u +%FT%TZ), $(hostname), $(nproc) cores$([ "$REHEARSE" = 1 ] && echo ', rehearsal'))"
  echo "tools: $(for t in nvcc cmake ninja c++ cc nm python3 compute-sanitizer nvidia-smi mpirun pkg-config; do tool $t; done)"
  echo "libraries: $(header_from fmt fmt/format.h), $(header_from nlohmann-json nlohmann/json.hpp)," \
    "$(header_from CLI11 CLI/CLI.hpp), $(header_from GoogleTest gtest/gtest.h), $yaml," \
    "$(header_from liburing liburing.h)"
  echo "GPUs: $NGPUS$([ "$NGPUS" -gt 0 ] && echo " ($(sed -n 's/^GPU 0: \([^(]*\).*/\1/p' "$LOGS/gpus.txt" | head -1)), driver $driver")"
  echo "NCCL: headers ${nccl_header:-not found} ($NCCL_H)${NCCL_HOME:+, NCCL_HOME=$NCCL_HOME}"
  echo "budget: $BUDGET s in all; steps cut to what is left; call with timeout_s >= $((BUDGET + 100))"
} > "$PREFLIGHT_FILE"
cat "$PREFLIGHT_FILE"
missing=""
for t in nvcc cmake c++; do have $t || missing+=" $t"; done
for h in fmt/format.h nlohmann/json.hpp CLI/CLI.hpp; do
  [ -e "deps/include/$h" ] || { [ "$REHEARSE" != 1 ] && [ -e "/usr/include/$h" ]; } || missing+=" $h"
done
[ -z "$NCCL_H" ] || [ -e "$NCCL_H" ] || missing+=" nccl.h"
if [ -n "$missing" ]; then
  record preflight "FAILED (missing:$missing; run --stage where they are)" 0
  exit 2
fi
if [ "$NGPUS" -eq 0 ] && [ "$REHEARSE" != 1 ]; then
  record preflight "FAILED (no NVIDIA GPU visible: $(head -1 "$LOGS/gpus.txt" 2>/dev/null))" 0
  exit 2
fi
record preflight ok "$SECONDS"

# --- build: only what the steps run ----------------------------------------------
GEN=$(have ninja && echo Ninja || echo "Unix Makefiles")
ARCH=native
[ "$NGPUS" -gt 0 ] || ARCH=90  # CMake's "native" needs a GPU
CONFIGURE=(cmake -S . -B "$BUILD" -G "$GEN" -DCMAKE_BUILD_TYPE="${GPU_CHECK_BUILD_TYPE:-Release}" -DCCBENCH_CUDA=ON
           -DCMAKE_CUDA_ARCHITECTURES="$ARCH" "${YAML_FLAG[@]}" "${BARE_CMAKE_FLAGS[@]}")
[ "${CI:-}" = "true" ] && CONFIGURE+=(-DCCBENCH_WERROR=ON)
run_step() { GPU_CHECK_REHEARSE=0 step "$@"; }  # configure and build run in a rehearsal too
run_step configure 60 "${CONFIGURE[@]}" || exit 1
grep -E "ccbench: (MPI|CUDA|io_uring)|yaml-cpp|GoogleTest|SQLite" "$LOGS/configure.log"
targets=(ccbench)
grep -q "Found GTest" "$LOGS/configure.log" && targets+=(ccbench_gpu_tests)
targets+=(bench_gpu)
build_args=(--target "${targets[@]}")
[ "${GPU_CHECK_TARGETS_ONLY:-1}" = 0 ] && build_args=()
run_step build "${GPU_CHECK_BUILD_BOUND:-240}" cmake --build "$BUILD" -j "$(nproc)" "${build_args[@]}" || exit 1

CCB=$BUILD/ccbench
built ccbench "$CCB" || exit 1
HAVE_MPI=$(grep -c "ccbench: MPI 1" "$LOGS/configure.log")
HAVE_YAML=$(grep -c "yaml-cpp not found" "$LOGS/configure.log"); HAVE_YAML=$((1 - HAVE_YAML))
HAVE_URING=$(grep -c "io_uring 1" "$LOGS/configure.log")
[ "$REHEARSE" = 1 ] && NGPUS=1  # the plan of a one-GPU machine

. scripts/dev/gpu-check-plan.sh

[ "$REHEARSE" = 1 ] && echo "rehearsal: stopped before the first step that needs a GPU"
echo
echo "== gpu-check summary: $RESULTS/summary.txt"
write_summary
cat "$SUMMARY_FILE"
! printf '%s\n' "${SUMMARY[@]}" | grep -q FAILED

#!/usr/bin/env bash
# GPU check: on a machine with NVIDIA GPU(s) and the CUDA toolkit (with NCCL),
# build ccbench and run, in under 6 minutes on one GPU:
#   1. the GPU unit tests (device kernels against the host kernels);
#   2. the copy tests (ccbench copy: host<->GPU, GPU<->GPU, latency), and
#      storage -> pageable, pinned and GPU memory (ccbench io);
#   3. a short NCCL sweep: every collective, every dtype and op, checked, on
#      -g <all GPUs> in one process (no MPI needed), plus CUDA-graph (-G),
#      registered-buffer (-R 1) and blocking (-z 1) runs; with 2+ GPUs the
#      point-to-point tests and the forced paths (nvlink, shm); with 2+ GPUs
#      and mpirun, one GPU per MPI rank;
#   4. ccbench accept with the NCCL backend on this node (tests/fixtures/accept/gpu-one-node.yaml);
#   5. bench_gpu: fill/verify kernels vs cudaMemcpy, NCCL timing overhead.
# Then it prints a summary; logs and JSON Lines go to build-gpu/check/.
#
# Every step ends within its bound whatever hangs (timeout -k: SIGTERM, then
# SIGKILL 10 s later), and the whole script within GPU_CHECK_BUDGET seconds
# (default 290: one device call of under 5 minutes; a step that would start
# with less than its bound left is cut to what is left). Exit 1 when any step
# failed, was skipped for want of a binary, ran out of budget, or a check of
# its output found nothing; each such step is one "FAILED" line.
#
# MPI, hwloc and GoogleTest are optional (without GoogleTest step 1 is skipped).
# fmt, CLI11 and nlohmann-json are needed as headers at least: from Debian
# packages, or staged on another machine with
#   scripts/dev/gpu-check.sh --stage [PEERS]  (copies them and GoogleTest into deps/,
#                                          and the nccl-tests source archive from
#                                          the folder PEERS, when given)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

if [ "${1:-}" = "--stage" ]; then
  mkdir -p deps/include deps/lib deps/peers
  # The nccl-tests archive for scripts/validate/nccl-tests-parity.sh: a folder outside
  # the checkout does not travel to a GPU machine, deps/ does when it is carried.
  [ -n "${2:-}" ] && cp "$2"/nccl-tests-*.tar.gz deps/peers/ 2>/dev/null
  for h in fmt CLI nlohmann gtest gmock; do
    [ -d /usr/include/$h ] && cp -r /usr/include/$h deps/include/
  done
  for l in libgtest.a libgtest_main.a libfmt.a; do
    f=$(ls /usr/lib/*/$l 2>/dev/null | head -1) && [ -n "$f" ] && cp "$f" deps/lib/
  done
  echo "staged into deps/: $(ls deps/include deps/peers | tr '\n' ' ')"
  exit 0
fi

OUT=build-gpu/check
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
die() { echo "gpu-check: $*" >&2; exit 2; }
command -v nvcc >/dev/null || die "no CUDA toolkit (nvcc not on PATH or in /usr/local/cuda/bin)"
command -v cmake >/dev/null || die "cmake is needed"
# NCCL: $NCCL_HOME, the toolkit's, or the Python wheel's.
. scripts/dev/nccl-home.sh
nvidia-smi -L > "$OUT/gpus.txt" 2>&1 || die "no NVIDIA GPU visible: $(cat "$OUT/gpus.txt")"
NGPUS=$(grep -c '^GPU ' "$OUT/gpus.txt")
GEN=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")

. scripts/dev/gpu-check-steps.sh  # step, built, expect_in: bounded steps and their summary

step configure 300 cmake -S . -B build-gpu -G "$GEN" -DCMAKE_BUILD_TYPE=Release -DCCBENCH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=native || { cat "$OUT/configure.log"; exit 1; }
step build 600 cmake --build build-gpu -j "$(nproc)" || { tail -40 "$OUT/build.log"; exit 1; }
grep -E "ccbench: (MPI|CUDA)" "$OUT/configure.log"

CCB=build-gpu/ccbench
built ccbench "$CCB" || { printf '%s\n' "${SUMMARY[@]}"; exit 1; }
if command -v pkg-config >/dev/null && { [ -d /usr/include/gtest ] || [ -d deps/include/gtest ]; }; then
  built gpu_unit_tests build-gpu/tests/ccbench_gpu_tests && step gpu_unit_tests 120 build-gpu/tests/ccbench_gpu_tests
else
  record gpu_unit_tests "FAILED (no GoogleTest: --stage)" 0
fi
step copy 120 $CCB copy -b 1M -e 256M -f 16 -n 10 -J "$OUT/copy.jsonl"

G="--backend nccl -g $NGPUS -T 120"
for coll in all_reduce all_gather reduce_scatter alltoall broadcast reduce gather scatter sendrecv; do
  step "nccl_$coll" 300 $CCB $coll $G -d all -o all -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -J "$OUT/nccl_$coll.jsonl"
done
# alltoallv (grouped ncclSend/ncclRecv) under skewed and MoE traffic (docs/alltoallv.md, docs/moe.md): verified.
step nccl_alltoallv 300 $CCB alltoallv $G --traffic hot:4 -b 8K -e 64M -f 8 -n 5 -J "$OUT/nccl_alltoallv.jsonl"
step nccl_moe 300 $CCB moe $G -d bf16 --traffic moe:experts=16:topk=2:hidden=1024:hot=4 -b 1M -e 64M -f 8 -n 5 \
  -J "$OUT/nccl_moe.jsonl"
expect_in nccl_moe_combine "$OUT/nccl_moe.log" 'moe_combine backend nccl' "the layer's combine run"
step nccl_all_reduce_sweep 300 $CCB all_reduce $G -b 8 -e 1G -f 4 -n 20 -w 5 --stats -J "$OUT/sweep.jsonl"
step nccl_graph 300 $CCB all_reduce $G -G 1 -b 8 -e 64M -f 8 -n 20 -J "$OUT/graph.jsonl"
step nccl_registered 300 $CCB all_gather $G -R 1 -b 1K -e 64M -f 8 -n 20
step nccl_blocking 300 $CCB reduce_scatter $G -z 1 -b 1K -e 64M -f 8 -n 20
# Per-point algorithms and transports from NCCL's tuning log (a '# path
# observed (used by this point; NCCL chose ...)' line per change).
for coll in all_reduce alltoall; do
  step "nccl_algorithms_$coll" 120 $CCB $coll $G --nccl-algorithms -b 8 -e 256M -f 16 -n 5 -J "$OUT/algorithms_$coll.jsonl"
done
if [ "$NGPUS" -ge 2 ]; then
  for coll in pingpong uni_bw bi_bw; do
    step "nccl_$coll" 300 $CCB $coll $G -b 8 -e 64M -f 8 -n 5
  done
  step nccl_path_nvlink 300 $CCB all_reduce $G --path nvlink -b 64M -e 64M -n 5
  step nccl_path_shm 300 $CCB all_reduce $G --path shm -b 64M -e 64M -n 5
  if command -v mpirun >/dev/null && grep -q "MPI 1" "$OUT/configure.log"; then
    step nccl_mpi_ranks 300 mpirun --allow-run-as-root --oversubscribe -np "$NGPUS" $CCB all_reduce --backend nccl \
      -b 8 -e 256M -f 8 -n 10 -T 120
  fi
fi
# The watchdog on the NCCL path: a rank that hangs before the 4 KiB point
# must be reported and its communicator aborted (ncclCommAbort), exit 4.
step nccl_watchdog 60 bash -c "CCBENCH_FAULT=hang:rank=0:bytes=4096 $CCB all_reduce --backend nccl -g 1 -T 3 \
  -b 1K -e 16K -f 2 -n 5 -J $OUT/watchdog.jsonl; rc=\$?; echo exit \$rc; [ \$rc -eq 4 ]"
expect_in nccl_watchdog_abort "$OUT/nccl_watchdog.log" ncclCommAbort "ncclCommAbort in the log"
# Every -G run ends (NCCL >= 2.26: destroy waits for the graphs, which now go first).
step nccl_graph_exit 60 $CCB all_reduce --backend nccl -g 1 -G 10 --timing both -b 1M -e 1M -n 20 -w 2
# The buffer shift's memory: -b 8 -e 8G once held 2^30 argument sets (110 GB).
step nccl_shift_memory 120 bash -c "python3 -c 'import resource,subprocess,sys; rc=subprocess.call(sys.argv[1:]); \
  print(\"maxrss_kib\", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(rc)' \
  $CCB all_reduce --backend nccl -g 1 -b 8 -e 8G -f 1024 -n 4 -w 1 -c 1; rc=\$?; [ \$rc -eq 0 ]"
expect_in nccl_shift_rss "$OUT/nccl_shift_memory.log" '^maxrss_kib [0-9]{1,7}$' "peak host RSS under 10 GB"
# A GPU-side hang (a kernel that never ends ahead of the 1 MiB point): the
# watchdog must end the process within -T + 10 s with the end record written.
step nccl_gpu_hang 60 bash -c "s=\$(date +%s); CCBENCH_FAULT=gpu_hang:rank=0:bytes=1048576 $CCB all_reduce --backend nccl \
  -g 1 -T 3 -b 64K -e 4M -f 4 -n 5 -J $OUT/gpu_hang.jsonl; rc=\$?; t=\$(( \$(date +%s) - s )); echo exit \$rc after \${t} s; \
  [ \$rc -eq 4 ] && [ \$t -le 16 ] && grep -q '\"status\":\"failed: timeout' $OUT/gpu_hang.jsonl"
# Heartbeats come from completions: a long -n whose queued work outlasts -T
# must not time out. 8 GiB all_reduces (milliseconds each), 1500 of them,
# -T 1: the host enqueues far ahead of the GPU, so heartbeats from enqueues
# would stop seconds before the queue drains.
step nccl_long_n 90 $CCB all_reduce --backend nccl -g 1 -T 1 -b 8G -e 8G -n 1500 -w 0 -c 0 --timing pipelined
# Issue 54 on a GPU: the binary starts on an older NCCL under immediate binding;
# a NCCL_DEBUG=WARN of the user is left alone (no log file); NCCL's
# initialisation is bounded (-T: CCBENCH_INIT_TIMEOUT) with exit 4; a -G run
# with -T below one launch's time does not time out (n x T per launch).
step nccl_old_library 60 tests/nccl_old_library.sh "$CCB" cc
step nccl_user_debug 60 bash -c "rm -rf $OUT/nd; NCCL_DEBUG=WARN TMPDIR=$OUT/nd $CCB all_reduce --backend nccl -g 1 \
  -b 1M -e 1M -n 5 && [ ! -d $OUT/nd/ccbench-nccl-\$(id -u) ]"
step nccl_init_bound 60 bash -c "CCBENCH_INIT_TIMEOUT=3 CCBENCH_FAULT=init_hang:rank=0 $CCB all_reduce --backend nccl \
  -g 1 -T 1 -b 1M -e 1M -n 5; rc=\$?; echo exit \$rc; [ \$rc -eq 4 ]"
step nccl_graph_bound 120 $CCB all_reduce --backend nccl -g 1 -G 2 -T 1 -b 4G -e 4G -n 40 -w 1 -c 0 --timing pipelined
# nccl-tests' flags on the NCCL path (issue 68): -I 1 times each iteration
# with CUDA events, -C 1 the enqueue, -u 3 misaligns every buffer; the
# document must carry the per-iteration blocks and every result be right.
step nccl_tests_flags 60 bash -c "$CCB all_reduce --backend nccl -g 1 -b 1K -e 16M -f 16 -n 10 -I 1 -K 1 -C 1 -u 3 \
  -J $OUT/flags.json && python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); r=d['results']; \
  assert r and all(len(x['out_of_place_per_iter']['times_us']) == 10 and x['out_of_place']['nwrong'] == 0 \
  and 'cpu_time' in x['in_place'] for x in r), r; print('per-iteration blocks:', len(r))\" $OUT/flags.json"
# -R 2 (symmetric windows) and -x 1 (CTA policy) need NCCL 2.27: on an older
# library the run must refuse in one line naming the version (exit 2).
step nccl_symmetric 60 bash -c "$CCB all_reduce --backend nccl -g 1 -b 1K -e 64M -f 64 -n 5 -R 2 -x 1; rc=\$?; \
  echo exit \$rc; [ \$rc -eq 0 ] || { [ \$rc -eq 2 ] && echo 'refused: the NCCL here is older than 2.27'; }"
# ccbench accept with the NCCL backend on this node's GPUs (one process).
# Storage -> GPU (ccbench io): pageable, pinned and device destinations side by side.
# O_DIRECT needs a real filesystem: $OUT is on the checkout's disk; a tmpfs drops --direct.
mkdir -p "$OUT/io-data"
direct=--direct
[ "$(stat -f -c %T "$OUT")" = tmpfs ] && direct=""
for mem in pageable pinned device; do
  step "io_$mem" 60 $CCB io "$OUT/io-data" -p seq_read,rand_read,dataset -b 64K -e 4M -f 64 --file-size 256M \
    --files 64 $direct --qd 8 --memory $mem -J "$OUT/io_$mem.jsonl"
done
step accept_nccl 120 $CCB accept tests/fixtures/accept/gpu-one-node.yaml --out "$OUT/accept" --color never
built bench_gpu build-gpu/bench/bench_gpu && step bench_gpu 60 build-gpu/bench/bench_gpu

expect_in sweep_avg_busbw "$OUT/nccl_all_reduce_sweep.log" 'Avg bus bandwidth' "the sweep's average busbw"
expect_in sweep_verified "$OUT/nccl_all_reduce_sweep.log" 'Out of bounds values : 0 OK' "a verified sweep"
echo
echo "== gpu-check summary ($NGPUS GPU(s): $(head -1 "$OUT/gpus.txt"), ${SECONDS} s of a ${BUDGET} s budget)"
printf '%s\n' "${SUMMARY[@]}"
echo "-- all_reduce sweep (largest sizes):"
grep -v '^#' "$OUT/nccl_all_reduce_sweep.log" | tail -4
grep 'Avg bus bandwidth' "$OUT/nccl_all_reduce_sweep.log"
echo "-- copy tests at the largest size:"
grep -A4 '^# copy_' "$OUT/copy.log" | head -40
[ -f "$OUT/bench_gpu.log" ] && { echo "-- bench_gpu:"; cat "$OUT/bench_gpu.log"; }
for mem in pageable pinned device; do
  [ -f "$OUT/io_$mem.log" ] && { echo "-- io to $mem memory:"; grep -E "^ +(seq_read|rand_read|dataset) " "$OUT/io_$mem.log"; }
done
[ -f "$OUT/accept/verdict.md" ] && { echo "-- accept (NCCL, this node):"; grep -E "^## Verdict|^\| gpu-all-reduce|^\| 1 " "$OUT/accept/verdict.md"; }
grep -h 'path observed' "$OUT"/nccl_*.log | sed 's/^#.* path observed/path observed/' | sort | uniq -c | head
! printf '%s\n' "${SUMMARY[@]}" | grep -q FAILED

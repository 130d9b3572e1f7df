# shellcheck shell=bash
# Sourced by scripts/dev/gpu-check.sh after the build: the steps, in the order
# of what a GPU can prove that this machine cannot (a step that finds the
# budget spent is one FAILED line). Each step's bound is its worst case; on
# one H200 the whole took about 3 minutes (docs/gpu.md). Needs CCB, NGPUS,
# LOGS, BUILD, HAVE_MPI, HAVE_YAML, HAVE_URING.
G="--backend nccl -g $NGPUS -T 60"
OK_RE='^# Out of bounds values : 0 OK'
verified() {  # verified NAME: the step's log shows every checked value right
  expect_in "$1_verified" "$LOGS/$1.log" "$OK_RE" "'Out of bounds values : 0 OK'"
}

# GPU unit tests: device kernels against the host kernels; a test that cannot
# find the GPU fails (CCBENCH_REQUIRE_GPU=1) instead of skipping.
if [ -x "$BUILD/tests/ccbench_gpu_tests" ] || [ "${GPU_CHECK_REHEARSE:-0}" = 1 ]; then
  step gpu_unit_tests 60 env CCBENCH_REQUIRE_GPU=1 "$BUILD/tests/ccbench_gpu_tests"
else
  skip gpu_unit_tests "no GoogleTest (stage it: --stage)"
fi

# Copy bandwidth; pinned host->GPU against 60% of the PCIe link nvidia-smi
# reports (the H200 reached 55.2 of 63 GB/s, 88%).
step copy 60 "$CCB" copy -b 1M -e 256M -f 16 -n 10 -J "$LOGS/copy.jsonl"
pcie=$(nvidia-smi --query-gpu=pcie.link.gen.max,pcie.link.width.max --format=csv,noheader,nounits 2>/dev/null | head -1)
if [ -n "$pcie" ] && [ "${GPU_CHECK_REHEARSE:-0}" != 1 ]; then
  limit=$(awk -F', *' '{ lane["1"]=0.25; lane["2"]=0.5; lane["3"]=0.985; lane["4"]=1.969; lane["5"]=3.938; lane["6"]=7.877
                         printf "%.1f", lane[$1] * $2 }' <<<"$pcie")
  h2d=$(python3 -c 'import json,sys
best = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("collective") == "copy_h2d_ce_pinned" and r.get("out_of_place"):
        best = max(best, r["out_of_place"]["algbw_gbps"])
print("%.1f" % best if best else "")' "$LOGS/copy.jsonl" 2>/dev/null)
  floor copy_h2d_pinned_floor "pinned H2D GB/s (PCIe gen/width $pcie: $limit GB/s)" "$h2d" \
    "$(awk -v l="$limit" 'BEGIN { printf "%.1f", 0.6 * l }')" GB/s
else
  skip copy_h2d_pinned_floor "nvidia-smi reports no PCIe link"
fi

# Every collective, dtype and op, checked, on every local GPU in one process.
for coll in all_reduce all_gather reduce_scatter alltoall broadcast reduce gather scatter sendrecv; do
  step "nccl_$coll" 20 "$CCB" "$coll" $G -d all -o all -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -J "$LOGS/nccl_$coll.jsonl" &&
    verified "nccl_$coll"
done
step nccl_alltoallv 20 "$CCB" alltoallv $G --traffic hot:4 -b 8K -e 64M -f 8 -n 5 -J "$LOGS/nccl_alltoallv.jsonl" &&
  verified nccl_alltoallv
step nccl_moe 30 "$CCB" moe $G -d bf16 --traffic moe:experts=16:topk=2:hidden=1024:hot=4 -b 1M -e 64M -f 8 -n 5 \
  -J "$LOGS/nccl_moe.jsonl" && expect_in nccl_moe_combine "$LOGS/nccl_moe.log" 'moe_combine backend nccl' "the combine run"
step nccl_all_reduce_sweep 30 "$CCB" all_reduce $G -b 8 -e 1G -f 4 -n 20 -w 5 --stats -J "$LOGS/sweep.jsonl" &&
  verified nccl_all_reduce_sweep &&
  expect_in sweep_avg_busbw "$LOGS/nccl_all_reduce_sweep.log" '^# Avg bus bandwidth +: [0-9.]*[1-9]' "a non-zero average"
# -G: the check verifies the launched graph; -R 1 registered, -z 1 blocking.
step nccl_graph 30 "$CCB" all_reduce $G -G 1 --timing both -b 8 -e 64M -f 8 -n 20 -J "$LOGS/graph.jsonl" &&
  verified nccl_graph
step nccl_registered 20 "$CCB" all_gather $G -R 1 -b 1K -e 64M -f 8 -n 20 && verified nccl_registered
step nccl_blocking 20 "$CCB" reduce_scatter $G -z 1 -b 1K -e 64M -f 8 -n 20 && verified nccl_blocking
# NCCL's tuning log: each point names the algorithm NCCL chose.
for coll in all_reduce alltoall; do
  step "nccl_algorithms_$coll" 20 "$CCB" $coll $G --nccl-algorithms -b 8 -e 256M -f 16 -n 5 \
    -J "$LOGS/algorithms_$coll.jsonl" &&
    expect_in "nccl_algorithms_${coll}_named" "$LOGS/nccl_algorithms_$coll.log" 'path observed' "a path observed note"
done
expect_in nccl_algorithms_chosen "$LOGS/nccl_algorithms_all_reduce.log" 'NCCL chose [A-Z_]+/' "an algorithm NCCL chose"

# Two or more GPUs: rings and trees, point-to-point, the forced paths, MPI ranks.
if [ "$NGPUS" -ge 2 ]; then
  for coll in pingpong uni_bw bi_bw; do
    step "nccl_$coll" 20 "$CCB" $coll $G -b 8 -e 64M -f 8 -n 5 && verified "nccl_$coll"
  done
  step nccl_path_nvlink 20 "$CCB" all_reduce $G --path nvlink -b 64M -e 64M -n 5
  step nccl_path_shm 20 "$CCB" all_reduce $G --path shm -b 64M -e 64M -n 5
  step nccl_bitwise_all_gpus 30 "$CCB" all_reduce $G --bitwise 2 -b 1M -e 1M -n 3 && verified nccl_bitwise_all_gpus
else
  for s in nccl_pingpong nccl_uni_bw nccl_bi_bw nccl_path_nvlink nccl_path_shm nccl_bitwise_all_gpus; do
    skip "$s" "1 GPU"
  done
fi
if [ "$NGPUS" -ge 2 ] && [ "$HAVE_MPI" = 1 ] && command -v mpirun >/dev/null; then
  step nccl_mpi_ranks 40 mpirun --allow-run-as-root --oversubscribe -np "$NGPUS" "$CCB" all_reduce --backend nccl \
    -b 8 -e 256M -f 8 -n 10 -T 60 && verified nccl_mpi_ranks
else
  skip nccl_mpi_ranks "$([ "$NGPUS" -ge 2 ] && echo "no MPI in this build" || echo "1 GPU")"
fi

# Bounds: the watchdog's abort (exit 4 with the abort done, not merely named),
# -G exits, nccl-tests' flags, NCCL >= 2.27's windows, bounded init, GPU hangs.
step nccl_watchdog 30 bash -c "CCBENCH_FAULT=hang:rank=0:bytes=4096 $CCB all_reduce --backend nccl -g 1 -T 3 \
  -b 1K -e 16K -f 2 -n 5 -J $LOGS/watchdog.jsonl; rc=\$?; echo exit \$rc; [ \$rc -eq 4 ]" &&
  expect_in nccl_watchdog_abort "$LOGS/nccl_watchdog.log" 'ncclCommAbort on [1-9][0-9]* communicator' \
    "'ncclCommAbort on N communicator(s)'"
step nccl_graph_exit 30 "$CCB" all_reduce --backend nccl -g 1 -G 10 --timing both -b 1M -e 1M -n 20 -w 2
step nccl_tests_flags 30 bash -c "$CCB all_reduce --backend nccl -g 1 -b 1K -e 16M -f 16 -n 10 -I 1 -K 1 -C 1 -u 3 \
  -J $LOGS/flags.json && python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); r=d['results']; \
  assert r and all(len(x['out_of_place_per_iter']['times_us']) == 10 and x['out_of_place']['nwrong'] == 0 \
  and 'cpu_time' in x['in_place'] for x in r), r; print('per-iteration blocks:', len(r))\" $LOGS/flags.json"
step nccl_symmetric 30 bash -c "$CCB all_reduce --backend nccl -g 1 -b 1K -e 64M -f 64 -n 5 -R 2 -x 1; rc=\$?; \
  echo exit \$rc; [ \$rc -eq 0 ] || { [ \$rc -eq 2 ] && echo 'refused: the NCCL here is older than 2.27'; }"
step nccl_init_bound 30 bash -c "CCBENCH_INIT_TIMEOUT=3 CCBENCH_FAULT=init_hang:rank=0 $CCB all_reduce \
  --backend nccl -g 1 -T 1 -b 1M -e 1M -n 5; rc=\$?; echo exit \$rc; [ \$rc -eq 4 ]"
step nccl_gpu_hang 30 bash -c "s=\$(date +%s); CCBENCH_FAULT=gpu_hang:rank=0:bytes=1048576 $CCB all_reduce \
  --backend nccl -g 1 -T 3 -b 64K -e 4M -f 4 -n 5 -J $LOGS/gpu_hang.jsonl; rc=\$?; t=\$(( \$(date +%s) - s )); \
  echo exit \$rc after \${t} s; [ \$rc -eq 4 ] && [ \$t -le 16 ] && grep -q '\"status\":\"failed: timeout' \
  $LOGS/gpu_hang.jsonl"
step nccl_user_debug 20 bash -c "rm -rf $LOGS/nd; NCCL_DEBUG=WARN TMPDIR=$LOGS/nd $CCB all_reduce --backend nccl \
  -g 1 -b 1M -e 1M -n 5 && [ ! -d $LOGS/nd/ccbench-nccl-\$(id -u) ]"
if command -v cc >/dev/null && command -v nm >/dev/null; then
  step nccl_old_library 20 tests/nccl_old_library.sh "$CCB" cc
else
  skip nccl_old_library "no cc or nm on this machine"
fi
step nccl_shift_memory 40 bash -c "python3 -c 'import resource,subprocess,sys; rc=subprocess.call(sys.argv[1:]); \
  print(\"maxrss_kib\", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(rc)' \
  $CCB all_reduce --backend nccl -g 1 -b 8 -e 8G -f 1024 -n 4 -w 1 -c 1" &&
  expect_in nccl_shift_rss "$LOGS/nccl_shift_memory.log" '^maxrss_kib [0-9]{1,7}$' "peak host RSS under 10 GB"
step nccl_long_n 60 "$CCB" all_reduce --backend nccl -g 1 -T 1 -b 8G -e 8G -n 1500 -w 0 -c 0 --timing pipelined
step nccl_graph_bound 40 "$CCB" all_reduce --backend nccl -g 1 -G 2 -T 1 -b 4G -e 4G -n 40 -w 1 -c 0 \
  --timing pipelined

# One short sweep of every collective under compute-sanitizer's memcheck.
if command -v compute-sanitizer >/dev/null; then
  step nccl_memcheck 120 bash -c "for c in all_reduce all_gather reduce_scatter alltoall alltoallv broadcast reduce \
    gather scatter sendrecv; do echo \"== \$c\"; compute-sanitizer --tool memcheck --error-exitcode 99 \
    $CCB \$c --backend nccl -g 1 -b 8 -e 64K -f 64 -n 1 -w 0 -c 1 -T 60 || exit \$?; done"
else
  skip nccl_memcheck "no compute-sanitizer in the CUDA toolkit here"
fi

# Storage -> pageable, pinned and GPU memory (ccbench io). O_DIRECT needs a
# real filesystem: the build folder's disk; a tmpfs drops --direct.
mkdir -p "$LOGS/io-data"
io_args=(--engine psync)
[ "$HAVE_URING" = 1 ] && io_args=(--engine io_uring --qd 8)
[ "$(stat -f -c %T "$LOGS")" = tmpfs ] || io_args+=(--direct)
for mem in pageable pinned device; do
  step "io_$mem" 30 "$CCB" io "$LOGS/io-data" -p seq_read,rand_read,dataset -b 64K -e 4M -f 64 --file-size 64M \
    --files 16 "${io_args[@]}" --memory $mem -J "$LOGS/io_$mem.jsonl"
done
rm -rf "$LOGS/io-data"
if [ "$HAVE_YAML" = 1 ]; then
  step accept_nccl 60 "$CCB" accept tests/fixtures/accept/gpu-one-node.yaml --out "$LOGS/accept" --color never
else
  skip accept_nccl "this build has no yaml-cpp (stage it: --stage)"
fi
built bench_gpu "$BUILD/bench/bench_gpu" && step bench_gpu 60 "$BUILD/bench/bench_gpu" --enforce

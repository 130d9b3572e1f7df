#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build (clang, no CUDA) in
# build-sanitize/, with the libFuzzer targets:
#  1. runs the ctest suite under the sanitizers except what
#     scripts/dev/sanitize-skip.txt lists, with why (timing, scale, peak RSS,
#     sources: scripts/test.sh's main stage runs those); leak checking is off
#     (Open MPI keeps its allocations until exit);
#  2. runs every fuzzer, seeded with the importer fixtures: 10,000 inputs from
#     a fixed seed (FUZZ_RUNS), or FUZZ_SECONDS each for a longer search.
# --build-only: configure and build, nothing run (scripts/test.sh builds first,
# to choose its main stage's tests from both builds).
# Installs clang and its runtime when missing. Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/../.."
CCBENCH_EXTRA_PACKAGES="clang libclang-rt-14-dev ${CCBENCH_EXTRA_PACKAGES:-}" scripts/setup.sh --packages-only
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -O1 with line tables: what ASan's authors suggest (stack traces with file
# and line), and a shorter build than -O2 -g.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_FLAGS="$san -O1 -gline-tables-only -fsanitize=fuzzer-no-link" -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DCCBENCH_CUDA=OFF -DCCBENCH_BENCH=OFF -DCCBENCH_FUZZ=ON -DCCBENCH_WERROR=ON >/dev/null
cmake --build build-sanitize -j "$(nproc)"
[ "${1:-}" = --build-only ] && exit 0
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export CCBENCH_HOSTILE_VMEM_KB=unlimited  # ASan reserves terabytes of shadow address space
skip=$(sed 's/#.*//; s/[[:space:]]*$//; /^$/d' scripts/dev/sanitize-skip.txt | paste -sd'|')
(cd build-sanitize && ctest --output-on-failure -j "$(nproc)" --timeout 900 -E "$skip")

# CI: a fixed seed and run count. The seeds come in a sorted list (a corpus
# folder is read in directory order, which differs between file systems),
# with no timed corpus reloads and, where setarch -R is allowed, no address
# randomisation (libFuzzer learns from compared values, pointers included).
# That narrows, but cannot remove, the difference between two machines' runs
# (a build in another folder lays its code out differently), so a finding
# prints its input in base64 for the log: `base64 -d > crash; fuzz_X crash`
# replays it anywhere. A longer search: FUZZ_SECONDS=N (random seed, N s each).
if [ -n "${FUZZ_SECONDS:-}" ]; then budget=(-max_total_time="$FUZZ_SECONDS"); what="$FUZZ_SECONDS s"
else budget=(-runs="${FUZZ_RUNS:-10000}" -seed=1); what="${FUZZ_RUNS:-10000} runs, seed 1"; fi
fixed=(); if setarch -R true 2>/dev/null; then fixed=(setarch -R); fi
findings=build-sanitize/fuzz-findings
mkdir -p "$findings"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
find tests/fixtures/compare tests/fixtures/accept tests/fixtures/model examples/acceptance -type f | LC_ALL=C sort |
  paste -sd, >"$corpus/seeds"
# One fuzzer per core at a time (each is one process, one thread); the
# results are read in name order once all have ended.
fuzz_one() {
  local name=$1
  mkdir -p "$corpus/$name"  # what the run adds; starts empty
  rm -f "$findings/$name"-*  # an earlier run's findings
  local rc=0
  "${fixed[@]}" "build-sanitize/tests/$name" "${budget[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -reload=0 -seed_inputs=@"$corpus/seeds" \
    -artifact_prefix="$findings/$name-" "$corpus/$name" >"$findings/$name.log" 2>&1 || rc=$?
  echo $rc >"$findings/$name.rc"
}
names=()
for f in build-sanitize/tests/fuzz_*; do
  names+=("$(basename "$f")")
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  fuzz_one "${names[-1]}" &
done
wait
failed=0
for name in "${names[@]}"; do
  rc=$(cat "$findings/$name.rc")
  echo "== $name, $what: $(grep -o 'number_of_executed_units: [0-9]*' "$findings/$name.log" | tail -1), exit $rc"
  if [ "$rc" != 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error" "$findings/$name.log" | head -5
    for input in "$findings/$name"-*; do
      [ -f "$input" ] || continue
      echo "sanitize: the input, $(stat -c %s "$input") bytes, base64: $(head -c 16384 "$input" | base64 -w0)"
    done
    echo "sanitize: $name found a problem; the input is in $findings/"
    failed=1
  fi
done
[ $failed = 0 ] || exit 1
echo "sanitize: clean"

#!/usr/bin/env bash
# The GPU unit tests under CCBENCH_REQUIRE_GPU=1 (as scripts/dev/gpu-check.sh
# runs them) cannot pass by skipping: without a GPU every test fails naming
# the variable; with one they pass.
#   gpu_tests_required.sh CCBENCH_GPU_TESTS
set -uo pipefail
out=$(CCBENCH_REQUIRE_GPU=1 "$1" 2>&1)
rc=$?
if nvidia-smi -L >/dev/null 2>&1; then
  [ $rc -eq 0 ] || { echo "$out" | tail -20; echo "FAIL: the GPU unit tests failed on a GPU"; exit 1; }
else
  [ $rc -ne 0 ] || { echo "FAIL: without a GPU the required tests passed"; exit 1; }
  grep -q '(CCBENCH_REQUIRE_GPU=1)' <<<"$out" || { echo "FAIL: no line naming CCBENCH_REQUIRE_GPU"; exit 1; }
  ! grep -q '^\[  SKIPPED \]' <<<"$out" || { echo "FAIL: a test skipped though a GPU was required"; exit 1; }
  # and without the variable they skip, as on any machine without a GPU
  "$1" > /dev/null 2>&1 || { echo "FAIL: without CCBENCH_REQUIRE_GPU the tests did not skip"; exit 1; }
fi
echo PASS

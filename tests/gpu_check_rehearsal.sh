#!/usr/bin/env bash
# What scripts/dev/gpu-check.sh --rehearse left in its output folder, checked
# (scripts/test.sh runs it after the rehearsal): the files a device call
# brings back (at most 8, each under 16 MiB), a summary with the preflight,
# the bare machine's view (staged libraries, no MPI or pkg-config), configure
# and build ok, every step of the plan listed once and none failed, a tarball
# holding the logs; and the budget arithmetic: the script's budget plus the
# kill delay, packing and a minute to spare within the timeout_s docs/gpu.md
# gives the call.
#   gpu_check_rehearsal.sh OUTDIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
fail() { echo "FAIL: $*"; exit 1; }
summary=$out/summary.txt
[ -f "$summary" ] || fail "no summary.txt in $out"
files=$(find "$out" -type f | wc -l)
[ "$files" -le 8 ] || fail "$files files in $out: a device call brings back 8"
big=$(find "$out" -type f -size +16M)
[ -z "$big" ] || fail "over 16 MiB, not brought back: $big"
grep -q "^== gpu-check preflight .*rehearsal" "$summary" || fail "no preflight line"
grep -Eq "^libraries: fmt staged, nlohmann-json staged, CLI11 staged, GoogleTest staged, yaml-cpp staged, liburing staged" \
  "$summary" || fail "the rehearsal did not build from deps/: $(grep '^libraries' "$summary")"
grep -q "mpirun(missing) pkg-config(missing)" "$summary" || fail "MPI or pkg-config visible to the rehearsal"
for s in preflight configure build; do
  grep -Eq "^$s +ok" "$summary" || fail "$s did not pass: $(grep "^$s " "$summary")"
done
! grep -q FAILED "$summary" || fail "a FAILED line: $(grep FAILED "$summary")"
# Every step the plan names (step/skip NAME) appears once, loops expanded by the script.
listed=$(grep -Ec "^[a-z0-9_]+ +(ok|not run \(rehearsal; bound [0-9]+ s\)|skipped: )" "$summary")
[ "$listed" -ge 45 ] || fail "only $listed steps listed"
dups=$(awk '/^[a-z0-9_]+ +(ok|not run|skipped)/ {print $1}' "$summary" | sort | uniq -d)
[ -z "$dups" ] || fail "steps listed twice: $dups"
tar -tzf "$out/check.tar.gz" > "$out.list" || fail "check.tar.gz is not a gzip tarball"
for f in check/preflight.txt check/configure.log check/build.log; do
  grep -qx "$f" "$out.list" || fail "$f not in check.tar.gz"
done
rm -f "$out.list"
budget=$(sed -n 's/^BUDGET=\${GPU_CHECK_BUDGET:-\([0-9]*\)}$/\1/p' "$root/scripts/dev/gpu-check-steps.sh")
kill_after=$(sed -n 's/.*STEP_KILL_AFTER:-\([0-9]*\)}.*/\1/p' "$root/scripts/dev/gpu-check-steps.sh" | head -1)
timeout_s=$(sed -n 's/.*`timeout_s` \([0-9]*\).*/\1/p' "$root/docs/gpu.md" | head -1)
[ -n "$budget" ] && [ -n "$kill_after" ] && [ -n "$timeout_s" ] || fail "budget, kill delay or timeout_s not found"
[ $((budget + kill_after + 30 + 60)) -le "$timeout_s" ] ||
  fail "budget $budget s + kill $kill_after s + packing 30 s + 60 s spare exceed timeout_s $timeout_s"
echo "rehearsal: $listed steps, $files files; budget $budget s within timeout_s $timeout_s"
echo PASS

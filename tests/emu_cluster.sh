#!/usr/bin/env bash
# Tests on the emulated cluster (scripts/emu-cluster.sh): namespace hosts with
# real TCP between them. Exit 77 (ctest: skipped, reason on stderr) where
# namespaces cannot be made.
#   emu_cluster.sh throttled CCBENCH   4 hosts at 400 Mbit/s, emu-h3 at 50:
#                                      accept rejects and names exactly emu-h3
#   emu_cluster.sh clean CCBENCH       the same 4 hosts unthrottled: accepted
#   emu_cluster.sh bisect CCBENCH      8 hosts at 400 Mbit/s, 1 or 2 of them (at
#                                      random, printed) at 50: bisect names exactly
#                                      them; with EMU_BISECT_VS_PAIRWISE=1 pairwise on
#                                      the same cluster, both wall times side by side
#   emu_cluster.sh profiles CCBENCH    a "bare-metal" (unshaped, MTU 9000) and a
#                                      "cloud" (300 Mbit/s, MTU 1400) 2-host
#                                      sweep, compared by ccbench compare
#   emu_cluster.sh model CCBENCH       scripts/validate/model-validate.sh --algorithm 4
#                                      (ring pinned): fit on 2, 3, 4 hosts,
#                                      predict and measure 6 and 8; the error and
#                                      coverage targets must hold (one re-test of
#                                      the measurement allowed). The rules mode's
#                                      recorded runs are checked by model.cli: live,
#                                      its 8-host runs on a loaded 2-core machine
#                                      missed (docs/model.md)
#   emu_cluster.sh workload CCBENCH    scripts/validate/workload-validate.sh at 4 and 6 hosts:
#                                      the training step predicted from curves vs
#                                      its replay (the dp phase within 20%; two re-tests)
#   emu_cluster.sh history CCBENCH     scripts/validate/history-validate.sh: 12 runs of every
#                                      link, emu-h3 throttled from run 7: history
#                                      changes flags exactly its links, at run 7
#   emu_cluster.sh stragglers CCBENCH  5 hosts at 400 Mbit/s, emu-h3 at 50, all_reduce
#                                      --stragglers: the link probe names exactly
#                                      emu-h3; on the clean cluster no slow link
#   emu_cluster.sh limits CCBENCH      a 2-host sweep at 200 and at 400 Mbit/s, each told its rate
#                                      (--link-rate): the limit of busbw is the rate, the share of
#                                      it a plausible one and the same at both rates within 2x
#   emu_cluster.sh tags CCBENCH        two clusters at once, the second asked for the first's
#                                      id: both finish, each on its own namespaces; SIGHUP
#                                      to a cluster ends its mpirun and removes what it made
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
emu="$here/../scripts/emu-cluster.sh"
case=$1 ccbench=$2
spec="$here/fixtures/accept/emu-pairwise.yaml"
out=$(mktemp -d /tmp/ccbench-emu.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

run_emu() {  # run_emu LOG EMU-ARGS... -- MPIRUN-ARGS...: returns mpirun's exit code; 77 passes through
  local log=$1; shift
  timeout 600 "$emu" "$@" > "$log" 2>&1
  local rc=$?
  if [ $rc = 77 ]; then grep SKIP "$log" >&2; exit 77; fi
  return $rc
}

case "$case" in
  limits)
    for rate in 200mbit 400mbit; do
      run_emu "$out/$rate" -n 2 --rate $rate -- -np 2 "$ccbench" all_reduce -b 1M -e 2M -n 5 -w 1 \
        --link-rate $rate -J "$out/$rate.jsonl"
      rc=$?
      cat "$out/$rate"
      [ $rc = 0 ] || fail "the sweep at $rate failed ($rc)"
      grep -q "^# network: the run's --link-rate $rate: 1 x " "$out/$rate" || fail "the table does not say the rate's source"
    done
    python3 - "$out" <<'PY' || fail "limits and shares (above)"
import json, sys
shares = {}
for rate, gbps in (("200mbit", 0.025), ("400mbit", 0.05)):
    end = [json.loads(l) for l in open(f"{sys.argv[1]}/{rate}.jsonl")][-1]
    series = end["expectations"]["series"]
    assert series, f"{rate}: no expectations in the end record"
    for s in series:
        assert abs(s["limit_gbps"] - gbps) < 1e-9, f"{rate}: limit {s['limit_gbps']}, expected {gbps}"
        assert 0.1 <= s["share_of_limit"] <= 1.0, f"{rate}: {s['series']} at {s['share_of_limit']:.0%} of the limit"
        assert s["above_limit"] is None, f"{rate}: flagged above the limit"
    shares[rate] = min(s["share_of_limit"] for s in series)
    print(f"{rate}: limit {gbps} GB/s, shares", ", ".join(f"{s['share_of_limit']:.0%}" for s in series))
ratio = shares["400mbit"] / shares["200mbit"]
assert 0.5 <= ratio <= 2, f"the share moved {ratio:.2f}x between the rates"
PY
    ;;
  tags)
    # PID mod 200 made two clusters share names, and the second's cleanup
    # removed the first's namespaces mid-run (issue 52).
    EMU_ID_HINT=77 timeout 120 "$emu" -n 2 -- -np 2 sh -c 'sleep 8; hostname' > "$out/a.log" 2>&1 &
    first=$!
    for _ in $(seq 150); do grep -q 'namespace cce[0-9]*h2' "$out/a.log" && break; sleep 0.1; done
    if ! grep -q 'namespace cce[0-9]*h2' "$out/a.log"; then
      wait $first
      [ $? = 77 ] && { grep SKIP "$out/a.log" >&2; exit 77; }
      cat "$out/a.log"; fail "the first cluster did not start"
    fi
    tag=$(grep -o 'namespace cce[0-9]*h1' "$out/a.log" | head -1 | sed 's/namespace //; s/h1$//')
    EMU_ID_HINT=${tag#cce} run_emu "$out/b.log" -n 2 -- -np 2 hostname || { cat "$out/b.log"; fail "the second cluster failed"; }
    wait $first || { cat "$out/a.log"; fail "the first cluster failed beside the second"; }
    grep -q 'emu-h2' "$out/a.log" || { cat "$out/a.log"; fail "the first cluster's ranks"; }
    grep -q "namespace ${tag}h1" "$out/b.log" && fail "the second cluster took the first one's id ($tag)"
    # SIGHUP: mpirun ended, the namespaces and the id removed, exit 129.
    timeout 120 "$emu" -n 2 -- -np 2 sleep 60 > "$out/c.log" 2>&1 &
    cluster=$!
    for _ in $(seq 100); do pgrep -P $cluster mpirun > /dev/null && break; sleep 0.1; done
    tag=$(grep -o 'namespace cce[0-9]*h1' "$out/c.log" | head -1 | sed 's/namespace //; s/h1$//')
    [ -n "$tag" ] || { cat "$out/c.log"; fail "the third cluster did not start"; }
    kill -HUP $cluster
    wait $cluster
    rc=$?
    [ $rc = 129 ] || { cat "$out/c.log"; fail "SIGHUP: exit $rc, expected 129"; }
    pgrep -f "mpirun.*sleep 60" > /dev/null && fail "SIGHUP left mpirun running"
    [ -n "$tag" ] && ip netns list | grep -q "^${tag}h" && fail "SIGHUP left ${tag}'s namespaces"
    [ -n "$tag" ] && [ -e "/run/ccbench-emu/${tag#cce}" ] && fail "SIGHUP left ${tag}'s id claimed"
    ;;
  model)
    "$here/../scripts/validate/model-validate.sh" --ccbench "$ccbench" --algorithm 4 --retest
    rc=$?
    [ $rc = 77 ] && exit 77
    [ $rc = 0 ] || fail "model check: targets missed (exit $rc)"
    ;;
  workload)
    # The training-step prediction beyond the measured scale against its
    # replay: dp's curves fitted at 2-4 hosts (the scale model, libnbc's
    # rules), the tp x dp step predicted and replayed at 6 and 8 hosts, the
    # dp phase (the one the links dominate) within 20% and inside its
    # interval in 70% of the steps. The whole exposed communication is
    # printed, not judged: the 12-16 replay ranks share 2 cores, and their
    # waits for a CPU are in no curve (docs/workload.md "Validation"). Two
    # re-tests on a miss.
    for try in 1 2 3; do
      "$here/../scripts/validate/workload-validate.sh" --ccbench "$ccbench" --workload "$here/fixtures/workload/emu-2d.yaml" \
        --fit-hosts 2,3,4 --hosts 6,8 --measured "" --dim dp --max-error 20 --steps 8
      rc=$?
      [ $rc = 77 ] && exit 77
      [ $rc = 0 ] && break
    done
    [ $rc = 0 ] || fail "workload prediction: the dp phase missed (exit $rc)"
    ;;
  history)
    # 12 runs of every link, emu-h3's throttled from run 7: exactly its links
    # flagged, at run 7 (scripts/validate/history-validate.sh). One re-test on a miss.
    for try in 1 2; do
      "$here/../scripts/validate/history-validate.sh" --ccbench "$ccbench"
      rc=$?
      [ $rc = 77 ] && exit 77
      [ $rc = 0 ] && break
    done
    [ $rc = 0 ] || fail "history: change points on the emulated cluster (exit $rc)"
    ;;
  stragglers)
    run_emu "$out/slow" -n 5 --rate 400mbit --throttle 3=50mbit -- -np 5 "$ccbench" all_reduce -b 64K -e 64K -n 5 -w 1 \
      --stragglers -J "$out/slow.jsonl"
    rc=$?
    cat "$out/slow"
    [ $rc = 0 ] || fail "the sweep failed ($rc)"
    grep -q '^#  link probe (2 MiB each way, .*): host emu-h3: both its links slow' "$out/slow" ||
      fail "the link probe did not name emu-h3"
    grep -q '"slow_hosts":\["emu-h3"\]' "$out/slow.jsonl" || fail "the run record's link_probe does not name emu-h3"
    # The clean cluster names nothing; one re-test when it does (a loaded 2-core machine can stall a host).
    for try in 1 2; do
      run_emu "$out/clean" -n 5 --rate 400mbit -- -np 5 "$ccbench" all_reduce -b 64K -e 64K -n 5 -w 1 --stragglers
      rc=$?
      cat "$out/clean"
      [ $rc = 0 ] || fail "the clean sweep failed ($rc)"
      grep -q '^#  link probe (2 MiB each way, .*): no slow link: 5 links of 5 hosts' "$out/clean" && break
      [ $try = 2 ] && fail "the link probe named a slow link on the clean cluster, twice"
    done
    ;;
  throttled)
    run_emu "$out/log" -n 4 --rate 400mbit --throttle 3=50mbit -- -np 4 "$ccbench" accept "$spec" --out "$out/v" --color never
    rc=$?
    cat "$out/log"
    [ $rc = 1 ] || fail "expected exit 1 (rejected), got $rc"
    # The Nodes table: exactly one defective node, emu-h3.
    defective=$(grep '^| emu-h[0-9] | .* | \*\*DEFECTIVE\*\* |' "$out/v/verdict.md")
    [ "$(grep -c . <<<"$defective")" = 1 ] && grep -q '^| emu-h3 |' <<<"$defective" ||
      fail "expected exactly emu-h3 defective, got: $defective"
    grep -q 'emu-h3 is defective' "$out/v/verdict.md" || fail "verdict.md does not name emu-h3"
    # Named by its share of the link's limit (spec link_rate: 400Mbit, docs/expect.md).
    grep -q 'emu-h3 .*= [0-9]*% of the limit, against a bar of 0.01 (20% of it)' "$out/v/verdict.md" ||
      fail "emu-h3's verdict does not say its share of the limit"
    grep -q "^Floor of line [0-9]*: limit 0.05 GB/s: the node's NICs: 0.05 GB/s" "$out/v/verdict.md" ||
      fail "the report does not give the floor's basis"
    grep -q 'Second pass' "$out/v/report.html" && grep -q 'Pair matrix' "$out/v/report.html" ||
      fail "report.html lacks the pair matrix or the second pass"
    grep -q 'class="h[0-4] worse">[0-9.e-]* FAIL' "$out/v/report.html" || fail "the heatmap marks no failing pair"
    ls "$out/v/raw/pairs/"p2-*.jsonl > /dev/null || fail "no raw second-pass results"
    ;;
  clean)
    run_emu "$out/log" -n 4 --rate 400mbit -- -np 4 "$ccbench" accept "$spec" --out "$out/v" --color never
    rc=$?
    cat "$out/log"
    [ $rc = 0 ] || fail "expected exit 0 (accepted), got $rc"
    grep -q '"verdict": "accepted"' "$out/v/verdict.json" || fail "verdict.json does not say accepted"
    # Every node passed, or was cleared after a failure that its re-test took
    # back (noise on a loaded machine: still accepted, no node blamed).
    [ "$(grep -c '"status": "\(pass\|cleared\)"' "$out/v/verdict.json")" = 4 ] || fail "expected 4 passing or cleared nodes"
    ;;
  bisect)
    bad=$(( RANDOM % 8 + 1 )); throttle=(--throttle "$bad=50mbit"); want="emu-h$bad"
    if [ $(( RANDOM % 2 )) = 1 ]; then
      second=$(( (bad + RANDOM % 7) % 8 + 1 )); throttle+=(--throttle "$second=50mbit"); want="$want emu-h$second"
    fi
    want=$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ')
    echo "throttled at random: $want"
    start=$(date +%s%N)
    run_emu "$out/log" -n 8 --rate 400mbit "${throttle[@]}" -- -np 8 "$ccbench" accept "$here/fixtures/accept/emu-bisect.yaml" --out "$out/b" --color never
    rc=$? bisect_s=$(( ($(date +%s%N) - start) / 1000000000 ))
    grep -E 'round|DEFECTIVE' "$out/log"
    [ $rc = 1 ] || { cat "$out/log"; fail "bisect: expected exit 1 (rejected), got $rc"; }
    got=$(grep -oE '^\| emu-h[0-9] \| .* \| \*\*DEFECTIVE\*\* \|' "$out/b/verdict.md" | grep -oE 'emu-h[0-9]' | sort | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "bisect named '$got', the throttled hosts are '$want'"
    grep -q 'The search: every group, round by round' "$out/b/report.html" || fail "report.html does not show the search"
    # Pairwise on the same cluster, for the wall-time comparison in
    # docs/acceptance.md: only with EMU_BISECT_VS_PAIRWISE=1 (a minute of
    # CI's critical path otherwise; the figures are in the docs).
    if [ "${EMU_BISECT_VS_PAIRWISE:-0}" = 1 ]; then
      start=$(date +%s%N)
      run_emu "$out/plog" -n 8 --rate 400mbit "${throttle[@]}" -- -np 8 "$ccbench" accept "$spec" --out "$out/p" --color never
      rc=$? pairwise_s=$(( ($(date +%s%N) - start) / 1000000000 ))
      [ $rc = 1 ] || { cat "$out/plog"; fail "pairwise: expected exit 1 (rejected), got $rc"; }
      pgot=$(grep -oE '^\| emu-h[0-9] \| .* \| \*\*DEFECTIVE\*\* \|' "$out/p/verdict.md" | grep -oE 'emu-h[0-9]' | sort | tr '\n' ' ')
      rounds() { grep -oE '"rounds": [0-9]+' "$1" | grep -oE '[0-9]+$'; }
      printf 'same cluster, throttled %s: bisect %s rounds %s s (named %s), pairwise %s rounds %s s (named %s)\n' \
        "$want" "$(rounds "$out/b/verdict.json")" "$bisect_s" "$got" "$(rounds "$out/p/verdict.json")" "$pairwise_s" "$pgot"
    else
      echo "bisect: $(grep -oE '"rounds": [0-9]+' "$out/b/verdict.json" | head -1), $bisect_s s, named $got"
    fi
    ;;
  profiles)
    sweep=(-np 2 "$ccbench" all_reduce -b 64K -e 4M -f 4 -n 5 -w 1 --timing pipelined)
    run_emu "$out/bare.log" -n 2 --mtu 9000 -- "${sweep[@]}" -J "$out/bare.jsonl" || { cat "$out/bare.log"; fail "bare-metal sweep"; }
    run_emu "$out/cloud.log" -n 2 --rate 300mbit --mtu 1400 -- "${sweep[@]}" -J "$out/cloud.jsonl" || { cat "$out/cloud.log"; fail "cloud sweep"; }
    grep -q 'mtu 9000' "$out/bare.log" && grep -q 'rate 300mbit, mtu 1400' "$out/cloud.log" || fail "profiles not applied"
    "$ccbench" compare --run bare-metal="$out/bare.jsonl" --run cloud="$out/cloud.jsonl" --color never \
      --md "$out/r.md" --html "$out/r.html" --json "$out/r.json" > "$out/compare.txt" || { cat "$out/compare.txt"; fail "compare"; }
    cat "$out/compare.txt"
    grep -q 'cloud' "$out/r.md" && grep -q '<html' "$out/r.html" || fail "no report"
    # The shaped cloud links must show: busbw geomean below the bare-metal one.
    ratio=$(grep -oE '"geomean_busbw_ratio": ?[0-9.e-]+' "$out/r.json" | head -1 | grep -oE '[0-9.e-]+$')
    [ -n "$ratio" ] || fail "no busbw geomean ratio in the report"
    awk -v r="$ratio" 'BEGIN { exit !(r < 0.8) }' || fail "cloud/bare-metal busbw geomean $ratio, expected < 0.8"
    ;;
  *) echo "usage: emu_cluster.sh throttled|clean|bisect|profiles CCBENCH" >&2; exit 2 ;;
esac
echo "emu_cluster $case: ok"

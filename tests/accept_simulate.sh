#!/usr/bin/env bash
# ccbench accept --simulate: the real schedule and verdict code on a cluster
# model, no MPI. A 1,024-node cluster with two defective nodes: exit 1,
# exactly those two named, 12 rounds and the simulated time in verdict.json,
# the search in report.html. A 64-node cluster with a failing switch: the
# switch is named.
# Usage: accept_simulate.sh CCBENCH SPEC
set -u
ccbench=$1 spec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null | head -40; exit 1; }
printf 'nodes: 1024\ndefective: {nodes: [node0017, node0342], factor: 0.3}\nnoise_cv: 0.05\nseed: 1\n' >"$dir/c.yaml"
"$ccbench" accept "$spec" --simulate "$dir/c.yaml" --out "$dir/v" --color never >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc = 1 ] || fail "exit $rc, expected 1 (rejected)"
named=$(grep -oE '^\| node[0-9]+ \| .* \| \*\*DEFECTIVE\*\* \|' "$dir/v/verdict.md" | grep -oE '^\| node[0-9]+' | grep -oE 'node[0-9]+' | sort | tr '\n' ' ')
[ "$named" = "node0017 node0342 " ] || fail "named '$named', expected node0017 node0342"
grep -qE '"rounds": 12,?$' "$dir/v/verdict.json" || fail "expected 12 rounds in verdict.json"
grep -q '"wall_s": 360' "$dir/v/verdict.json" || fail "expected 360 s of simulated time (12 rounds x 30 s)"
grep -q "\"simulated\": \"$dir/c.yaml\"" "$dir/v/verdict.json" || fail "verdict.json does not say it was simulated"
grep -q 'SIMULATED against the cluster model' "$dir/v/report.html" || fail "report.html does not say it was simulated"
grep -q 'The search: every group, round by round' "$dir/v/report.html" || fail "report.html does not show the search"
grep -q 're-confirm' "$dir/v/report.html" || fail "report.html does not show the re-confirmations"
# The terminal: the defective nodes first (the first two rows of Nodes), the
# other 1,022 counted, not listed.
rows=$(sed -n '/^-- Nodes --$/,/^$/p' "$dir/out" | sed -n '3,4p' | grep -c 'DEFECTIVE')
[ "$rows" = 2 ] || fail "the terminal's Nodes table does not open with the two defective nodes"
grep -q '^1022 more nodes not listed: ' "$dir/out" || fail "the terminal does not count the nodes it leaves out"
printf 'nodes: 64\nnodes_per_switch: 8\ndefective_switches: {switches: [switch03], factor: 0.4}\nseed: 3\n' >"$dir/s.yaml"
"$ccbench" accept "$spec" --simulate "$dir/s.yaml" --out "$dir/s" --color never >"$dir/out" 2>"$dir/err"
[ $? = 1 ] || fail "switch: expected exit 1"
grep -q 'switch switch03: all its 8 nodes are defective' "$dir/s/verdict.json" || fail "the switch is not named"
# The spec's switches: decide the search as in a real run (they were ignored
# under --simulate before 2026-12-01): the model's switch03 (nodes 17-24) is
# the spec's "rack-b", and the finding names the spec's switch.
{ printf 'name: racks\nswitches:\n'
  n=1; for r in a b c d e f g h; do printf '  rack-%s: [' $r; for i in $(seq 1 8); do printf 'node%04d' $n; n=$((n + 1)); [ $i = 8 ] || printf ', '; done; printf ']\n'; done
  printf 'checks:\n  - {name: search, collective: all_reduce, sizes: [1M], pattern: bisect, gates: [{metric: busbw, at: 1M, min: 40}]}\n'
} >"$dir/racks.yaml"
printf 'nodes: 64\nnodes_per_switch: 8\ndefective_switches: {switches: [switch03], factor: 0.4}\nseed: 3\n' >"$dir/s.yaml"
"$ccbench" accept "$dir/racks.yaml" --simulate "$dir/s.yaml" --out "$dir/r" --color never >"$dir/out" 2>"$dir/err"
[ $? = 1 ] || fail "spec switches: expected exit 1"
grep -q 'switch rack-c: all its 8 nodes are defective' "$dir/r/verdict.json" || fail "the spec's switch is not named"
# Gate baselines are read as a real run reads them (the healthy value stood
# in for them before): the bar comes from the file's median, 50 GB/s.
cat >"$dir/base.json" <<'JSON'
{"ccbench_baseline": 1, "rule": "hand-written", "runs": ["r1"], "entries": [{"collective": "all_reduce", "dtype": "float",
 "op": "sum", "ranks": 2, "nodes": 2, "bytes": 1048576, "runs": [0],
 "busbw_gbps": {"median": 50, "values": [50], "outliers": []}, "algbw_gbps": {"median": 50, "values": [50], "outliers": []},
 "time_us": {"median": 40, "values": [40], "outliers": []}}]}
JSON
printf 'name: rel\nchecks:\n  - {name: pairs, collective: all_reduce, sizes: [1M], pattern: pairwise, gates: [{metric: busbw, at: 1M, baseline: base.json, max_drop: 0.1}]}\n' >"$dir/rel.yaml"
printf 'nodes: 8\ndefective: {nodes: [node0003], factor: 0.5}\nseed: 1\n' >"$dir/8.yaml"
"$ccbench" accept "$dir/rel.yaml" --simulate "$dir/8.yaml" --out "$dir/b" --color never >"$dir/out" 2>"$dir/err"
[ $? = 1 ] || fail "baseline gate: expected exit 1"
grep -q '"baseline": 50' "$dir/b/verdict.json" || fail "the gate's baseline (median 50) was not read"
grep -q 'node0003 is defective' "$dir/b/verdict.json" || fail "the node under the baseline's bar is not named"
# The truth the model knows: healthy nodes named under heavy noise are
# counted, first among the findings.
printf 'nodes: 16\nnoise_cv: 1\nseed: 1\n' >"$dir/noisy.yaml"
"$ccbench" accept "$spec" --simulate "$dir/noisy.yaml" --out "$dir/n" --color never >"$dir/out" 2>"$dir/err"
grep -q 'simulation: the model.s noise (noise_cv 1, healthy_margin 0.25) fails 42% of a healthy group' "$dir/out" ||
  fail "no warning that the noise fails healthy groups"
grep -q 'simulation against the model: it makes no node defective; .* named defective' "$dir/out" ||
  fail "the healthy nodes named under noise are not counted"
grep -qE '(node[0-9]+ and ){2}' "$dir/out" && fail "a reference is listed twice"
printf 'nodes: 512\nnoise_cv: 0.05\nseed: 2\n' >"$dir/ok.yaml"
"$ccbench" accept "$spec" --simulate "$dir/ok.yaml" --out "$dir/ok" --color never >"$dir/out" 2>"$dir/err" || fail "a healthy cluster was not accepted"
# 1,024 nodes pairwise and then all nodes together (the example IB spec, run
# on a CPU-only machine as a simulation): the report is built in seconds (it
# never finished before), the terminal stays under 200 lines, the all-nodes
# check fails as a group (no node marked) and its advice names bisect.
# Issue 53 item 14: it ran in 1.4 GB and wrote a 257 MB verdict.json; now
# it runs under a 1 GB address-space limit, verdict.json opens with the
# answer and stays under 1 MB, and every group is a line of groups.jsonl.
printf 'nodes: 1024\ndefective: {nodes: [node0017, node0042], factor: 0.3}\nseed: 1\n' >"$dir/p.yaml"
ib="$(dirname "$spec")/../../../examples/acceptance/ib-multinode.yaml"
(ulimit -v 1048576 && exec "$ccbench" accept "$ib" --simulate "$dir/p.yaml" --out "$dir/p" --color never) >"$dir/out" 2>"$dir/err"
[ $? = 1 ] || { cat "$dir/err"; fail "pairwise 1024 under 1 GB: expected exit 1"; }
size=$(stat -c %s "$dir/p/verdict.json")
[ "$size" -lt 1000000 ] || fail "verdict.json has $size bytes (bound 1 MB)"
sed -n 2,12p "$dir/p/verdict.json" | tr -d ' \n' | grep -q '"verdict":"rejected","exit_code":1,"defective_nodes":{"node0017":\["pairs-all-reduce"\],"node0042":\["pairs-all-reduce"\]}' ||
  fail "verdict.json does not open with the verdict and the defective nodes"
groups=$(wc -l <"$dir/p/groups.jsonl")
[ "$groups" -ge 523777 ] || fail "groups.jsonl has $groups lines, expected every group (523,776 pairs + re-tests + 1)"
grep -q '"every_group": "groups.jsonl"' "$dir/p/verdict.json" || fail "verdict.json does not point to groups.jsonl"
# Killed meanwhile (SIGTERM, SIGINT): no temporary file is left behind.
for sig in TERM INT; do
  "$ccbench" accept "$ib" --simulate "$dir/p.yaml" --out "$dir/k$sig" --color never >/dev/null 2>&1 &
  pid=$!
  sleep 2
  kill -$sig $pid
  wait $pid
  left=$(find "$dir/k$sig" -name '.*' -type f | wc -l)
  [ "$left" = 0 ] || fail "SIG$sig: $left temporary files left: $(ls -a "$dir/k$sig")"
done
lines=$(wc -l <"$dir/out")
[ "$lines" -lt 200 ] || fail "pairwise 1024: the terminal report has $lines lines (bound 200)"
grep -q 'all 1024 nodes together .* the group failed' "$dir/out" || fail "the all-nodes check does not fail as a group"
grep -q 'run pattern bisect to find it' "$dir/out" || fail "the all-nodes advice does not name bisect"
grep -q '"status": "in failed group"' "$dir/p/verdict.json" || fail "verdict.json does not mark the all-nodes group"
echo "ok"

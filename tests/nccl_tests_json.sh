#!/usr/bin/env bash
# -J FILE.json is nccl-tests' JSON document (results/nccl_tests_json.hpp):
# the keys and nesting nccl-tests 2.19.6 writes (its src/util.cu:
# jsonOutputInit, writeDeviceReport, writeBenchmarkLine*, writeResultFooter;
# tests/fixtures/nccl-tests-json/keys-2.19.json), json.load reads it, the
# numbers are the table's, ccbench's own importer (compare, history add)
# reads it back to them, and a run cut short leaves a valid document.
# The table is read as nccl-tests' log scrapers read it: its header lines
# by their patterns (the rank lines by nccl-tests' own parseRankInfo
# format), the columns at nccl-tests' positions, the rows unbroken, the
# footer in order; -N repeats the sizes and -N 0 runs until a signal.
# -I 1 -K N add nccl-tests' per-iteration blocks and i_* columns; with the
# path of an nccl-tests source tree, its tools/analyze_perf_json.py reads them.
# Usage: nccl_tests_json.sh CCBENCH FIXTURES NP [NCCL_TESTS_SRC]
set -uo pipefail
ccbench=$1 fx=$2 np=$3 peer=${4:-}
out=$(mktemp -d /tmp/ccbench-ntjson.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

mpirun -np "$np" "$ccbench" all_reduce -b 8 -e 64K -f 8 -n 5 -w 1 -J "$out/r.json" > "$out/t.txt" 2> "$out/e.txt" ||
  { cat "$out/e.txt"; fail "the sweep"; }
python3 - "$out/r.json" "$out/t.txt" "$fx/nccl-tests-json/keys-2.19.json" "$np" <<'PY' || fail "the document"
import json, sys
doc = json.load(open(sys.argv[1]))          # one document: json.load, as nccl-tests' users read it
keys = json.load(open(sys.argv[3]))
np = int(sys.argv[4])
assert list(doc) == keys["top"], f"top-level keys {list(doc)}"
assert doc["version"] == 3
assert set(doc["config"]) == set(keys["config"]), f"config keys {sorted(doc['config'])}"
assert len(doc["config"]["devices"]) == np
for d in doc["config"]["devices"]:
    assert list(d) == keys["device"], list(d)
for flag in ("blocking_collectives", "per_iter_timing", "parallel_init"):
    assert doc["config"][flag] in ("true", "false"), (flag, doc["config"][flag])  # nccl-tests' booleans are strings
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert len(rows) == len(doc["results"]) > 0, (len(rows), len(doc["results"]))
for r, row in zip(doc["results"], rows):
    assert list(r) == keys["result"], list(r)
    assert r["size"] == int(row[0]) and r["count"] == int(row[1]) and r["type"] == row[2] and r["redop"] == row[3]
    assert r["root"].strip() == row[4] and len(r["root"]) == 6, r["root"]
    for k, at in (("out_of_place", 5), ("in_place", 9)):
        p = r[k]
        assert list(p) == keys["placement"], list(p)
        # the table prints what the document holds, rounded as nccl-tests rounds
        assert abs(p["time"] - float(row[at])) <= 0.006 * max(1, float(row[at])), (k, p["time"], row[at])
        assert abs(p["bus_bw"] - float(row[at + 2])) <= 0.006 + 1e-3 * float(row[at + 2]), (k, p["bus_bw"], row[at + 2])
        assert p["nwrong"] == float(row[at + 3]) == 0
avg = [l for l in open(sys.argv[2]) if l.startswith("# Avg bus bandwidth")][0].split(":")[1].split()[0]
assert abs(doc["average_bus_bandwidth"]["bandwidth"] - float(avg)) < 1e-4 * max(1, float(avg))
assert doc["out_of_bounds"] == {"count": 0, "okay": "true"}
assert "end_time" in doc
PY

# The table as a log scraper reads nccl-tests' (src/util.cu's formats).
python3 - "$out/t.txt" "$out/r.json" "$np" <<'PY' || { cat "$out/t.txt"; fail "the table's nccl-tests lines"; }
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
doc, np = json.load(open(sys.argv[2])), int(sys.argv[3])
assert re.match(r"^# nccl-tests version (\S+) nccl-headers=(\d+) nccl-library=(\d+)( |$)", lines[0]), lines[0]
assert lines[1] == "# Collective test starting: all_reduce_perf", lines[1]
m = re.match(r"^# nThread (\d+) nGpus (\d+) minBytes (\d+) maxBytes (\d+) step: (\d+)\((factor|bytes)\) "
             r"warmup iters: (\d+) iters: (\d+) agg iters: (\d+) validation: (\d+) graph: (\d+) unalign: (\d+)$", lines[2])
assert m and m.groups() == ("1", "1", "8", "65536", "8", "factor", "1", "5", "1", "1", "0", "0"), lines[2]
assert lines[3:5] == ["#", "# Using devices"], lines[3:5]
# nccl-tests' parseRankInfo: "#  Rank %d Group %d Pid %d on %1024s device %d [%128[^]]] %1024[^\n]"
rank = re.compile(r"^#  Rank +(\d+) Group +(\d+) Pid +(\d+) on +(\S+) device +(-?\d+) \[([^\]]+)\] (.+)$")
ranks = [rank.match(l) for l in lines[5:5 + np]]
assert all(ranks) and [int(r.group(1)) for r in ranks] == list(range(np)), lines[5:5 + np]
assert lines[5 + np] == "#", lines[5 + np]
for r, d in zip(ranks, doc["config"]["devices"]):  # the document's devices are the lines' fields
    assert (int(r.group(1)), int(r.group(2)), int(r.group(3)), r.group(4), int(r.group(5)), r.group(6), r.group(7)) == \
        (d["rank"], d["group"], d["pid"], d["hostname"], d["device"], d["device_hex"], d["device_info"]), (r.groups(), d)
# The column header, then only rows, then the footer in nccl-tests' order.
head = next(i for i, l in enumerate(lines) if l.startswith("#       size "))
foot = next(i for i, l in enumerate(lines) if l.startswith("# Out of bounds values"))
rows = lines[head + 2:foot]
assert rows and all(not l.startswith("#") and len(l.split()) == 13 for l in rows), rows
# Each column ends where its header ends (nccl-tests right-aligns both).
ends = [m.end() for m in re.finditer(r"\S+", lines[head])][1:]
for l in rows:
    assert [m.end() for m in re.finditer(r"\S+", l)] == ends, (lines[head], l)
assert re.match(r"^# Out of bounds values : 0 OK$", lines[foot]), lines[foot]
assert re.match(r"^# Avg bus bandwidth    : [0-9.e+-]+ $", lines[foot + 1]), repr(lines[foot + 1])
assert lines[foot + 2:foot + 4] == ["#", "# Collective test concluded: all_reduce_perf"], lines[foot + 2:foot + 4]
PY

# -I 1 -K 1: each pipelined iteration timed, max over processes; the summary skips the first.
mpirun -np "$np" "$ccbench" all_reduce -b 1K -e 4K -f 4 -n 6 -w 1 -I 1 -K 1 -J "$out/i.json" > "$out/i.txt" 2>&1 ||
  { cat "$out/i.txt"; fail "-I 1"; }
python3 - "$out/i.json" "$out/i.txt" "$np" <<'PY' || { cat "$out/i.txt"; fail "-I 1: nccl-tests' per-iteration blocks and columns"; }
import json, re, sys
doc, text, np = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), int(sys.argv[3])
assert doc["config"]["per_iter_timing"] == "true" and doc["config"]["per_iter_skip"] == 1, doc["config"]
assert re.search(r"^# Per-Iteration Report: host clock timing; i_\* uses max over process rows; summary skips first 1 iterations $", text, re.M), text
head = re.search(r"^#       size .*$", text, re.M).group(0).split()
assert head[1:] == "size count type redop root time algbw busbw #wrong i_min i_max i_p99 i_cv% time algbw busbw #wrong i_min i_max i_p99 i_cv%".split(), head
rows = [l.split() for l in text.splitlines() if l.strip() and not l.startswith("#")]
assert len(rows) == len(doc["results"]) == 2, rows
for r, row in zip(doc["results"], rows):
    assert list(r) == ["size", "count", "type", "redop", "root", "out_of_place", "out_of_place_per_iter", "in_place",
                       "in_place_per_iter", "actual_iterations", "experiment_name"], list(r)
    for key, at in (("out_of_place_per_iter", 9), ("in_place_per_iter", 17)):
        b = r[key]
        assert b["skipped_iterations"] == 1 and len(b["times_us"]) == 6, b
        rows_p = b.get("per_process_max_times_us", [])
        assert len(rows_p) == (np if np > 1 else 0), rows_p
        if rows_p:  # times_us is the max over process rows, per iteration
            assert b["times_us"] == [max(col) for col in zip(*rows_p)], b
        kept = sorted(b["times_us"][1:])
        assert b["min_us"] == kept[0] and b["max_us"] == kept[-1] and b["p50_us"] == kept[len(kept) // 2], b
        for col, k in ((at, "min_us"), (at + 1, "max_us"), (at + 2, "p99_us"), (at + 3, "cv_pct")):
            assert abs(float(row[col]) - b[k]) <= 0.006 * max(1, b[k]), (key, k, row[col], b[k])
PY
if [ -n "$peer" ]; then
  python3 "$peer/tools/analyze_perf_json.py" --all "$out/i.json" > "$out/analyze.txt" 2>&1 &&
    { [ "$np" = 1 ] || grep -q 'Consistency (times_us == max over process rows, OOP): PASS' "$out/analyze.txt"; } ||
    { cat "$out/analyze.txt"; fail "nccl-tests' analyze_perf_json.py on -I 1's document"; }
fi
"$ccbench" all_reduce --backend nccl -I 1 -G 1 > "$out/ig.txt" 2>&1
[ $? = 2 ] && grep -q -- '-I 1 with -G' "$out/ig.txt" || { cat "$out/ig.txt"; fail "-I 1 with -G: one line, exit 2"; }
"$ccbench" all_reduce --backend mpi -I 1 -n 4 -K 4 > "$out/ik.txt" 2>&1
[ $? = 2 ] && grep -q -- '-K/--per_iter_skip 4: leaves none of the -n 4 iterations' "$out/ik.txt" ||
  { cat "$out/ik.txt"; fail "-K as large as -n: one line, exit 2"; }

# -C 1 -S 1: the time column is cputime ("cpu_time" in the document), each row ends with its local time.
mpirun -np "$np" "$ccbench" all_reduce -b 1K -e 4K -f 4 -n 4 -w 1 -C 1 -S 1 -J "$out/cs.json" > "$out/cs.txt" 2>&1 ||
  { cat "$out/cs.txt"; fail "-C 1 -S 1"; }
python3 - "$out/cs.json" "$out/cs.txt" <<'PY' || { cat "$out/cs.txt"; fail "-C 1 -S 1: nccl-tests' cputime and timestamp columns"; }
import json, re, sys
doc, text = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
head = re.search(r"^#       size .*$", text, re.M).group(0).split()
assert head[1:] == "size count type redop root cputime algbw busbw #wrong cputime algbw busbw #wrong timestamp".split(), head
assert re.search(r"^#        \(B\) .* %Y-%m-%d %H:%M:%S$", text, re.M), text
rows = [l.split() for l in text.splitlines() if l.strip() and not l.startswith("#")]
for r, row in zip(doc["results"], rows):
    assert len(row) == 15 and re.match(r"^\d{4}-\d\d-\d\d$", row[13]) and re.match(r"^\d\d:\d\d:\d\d$", row[14]), row
    for k, at in (("out_of_place", 5), ("in_place", 9)):
        assert "time" not in r[k] and abs(r[k]["cpu_time"] - float(row[at])) <= 0.006 * max(1, float(row[at])), (r[k], row)
PY
"$ccbench" all_reduce --backend mpi -C 1 --timing per_iteration > "$out/ct.txt" 2>&1
[ $? = 2 ] && grep -q -- '-C 1 reports the pipelined loop' "$out/ct.txt" || { cat "$out/ct.txt"; fail "-C 1 with --timing per_iteration"; }

# scripts/validate/nccl_tests_view.py (what the GPU parity run diffs against nccl-tests itself): two
# runs of one command have one view, stdout and document alike; another flag set (-I 1) another.
view=$(dirname "$0")/../scripts/validate/nccl_tests_view.py
mpirun -np "$np" "$ccbench" all_reduce -b 8 -e 64K -f 8 -n 5 -w 1 -J "$out/r2.json" > "$out/t2.txt" 2>&1 ||
  fail "the sweep, again"
python3 "$view" diff "$out/t.txt" "$out/t2.txt" && python3 "$view" diff "$out/r.json" "$out/r2.json" ||
  fail "nccl_tests_view.py: one command, two views"
python3 "$view" diff "$out/t.txt" "$out/i.txt" > /dev/null && fail "nccl_tests_view.py: -I 1's view is another"
python3 "$view" view "$out/t.txt" | python3 -c "
import json, sys
v = json.load(sys.stdin)
assert v['nthread_fields'] == ['nThread', 'nGpus', 'minBytes', 'maxBytes', 'step', 'warmup iters', 'iters', 'agg iters',
                               'validation', 'graph', 'unalign'], v['nthread_fields']
assert v['footer'] == ['Out of bounds values', 'Avg bus bandwidth', 'Collective test concluded'], v['footer']
assert v['version_keys'] == ['nccl-headers', 'nccl-library'] and v['program'] == 'all_reduce_perf', v
" || fail "nccl_tests_view.py: nccl-tests' header and footer in ccbench's table"

# -N 3: each cycle's rows, printed and recorded; the average over all of them.
mpirun -np "$np" "$ccbench" all_reduce -b 1K -e 4K -f 2 -n 2 -w 1 -N 3 -J "$out/n3.json" > "$out/n3.txt" 2>&1 ||
  { cat "$out/n3.txt"; fail "-N 3"; }
python3 - "$out/n3.json" "$out/n3.txt" <<'PY' || { cat "$out/n3.txt"; fail "-N 3: three cycles of three sizes"; }
import json, sys
doc = json.load(open(sys.argv[1]))
sizes = [r["size"] for r in doc["results"]]
assert sizes == [1024, 2048, 4096] * 3, sizes
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert [int(r[0]) for r in rows] == sizes, rows
bw = [r[k]["bus_bw"] for r in doc["results"] for k in ("out_of_place", "in_place")]
assert abs(doc["average_bus_bandwidth"]["bandwidth"] - sum(bw) / len(bw)) < 1e-6 * max(1, sum(bw)), (doc["average_bus_bandwidth"], bw)
PY
# -N 0: until stopped (one process here: the signal goes to ccbench itself);
# SIGINT ends it at the next point, the end record written, exit 130.
"$ccbench" all_reduce --backend mpi -b 1K -e 4K -f 2 -n 2 -w 1 -N 0 -J "$out/n0.jsonl" > "$out/n0.txt" 2>&1 &
pid=$!
for _ in $(seq 100); do
  n=$(grep -c '"type":"point"' "$out/n0.jsonl" 2>/dev/null)
  [ "${n:-0}" -ge 7 ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
points=$(grep -c '"type":"point"' "$out/n0.jsonl")
[ $rc = 130 ] && [ "$points" -ge 7 ] && tail -1 "$out/n0.jsonl" | grep -q '"status":"interrupted: SIGINT"' &&
  [ "$(grep -vc '^#' "$out/n0.txt")" -ge "$points" ] ||
  { cat "$out/n0.txt"; fail "-N 0 stopped by SIGINT: exit $rc (expected 130), $points points kept"; }

# compare and history read the document back to the same times as the table.
"$ccbench" compare --run a="$out/r.json" --run b="$out/r.json" --json "$out/c.json" > /dev/null ||
  fail "compare reads the .json"
python3 - "$out/c.json" "$out/r.json" <<'PY' || fail "compare's numbers are the document's"
import json, sys
c, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
times = {(r["size"], k): r[k]["time"] for r in doc["results"] for k in ("out_of_place", "in_place")}
seen = 0
for s in c["pairs"][0]["series"]:
    place = "in_place" if s["key"].get("in_place") == 1 else "out_of_place"
    for p in s["points"]:
        assert abs(p["baseline_time_us"] - times[(p["bytes"], place)]) < 1e-9, p
        seen += 1
assert seen == len(times), (seen, len(times))
PY
"$ccbench" history add --db "$out/h.db" "$out/r.json" > /dev/null || fail "history add reads the .json"
"$ccbench" history show --db "$out/h.db" --size 4K --csv | grep -q "^all_reduce,float,sum,auto,host,$np,1,0,4096,$(hostname)," ||
  fail "history show: the .json's 4 KiB series, this host's"

# A run cut short (rank 0 exits at 4 KiB): a valid document with the points before it, no end_time.
mpirun -np "$np" -x CCBENCH_FAULT=exit:rank=0:bytes=4096 "$ccbench" all_reduce -b 8 -e 64K -f 8 -n 2 -J "$out/cut.json" \
  > /dev/null 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [r['size'] for r in d['results']] == [8, 64, 512], [r['size'] for r in d['results']]
assert 'end_time' not in d
" "$out/cut.json" || { cat "$out/cut.json"; fail "a run cut short leaves a valid document"; }

# NCCL_TESTS_MIN_BW: nccl-tests' check of the average bus bandwidth (within
# 10%) and its exit status 7; one far above any host's passes nothing, 0 passes.
NCCL_TESTS_MIN_BW=1e9 mpirun -np "$np" -x NCCL_TESTS_MIN_BW "$ccbench" all_reduce -b 1K -e 4K -f 4 -n 2 \
  -J "$out/min.json" > "$out/min.txt" 2>&1
rc=$?
[ $rc = 7 ] && grep -q '^# Avg bus bandwidth    : [0-9.e+-]* FAILED$' "$out/min.txt" &&
  python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['average_bus_bandwidth']['okay'] == 'false'" "$out/min.json" ||
  { cat "$out/min.txt"; fail "NCCL_TESTS_MIN_BW above the average: exit $rc, expected 7 and FAILED"; }
NCCL_TESTS_MIN_BW=0 mpirun -np "$np" -x NCCL_TESTS_MIN_BW "$ccbench" all_reduce -b 1K -e 4K -f 4 -n 2 \
  -J "$out/min0.json" > "$out/min0.txt" 2>&1 && grep -q '^# Avg bus bandwidth    : [0-9.e+-]* OK$' "$out/min0.txt" &&
  python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['average_bus_bandwidth']['okay'] == 'true'" "$out/min0.json" ||
  { cat "$out/min0.txt"; fail "NCCL_TESTS_MIN_BW 0: OK, exit 0"; }
NCCL_TESTS_MIN_BW=fast "$ccbench" all_reduce -b 1K -e 1K > "$out/bad.txt" 2>&1
[ $? = 2 ] && grep -q "NCCL_TESTS_MIN_BW 'fast': expected a bus bandwidth" "$out/bad.txt" ||
  { cat "$out/bad.txt"; fail "NCCL_TESTS_MIN_BW=fast: exit 2, one line"; }

# The suffix rule: any other name is ccbench's JSON Lines; moe's two runs refuse .json.
mpirun -np 2 "$ccbench" all_reduce -b 8 -e 8 -n 2 -J "$out/r.jsonl" > /dev/null 2>&1 &&
  [ "$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['type'])" "$out/r.jsonl")" = run ] ||
  fail ".jsonl is the JSON Lines record"
"$ccbench" moe -J "$out/m.json" > "$out/m.txt" 2>&1
[ $? = 2 ] && grep -q 'give a .jsonl name' "$out/m.txt" || { cat "$out/m.txt"; fail "moe -J x.json"; }
echo "nccl-tests JSON: ok"

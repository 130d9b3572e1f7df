#!/usr/bin/env bash
# Two real ccbench runs on this machine, compared: MPI ranks talking over
# shared memory vs over TCP (loopback), with per-iteration samples for the
# significance test and the example cost profiles. Writes report.html/.md/
# .csv/.json under OUTDIR (default runs/compare-demo/<UTC time>), then,
# when Chromium is installed, opens the HTML headless, takes a screenshot and
# checks that every chart was drawn.
#   CCBENCH=path/to/ccbench (default build/ccbench; built by setup.sh if missing)
#   CCBENCH_DEMO_SCREENSHOT=require: fail when Chromium is missing
set -euo pipefail
cd "$(dirname "$0")/.."
ccbench=${CCBENCH:-build/ccbench}
[ -x "$ccbench" ] || scripts/setup.sh
out=${1:-runs/compare-demo/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/shm" "$out/tcp"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
# TCP over loopback only: an emulated cluster's bridge (tests running beside
# this one) can vanish under a connection that chose its address, and hang it.
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
sweep=(-b 8 -e 4M -f 4 -n 30 -w 3 --samples)
for path in shm tcp; do
  for coll in all_reduce all_gather alltoall; do
    timeout -k 10 120 scripts/mpirun.sh -np 2 "$ccbench" "$coll" "${sweep[@]}" --path "$path" \
      -J "$out/$path/$coll.jsonl" >/dev/null ||
      { echo "compare-demo: the $path $coll sweep failed or ran past 120 s (exit $?)" >&2; exit 1; }
  done
done
"$ccbench" compare --run shared-memory="$out/shm" --run tcp="$out/tcp" --ignore-key path \
  --cost shared-memory=examples/profiles/bare-metal-h100.yaml --cost tcp=examples/profiles/cloud-h100.yaml \
  --workload examples/profiles/workload-llama-70b.yaml \
  --html "$out/report.html" --md "$out/report.md" --csv "$out/report.csv" --json "$out/report.json"
echo "report: $out/report.html"

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "screenshot: skipped (no Chromium; apt-get install chromium)"
  [ "${CCBENCH_DEMO_SCREENSHOT:-}" = require ] && exit 77
  exit 0
fi
html=$(cd "$out" && pwd)/report.html
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir="$out/.chromium")
# Each browser run is bounded (-k: a Chromium that ignores SIGTERM is killed)
# and tried once more when it fails or hangs (a CI run saw one hang past the
# test's 300 s): 4 x 65 s at most.
browse() { timeout -k 5 60 "$browser" "${flags[@]}" "$@" || timeout -k 5 60 "$browser" "${flags[@]}" "$@"; }
browse --window-size=1400,1800 --screenshot="$out/report.png" "file://$html" >/dev/null 2>&1
browse --dump-dom "file://$html" 2>/dev/null >"$out/dom.html"
rm -rf "$out/.chromium"
# 3 collectives x 2 placements = 6 chart groups, 3 charts each, each a polyline per run.
charts=$(grep -o '<svg' "$out/dom.html" | wc -l)
size=$(stat -c %s "$out/report.png" 2>/dev/null || echo 0)
echo "screenshot: $out/report.png ($size bytes); charts in the rendered page: $charts"
if [ "$charts" -lt 18 ] || [ "$size" -lt 20000 ] || grep -q "Charts are unavailable" "$out/dom.html"; then
  echo "compare-demo: the report did not render its charts" >&2
  exit 1
fi

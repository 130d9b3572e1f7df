#!/usr/bin/env bash
# ccbench's --prom read back through a real Prometheus (docs/history.md):
# node_exporter (Debian's prometheus-node-exporter) with a textfile folder,
# Prometheus scraping it every second on loopback; a sweep and an accept
# write their metrics there, and the values come back from Prometheus' HTTP
# query API.
#   prometheus.sh CCBENCH FIXTURES
# Exit 77 (skipped, reason printed) when prometheus or node_exporter is missing.
set -uo pipefail
ccbench=$1 fx=$2
for tool in prometheus prometheus-node-exporter; do
  command -v $tool > /dev/null || { echo "skipped: '$tool' is not installed (apt-get install prometheus prometheus-node-exporter)"; exit 77; }
done
out=$(mktemp -d /tmp/ccbench-prom.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; for f in "$out"/*.log; do echo "== $f"; tail -5 "$f"; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

mkdir -p "$out/textfile" "$out/tsdb"
# The metrics first: the collector reads the folder on every scrape.
mpirun -np 2 "$ccbench" all_reduce -b 4K -e 4K -n 5 -w 1 --prom "$out/textfile/sweep.prom" > "$out/sweep.log" 2>&1 ||
  fail "the sweep"
mpirun -np 2 "$ccbench" accept "$fx/accept/local.yaml" --out "$out/acc" --prom "$out/textfile/accept.prom" \
  > "$out/accept.log" 2>&1 || fail "the accept"
want=$(grep '^ccbench_busbw_bytes_per_second{.*in_place="0"' "$out/textfile/sweep.prom" | awk '{print $2}')
[ -n "$want" ] || fail "the sweep's --prom has no out-of-place busbw"

ne=$(free_port) pr=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$out/textfile" > "$out/node_exporter.log" 2>&1 &
pids+=($!)
cat > "$out/prometheus.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: ccbench
    static_configs: [{targets: ["127.0.0.1:$ne"]}]
YML
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" --web.listen-address="127.0.0.1:$pr" \
  > "$out/prometheus.log" 2>&1 &
pids+=($!)

query() {  # PROMQL -> the first result's value, or nothing
  python3 - "$pr" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=2))
except Exception:
    sys.exit(0)
if r.get("status") == "success" and r["data"]["result"]:
    print(r["data"]["result"][0]["value"][1])
PY
}
got=""
for _ in $(seq 60); do
  got=$(query "ccbench_busbw_bytes_per_second{collective=\"all_reduce\",size_bytes=\"4096\",in_place=\"0\",ranks=\"2\"}")
  [ -n "$got" ] && break
  sleep 0.5
done
[ -n "$got" ] || fail "Prometheus never returned the sweep's busbw (30 s)"
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-6 * abs(b))" "$got" "$want" ||
  fail "busbw through Prometheus $got, in the file $want"
pass=$(query "ccbench_accept_node_pass{check=\"node\",host=\"$(hostname)\"}")
[ "$pass" = 1 ] || fail "ccbench_accept_node_pass through Prometheus: '$pass', expected 1"
accepted=$(query 'ccbench_accept_accepted{spec="local"}')
[ "$accepted" = 1 ] || fail "ccbench_accept_accepted through Prometheus: '$accepted', expected 1"
echo "prometheus: ok (busbw $got B/s, node pass $pass, accepted $accepted, read back through Prometheus' query API)"

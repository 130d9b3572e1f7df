#!/usr/bin/env bash
# ccbench node-labels (docs/acceptance.md "Kubernetes node labels"): an
# acceptance verdict as node labels, taints and a ConfigMap, checked offline
# (no Kubernetes API server exists here): the files against golden ones,
# the ConfigMap and every label command through kubectl's own decoder
# (--local), --apply against a server that is not there (exit 5), and the
# input it refuses (exit 2).
#   k8s_node_labels.sh CCBENCH FIXTURES
set -uo pipefail
ccbench=$1 fx=$2/k8s
out=$(mktemp -d /tmp/ccbench-k8s.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$ccbench" node-labels "$fx" --out "$out" > "$out/said.txt" || { cat "$out/said.txt"; fail "node-labels"; }
grep -q '^node-labels: 5 nodes: 1 failed, 1 suspect, 2 passed, 1 not judged; ' "$out/said.txt" || { cat "$out/said.txt"; fail "the tally"; }
for f in node-labels.sh node-verdicts.yaml; do
  diff "$fx/golden/$f" "$out/$f" > "$out/diff.txt" || { cat "$out/diff.txt"; fail "$f differs from the golden file"; }
done
if command -v kubectl > /dev/null; then
  # kubectl's decoder reads the ConfigMap as one, offline; each label command's key and value pass its checks.
  kubectl label --local -f "$out/node-verdicts.yaml" -o json checked=yes > "$out/cm.json" 2> "$out/kubectl.err" ||
    { cat "$out/kubectl.err"; fail "kubectl does not read the ConfigMap"; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['data']; assert sorted(d) == ['gpu-a03', 'gpu-a04'] and d['gpu-a04'].startswith('failed\n'), d" \
    "$out/cm.json" || fail "the ConfigMap's data"
  printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: node-x\n' > "$out/node.yaml"
  grep '^kubectl label node ' "$out/node-labels.sh" | while read -r _ _ _ node labels; do
    # shellcheck disable=SC2086
    kubectl label --local -f "$out/node.yaml" -o yaml ${labels% --overwrite} > /dev/null 2> "$out/label.err" ||
      { cat "$out/label.err"; fail "kubectl refuses the labels of $node: $labels"; }
  done || exit 1
  # --apply with no server to reach: kubectl fails, ccbench says so (exit 5)
  printf 'apiVersion: v1\nkind: Config\nclusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: none, context: {cluster: none}}]\ncurrent-context: none\n' > "$out/kubeconfig"
  KUBECONFIG="$out/kubeconfig" "$ccbench" node-labels "$fx" --out "$out" --apply > "$out/apply.txt" 2>&1; rc=$?
  [ $rc = 5 ] && grep -q 'node-labels --apply: .*node-labels.sh failed (exit 1); the cluster may hold part of it' "$out/apply.txt" ||
    { cat "$out/apply.txt"; fail "--apply without a server: exit $rc"; }
fi
# Refused: a host that cannot be a node name, a bad prefix; nothing written
python3 - "$fx/verdict.json" "$out/bad.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
v["checks"][0]["node_verdicts"][0]["node"] = "gpu;rm -rf /"
json.dump(v, open(sys.argv[2], "w"))
PY
mkdir "$out/bad"
"$ccbench" node-labels "$out/bad.json" --out "$out/bad" > "$out/bad.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "host 'gpu;rm -rf /' (check node) is not a Kubernetes node name" "$out/bad.txt" && [ -z "$(ls "$out/bad")" ] ||
  { cat "$out/bad.txt"; fail "a host that is no node name: exit $rc"; }
"$ccbench" node-labels "$fx" --out "$out/bad" --prefix Ccbench.IO > "$out/prefix.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- '--prefix Ccbench.IO: not a DNS subdomain' "$out/prefix.txt" || { cat "$out/prefix.txt"; fail "a bad prefix: exit $rc"; }
# Issue 73: text of the verdict never becomes a command of the script: a
# payload planted in every field that reaches it; and a status accept never
# writes is refused (it was read as passed, and the node's taint removed).
python3 - "$fx/verdict.json" "$out/payload.json" "$out/status.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
bad = "x\ntouch PWNED\n'$(touch PWNED)'`touch PWNED`;touch PWNED"
for key in ("started_at", "verdict", "spec"):
    v[key] = bad
v["checks"][0]["name"] = bad
for n in v["checks"][0]["node_verdicts"]:
    n["reason"] = bad
json.dump(v, open(sys.argv[2], "w"))
v = json.load(open(sys.argv[1]))
v["checks"][0]["node_verdicts"][3]["status"] = "FAILED"
json.dump(v, open(sys.argv[3], "w"))
PY
mkdir "$out/payload"
"$ccbench" node-labels "$out/payload.json" --out "$out/payload" > "$out/payload.txt" 2>&1 || { cat "$out/payload.txt"; fail "payload verdict"; }
# Run it as --apply would, with a kubectl that only records its arguments: no payload may run.
mkdir -p "$out/fakebin" "$out/run"
printf '#!/bin/sh\necho "$@" >> "%s/kubectl.calls"\n' "$out" > "$out/fakebin/kubectl"; chmod +x "$out/fakebin/kubectl"
(cd "$out/run" && PATH="$out/fakebin:/usr/bin:/bin" sh "$out/payload/node-labels.sh") > "$out/run.txt" 2>&1 ||
  { cat "$out/run.txt"; fail "the script with a planted payload failed"; }
[ -z "$(find "$out" -name PWNED)" ] || fail "a payload in the verdict ran as a command"
[ "$(grep -c '^label node ' "$out/kubectl.calls")" = 4 ] || { cat "$out/kubectl.calls"; fail "not one label per judged node"; }
mkdir "$out/status"
"$ccbench" node-labels "$out/status.json" --out "$out/status" > "$out/status.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "host gpu-a04 (check node): status 'FAILED' is not one accept writes" "$out/status.txt" &&
  [ -z "$(ls "$out/status")" ] || { cat "$out/status.txt"; fail "an unknown status: exit $rc"; }
# --node-map: hosts renamed to their nodes
printf '# host node\ngpu-a04 node-17\n' > "$out/map.txt"
"$ccbench" node-labels "$fx" --out "$out/bad" --node-map "$out/map.txt" > /dev/null || fail "--node-map"
grep -q '^kubectl taint node node-17 ccbench.io/health=failed:NoSchedule$' "$out/bad/node-labels.sh" || fail "--node-map: the node's name"
# Exit codes (issue 73): stdout on /dev/full and a folder that cannot be written are outputs that
# cannot be written (5); a ConfigMap over the 1 MiB Kubernetes stores is refused before anything is written (2).
"$ccbench" node-labels "$fx" --out "$out/bad" > /dev/full 2> "$out/full.txt"; rc=$?
[ $rc = 5 ] && grep -q 'cannot write' "$out/full.txt" || { cat "$out/full.txt"; fail "stdout on /dev/full: exit $rc"; }
mkdir "$out/ro"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$out/ro" 2> /dev/null; then
  "$ccbench" node-labels "$fx" --out "$out/ro" > "$out/ro.txt" 2>&1; rc=$?
  umount "$out/ro"
  [ $rc = 5 ] && grep -q "cannot create a temporary file in .*Read-only file system" "$out/ro.txt" || { cat "$out/ro.txt"; fail "a read-only --out: exit $rc"; }
elif [ "$(id -u)" != 0 ]; then
  chmod a-w "$out/ro"
  "$ccbench" node-labels "$fx" --out "$out/ro" > "$out/ro.txt" 2>&1; rc=$?
  [ $rc = 5 ] || { cat "$out/ro.txt"; fail "a read-only --out: exit $rc"; }
fi
python3 - "$fx/verdict.json" "$out/huge.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
v["checks"] = [{"name": "node", "node_verdicts": [
    {"node": "gpu-%05d" % i, "status": "DEFECTIVE", "reason": "busbw far below its bar " + "x" * 200, "margin": -0.5}
    for i in range(6000)]}]
json.dump(v, open(sys.argv[2], "w"))
PY
mkdir "$out/huge"
"$ccbench" node-labels "$out/huge.json" --out "$out/huge" > "$out/huge.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "the ConfigMap would be [0-9]* bytes, more than the 1048576 (1 MiB) Kubernetes stores" "$out/huge.txt" &&
  [ -z "$(ls "$out/huge")" ] || { cat "$out/huge.txt"; fail "a ConfigMap over 1 MiB: exit $rc"; }
echo "k8s_node_labels: ok"

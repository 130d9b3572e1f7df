#!/usr/bin/env bash
# scripts/launch/crd-check.py, the offline check of custom resources against
# their CRDs' OpenAPI schemas (docs/acceptance.md "Launch templates").
#   k8s_crd_check.sh REPO_ROOT          the checker on tests/fixtures/k8s/crd:
#     a resource using every construct passes; each of 20 resources with one
#     mistake fails with that mistake's message and no other; bad input
#     (files, CRDs or resources of the wrong shape) exits 2.
#   k8s_crd_check.sh REPO_ROOT launch   scripts/launch/*.yaml against the CRDs
#     in $CCBENCH_CRD_DIR (Kubeflow's, or `kubectl get crd ... -o yaml` of your
#     cluster); skipped (77) without it: the CRDs are not part of the repository.
set -uo pipefail
root=$1
check=("python3" "$root/scripts/launch/crd-check.py")
python3 -c 'import yaml' 2> /dev/null || { echo "SKIP: python3-yaml is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
if [ "${2:-}" = launch ]; then
  [ -n "${CCBENCH_CRD_DIR:-}" ] || { echo "SKIP: set CCBENCH_CRD_DIR to a folder of the MPIJob and Trainer CRDs"; exit 77; }
  "${check[@]}" --crd "$CCBENCH_CRD_DIR" "$root"/scripts/launch/*.yaml || fail "a launch file breaks its CRD's schema"
  n=$("${check[@]}" --crd "$CCBENCH_CRD_DIR" "$root"/scripts/launch/*.yaml | grep -c ': valid against')
  [ "$n" -eq 5 ] || fail "expected 2 MPIJobs, 2 TrainJobs and a TrainingRuntime checked, got $n"
  # The same files with one mistake each are refused by the real schemas.
  bad=$(mktemp -d /tmp/ccbench-crd.XXXXXX)
  trap 'rm -rf "$bad"' EXIT
  sed 's/slotsPerWorker:/slotsPerWorkers:/' "$root/scripts/launch/sweep-mpijob.yaml" > "$bad/mpijob.yaml"
  sed 's/numNodes: 2/numNodes: "2"/' "$root/scripts/launch/sweep-trainjob.yaml" > "$bad/trainjob.yaml"
  sed 's/mpiImplementation: OpenMPI/mpiImplementation: MPICH2/' "$root/scripts/launch/trainjob-runtime.yaml" > "$bad/runtime.yaml"
  "${check[@]}" --crd "$CCBENCH_CRD_DIR" "$bad"/*.yaml > "$bad/out"
  [ $? -eq 1 ] && grep -q 'spec.slotsPerWorkers: unknown field' "$bad/out" && grep -q "spec.trainer.numNodes: str '2'" "$bad/out" &&
    grep -q "spec.mlPolicy.mpi.mpiImplementation: 'MPICH2' is not one of" "$bad/out" || { cat "$bad/out"; fail "a broken launch file passed"; }
  echo "k8s_crd_check launch: ok"
  exit 0
fi
fx=$root/tests/fixtures/k8s/crd
out=$(mktemp -d /tmp/ccbench-crd.XXXXXX)
trap 'rm -rf "$out"' EXIT

"${check[@]}" --crd "$fx/widgets.example.ccbench.io.yaml" "$fx/widget-valid.yaml" > "$out/valid" 2>&1 ||
  { cat "$out/valid"; fail "the valid widget is refused"; }
grep -q 'Widget w.example: valid against widgets.example.ccbench.io.yaml (v1); 1 CEL rules left' "$out/valid" || fail "no valid line"
grep -q 'ConfigMap not-checked: a built-in kind (v1), skipped' "$out/valid" || fail "the ConfigMap is not named as skipped"

"${check[@]}" --crd "$fx" "$fx/widget-invalid.yaml" > "$out/invalid" 2>&1
[ $? -eq 1 ] || { cat "$out/invalid"; fail "invalid widgets do not exit 1"; }
python3 - "$fx/widget-invalid.yaml" "$out/invalid" <<'PY' || exit 1
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
blocks, cur = [], None
for line in open(sys.argv[2]).read().splitlines():
    if line.startswith("  "):
        cur.append(line.strip())
    else:
        cur = []
        blocks.append((line, cur))
if len(blocks) != len(docs):
    sys.exit(f"FAIL: {len(docs)} documents, {len(blocks)} reported")
for d, (head, errors) in zip(docs, blocks):
    want = d["metadata"]["annotations"]["ccbench.io/expect"]
    if not head.endswith(f"Widget {d['metadata']['name']}: INVALID") or len(errors) != 1 or not errors[0].startswith(want):
        sys.exit(f"FAIL: {d['metadata']['name']}: want one error {want!r}, got {head!r} {errors}")
print(f"{len(docs)} invalid widgets, each refused for its own mistake")
PY

# Bad input: exit 2 and a sentence naming it.
expect2() {
  local want=$1; shift
  "${check[@]}" "$@" > "$out/o" 2>&1
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$want" "$out/o" || { cat "$out/o"; fail "$* gave exit $rc, not 2 with '$want'"; }
}
expect2 "no CRD for MPIJob in group kubeflow.org" --crd "$fx" "$root/scripts/launch/sweep-mpijob.yaml"
sed 's#example.ccbench.io/v1#example.ccbench.io/v0#' "$fx/widget-valid.yaml" > "$out/v0.yaml"
expect2 "does not serve example.ccbench.io/v0 (served: v1)" --crd "$fx" "$out/v0.yaml"
printf 'a: [1\n' > "$out/broken.yaml"
expect2 "cannot read it as YAML" --crd "$fx" "$out/broken.yaml"
expect2 "no CustomResourceDefinition in" --crd "$fx/widget-valid.yaml" "$fx/widget-valid.yaml"
expect2 "missing.yaml: cannot read it: No such file or directory" --crd "$fx" "$out/missing.yaml"
printf 'name: x\n' > "$out/plain.yaml"
# A schema and a resource that contain themselves (YAML aliases) end, exit 2.
mkdir "$out/loop"
printf 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: loop.ccbench.io\n  names: {kind: Loop}\n  versions: [{name: v1, served: true, schema: {openAPIV3Schema: &s {type: object, properties: {metadata: {type: object}, apiVersion: {type: string}, kind: {type: string}, a: *s}}}}]\n' > "$out/loop/crd.yaml"
printf 'apiVersion: loop.ccbench.io/v1\nkind: Loop\nmetadata: {name: x}\na: &d {a: *d}\n' > "$out/self.yaml"
expect2 "refers to itself" --crd "$out/loop" "$out/self.yaml"
expect2 "No such file" --crd "$out/nowhere" "$out/self.yaml"
printf 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: a.b, names: [x], versions: [1]}\n' > "$out/shape.yaml"
expect2 "a CRD or resource of a shape no API server takes" --crd "$out/shape.yaml" "$fx/widget-valid.yaml"
sed 's/pattern: "^\[a-z\]+\$"/pattern: "(["/' "$fx/widgets.example.ccbench.io.yaml" > "$out/badpattern.yaml"
expect2 "unterminated character set" --crd "$out/badpattern.yaml" "$fx/widget-valid.yaml"
expect2 "not a Kubernetes object (no apiVersion and kind)" --crd "$fx" "$out/plain.yaml"
# Issue 73: a billion laughs (10^9 values from 9 lines) is refused, not expanded; a FIFO is not read (it blocked);
# a backtracking pattern RE2 accepts ends within its bound; a key given twice is refused as the API server's
# strict decoding refuses it; apiVersion and kind are never unknown fields.
python3 - "$out/laughs.yaml" <<'PY'
import sys
lines = ["apiVersion: example.ccbench.io/v1", "kind: Widget", "metadata: {name: lol}", 'a0: &a0 ["lol"]']
lines += [f"a{i}: &a{i} [{', '.join(['*a%d' % (i - 1)] * 10)}]" for i in range(1, 10)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
start=$SECONDS
expect2 "expands to more than 1,000,000 values" --crd "$fx" "$out/laughs.yaml"
mkfifo "$out/fifo.yaml"
expect2 "fifo.yaml: not a regular file" --crd "$fx" "$out/fifo.yaml"
sed 's/pattern: "^\[a-z\]+\$"/pattern: "^(a+)+$"/' "$fx/widgets.example.ccbench.io.yaml" > "$out/backtrack.yaml"
grep -q '(a+)+' "$out/backtrack.yaml" || fail "the backtracking pattern was not planted"
python3 - "$fx/widget-valid.yaml" "$out/aaa.yaml" <<'PY'
import sys, yaml
d = next(yaml.safe_load_all(open(sys.argv[1])))
def plant(v):  # every string a pattern may judge: 40 a's and a b (2^40 ways to split in Python's engine)
    if isinstance(v, dict):
        return {k: (plant(x) if k not in ("apiVersion", "kind", "metadata") else x) for k, x in v.items()}
    if isinstance(v, list):
        return [plant(x) for x in v]
    return "a" * 40 + "b" if isinstance(v, str) else v
yaml.safe_dump(plant(d), open(sys.argv[2], "w"))
PY
expect2 "ran past 2 s in Python's backtracking engine" --crd "$out/backtrack.yaml" "$out/aaa.yaml"
[ $((SECONDS - start)) -lt 30 ] || fail "the hostile files took $((SECONDS - start)) s"
mkdir "$out/bare"
grep -v '^            \(apiVersion\|kind\): {type: string}' "$fx/widgets.example.ccbench.io.yaml" > "$out/bare/widgets.yaml"
"${check[@]}" --crd "$out/bare" "$fx/widget-valid.yaml" > "$out/bare.txt" 2>&1 ||
  { cat "$out/bare.txt"; fail "apiVersion and kind flagged where the CRD's schema does not list them"; }
printf 'apiVersion: example.ccbench.io/v1\nkind: Widget\nmetadata: {name: twice}\nspec: {size: 1}\nspec: {size: 2}\n' > "$out/twice.yaml"
expect2 "key 'spec' given twice in one mapping (first at line 4" --crd "$fx" "$out/twice.yaml"
echo "k8s_crd_check: ok"

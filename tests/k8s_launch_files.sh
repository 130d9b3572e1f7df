#!/usr/bin/env bash
# The Kubernetes launch files (scripts/launch/*.yaml), checked offline (no API
# server exists here; docs/acceptance.md "Launch templates"): each is read by
# kubectl's own decoder (kubectl label --local), then what a GPU job needs is
# required of it. Kubeflow's MPIJob v2beta1: the launcher created once the
# workers are Ready, mpirun -np = slotsPerWorker x workers, one GPU per slot,
# /dev/shm as memory, workers on the host's network (the verdict's hosts are
# the nodes). Kubeflow Trainer's TrainJob on trainjob-runtime.yaml: the runtime
# it names, -np = numNodes x numProcPerNode, that many GPUs per node, the
# launcher after the nodes are Ready, the host network and /dev/shm in every
# pod. The command is a ccbench one. Schemas: tests/k8s_crd_check.sh.
#   k8s_launch_files.sh LAUNCH_DIR
set -uo pipefail
dir=$1
command -v kubectl > /dev/null || { echo "SKIP: kubectl is not installed"; exit 77; }
out=$(mktemp -d /tmp/ccbench-launch.XXXXXX)
trap 'rm -rf "$out"' EXIT
for f in "$dir"/*.yaml; do
  kubectl label --local -f "$f" -o json checked=yes > "$out/$(basename "$f" .yaml).json" 2> "$out/err" ||
    { cat "$out/err"; echo "FAIL: kubectl cannot read $f"; exit 1; }
done
python3 - "$out" <<'PY' || exit 1
import glob, json, os, sys
docs = {os.path.basename(f)[:-5]: json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*.json")}
def need(cond, name, what):
    if not cond:
        print(f"FAIL: {name}: {what}")
        sys.exit(1)
def mpirun_np(name, cmd):
    need(cmd[0] == "mpirun" and "-np" in cmd, name, "the launcher does not run mpirun -np")
    need("ccbench" in cmd, name, "mpirun does not run ccbench")
    return int(cmd[cmd.index("-np") + 1])
def gpu_pod(name, pod, gpus, where):
    need(pod.get("hostNetwork") is True and pod.get("dnsPolicy") == "ClusterFirstWithHostNet", name,
         f"{where} off the host network (hostNetwork with dnsPolicy ClusterFirstWithHostNet)")
    c = pod["containers"][0]
    need(int(c.get("resources", {}).get("limits", {}).get("nvidia.com/gpu", 0)) == gpus, name,
         f"{where}: nvidia.com/gpu is not {gpus}")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    shm = [m["name"] for m in c.get("volumeMounts", []) if m["mountPath"] == "/dev/shm"]
    need(shm and vols[shm[0]].get("emptyDir", {}).get("medium") == "Memory", name, f"{where}: /dev/shm is not a memory emptyDir")

def mpijob(name, j):
    need(j["apiVersion"] == "kubeflow.org/v2beta1", name, "not a kubeflow.org/v2beta1 MPIJob")
    s = j["spec"]
    need(s.get("launcherCreationPolicy") == "WaitForWorkersReady", name, "the launcher must wait for the workers (launcherCreationPolicy)")
    slots, specs = s["slotsPerWorker"], s["mpiReplicaSpecs"]
    need(set(specs) == {"Launcher", "Worker"}, name, "replica specs other than Launcher and Worker")
    workers = specs["Worker"]["replicas"]
    np = mpirun_np(name, specs["Launcher"]["template"]["spec"]["containers"][0]["command"])
    need(np == slots * workers, name, f"-np {np} is not slotsPerWorker x workers = {slots * workers}")
    gpu_pod(name, specs["Worker"]["template"]["spec"], slots, "the workers")
    return f"MPIJob, {workers} workers x {slots} GPUs, mpirun -np {np}"

def trainjob(name, j):
    need(j["apiVersion"] == "trainer.kubeflow.org/v1alpha1", name, "not a trainer.kubeflow.org/v1alpha1 TrainJob")
    ref, t = j["spec"]["runtimeRef"], j["spec"]["trainer"]
    runtimes = {d["metadata"]["name"]: d for d in docs.values() if d["kind"] == "TrainingRuntime"}
    need(ref.get("kind") == "TrainingRuntime" and ref["name"] in runtimes, name, f"runtimeRef {ref} is not a TrainingRuntime in the launch files")
    rt = runtimes[ref["name"]]["spec"]
    mpi = rt["mlPolicy"]["mpi"]
    nodes, slots = t.get("numNodes", rt["mlPolicy"].get("numNodes", 1)), mpi["numProcPerNode"]
    need("numProcPerNode" not in t, name, "trainer.numProcPerNode overrides the runtime's slots (and is an int-or-string before Trainer v2.2)")
    need(mpi.get("runLauncherAsNode") is True, name, "the runtime's launcher is not node 0 (runLauncherAsNode)")
    np = mpirun_np(name, t["command"])
    need(np == nodes * slots, name, f"-np {np} is not numNodes x numProcPerNode = {nodes * slots}")
    need(int(t["resourcesPerNode"]["limits"]["nvidia.com/gpu"]) == slots, name, f"resourcesPerNode's nvidia.com/gpu is not numProcPerNode {slots}")
    jobs = {r["name"]: r for r in rt["template"]["spec"]["replicatedJobs"]}
    need(set(jobs) == {"launcher", "node"}, name, "the runtime's replicated jobs are not launcher and node")
    need({"name": "node", "status": "Ready"} in jobs["launcher"].get("dependsOn", []), name, "the launcher does not wait for the nodes to be Ready")
    need(jobs["launcher"]["template"]["metadata"]["labels"].get("trainer.kubeflow.org/trainjob-ancestor-step") == "trainer", name,
         "the launcher is not the trainer step (the TrainJob's command would land elsewhere)")
    for job in ("launcher", "node"):
        pod = jobs[job]["template"]["spec"]["template"]["spec"]
        need(pod["containers"][0]["name"] == "node", name, f"the {job}'s container is not named node (the Trainer fills that one)")
        gpu_pod(name, pod, slots, f"the runtime's {job} pods")
    return f"TrainJob on {ref['name']}, {nodes} nodes x {slots} GPUs, mpirun -np {np}"

count = {"MPIJob": 0, "TrainJob": 0}
for name, j in sorted(docs.items()):
    if j["kind"] in count:
        print(f"{name}: {(mpijob if j['kind'] == 'MPIJob' else trainjob)(name, j)}: ok")
        count[j["kind"]] += 1
need(count == {"MPIJob": 2, "TrainJob": 2}, "scripts/launch", f"expected a sweep and an acceptance of each kind, found {count}")
PY
echo "k8s_launch_files: ok"

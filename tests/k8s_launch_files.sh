#!/usr/bin/env bash
# The Kubernetes launch files (scripts/launch/*-mpijob.yaml), checked offline
# (no API server exists here; docs/acceptance.md "Launch templates"): each is
# read by kubectl's own decoder (kubectl label --local), then what a GPU job
# needs is required of it: Kubeflow's MPIJob v2beta1, the launcher created
# once the workers are Ready, mpirun -np = slotsPerWorker x workers, one GPU
# per slot requested, /dev/shm as memory, workers on the host's network (the
# verdict's hosts are the nodes), and the command a ccbench one.
#   k8s_launch_files.sh LAUNCH_DIR
set -uo pipefail
dir=$1
command -v kubectl > /dev/null || { echo "SKIP: kubectl is not installed"; exit 77; }
out=$(mktemp -d /tmp/ccbench-launch.XXXXXX)
trap 'rm -rf "$out"' EXIT
n=0
for f in "$dir"/*-mpijob.yaml; do
  kubectl label --local -f "$f" -o json checked=yes > "$out/job.json" 2> "$out/err" ||
    { cat "$out/err"; echo "FAIL: kubectl cannot read $f"; exit 1; }
  python3 - "$out/job.json" "$f" <<'PY' || exit 1
import json, sys
j, name = json.load(open(sys.argv[1])), sys.argv[2]
def need(cond, what):
    if not cond:
        print(f"FAIL: {name}: {what}")
        sys.exit(1)
need(j["apiVersion"] == "kubeflow.org/v2beta1" and j["kind"] == "MPIJob", "not a kubeflow.org/v2beta1 MPIJob")
s = j["spec"]
need(s.get("launcherCreationPolicy") == "WaitForWorkersReady", "the launcher must wait for the workers (launcherCreationPolicy)")
slots, specs = s["slotsPerWorker"], s["mpiReplicaSpecs"]
need(set(specs) == {"Launcher", "Worker"}, "replica specs other than Launcher and Worker")
workers = specs["Worker"]["replicas"]
launcher = specs["Launcher"]["template"]["spec"]["containers"][0]
cmd = launcher["command"]
need(cmd[0] == "mpirun" and "-np" in cmd, "the launcher does not run mpirun -np")
need(int(cmd[cmd.index("-np") + 1]) == slots * workers, f"-np {cmd[cmd.index('-np') + 1]} is not slotsPerWorker x workers = {slots * workers}")
need("ccbench" in cmd, "mpirun does not run ccbench")
w = specs["Worker"]["template"]["spec"]
need(w.get("hostNetwork") is True and w.get("dnsPolicy") == "ClusterFirstWithHostNet",
     "workers off the host network (hostNetwork with dnsPolicy ClusterFirstWithHostNet)")
c = w["containers"][0]
need(int(c["resources"]["limits"].get("nvidia.com/gpu", 0)) == slots, "the workers' nvidia.com/gpu is not slotsPerWorker")
vols = {v["name"]: v for v in w.get("volumes", [])}
shm = [m["name"] for m in c.get("volumeMounts", []) if m["mountPath"] == "/dev/shm"]
need(shm and vols[shm[0]].get("emptyDir", {}).get("medium") == "Memory", "/dev/shm is not a memory emptyDir")
print(f"{name}: MPIJob, {workers} workers x {slots} GPUs, mpirun -np {slots * workers}: ok")
PY
  n=$((n + 1))
done
[ $n -ge 2 ] || { echo "FAIL: expected the sweep and the acceptance MPIJob, found $n"; exit 1; }
echo "k8s_launch_files: ok"

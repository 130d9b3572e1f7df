#!/usr/bin/env bash
# An emulated cluster on one machine: N network namespaces as hosts, each
# with its own hostname (emu-h1..emu-hN, a UTS namespace per launch) and
# address, joined by veth pairs through a bridge, optionally shaped with tc
# (htb, both directions) and with a chosen MTU; then mpirun across them.
#
#   scripts/emu-cluster.sh [options] -- MPIRUN-ARGS...
#   scripts/emu-cluster.sh --slurm [options] -- COMMAND...
#
#   -n N                 hosts (default 4)
#   --slots S            ranks per host in the hostfile (default 1)
#   --rate RATE          shape every host's link to RATE (tc units: 800mbit, 1gbit)
#   --throttle I=RATE    shape host I (1..N) to RATE instead (repeatable)
#   --mtu M              MTU of every link (default 1500)
#   --in-host-rate RATE  ranks of one host talk over TCP through its loopback,
#                        shaped to RATE, instead of shared memory (time-dilated
#                        emulation: every transfer shaped, docs/validation.md)
#   --slurm              a real Slurm instead of mpirun: munged, slurmctld and one
#                        slurmd per host (inside its namespaces, its own /tmp), a
#                        generated slurm.conf (partition emu, CPUs = --slots,
#                        at least 2) and topology.conf (--switch); COMMAND runs on
#                        this machine with SLURM_CONF set, so srun, sbatch, scontrol
#                        and ccbench's step controller reach that cluster; EMU_TAG
#                        names the hosts' namespaces ${EMU_TAG}hI and bridge ends
#                        ${EMU_TAG}vI (to reshape a link while it runs)
#   --switch LIST=NAME   hosts LIST (I-J, or I,J,...) hang off switch NAME
#                        (topology.conf; repeatable)
#   --health-check P     slurmd runs P as HealthCheckProgram every 30 s (--slurm;
#                        EMU_HEALTH_INTERVAL=S for another interval)
#
# Several clusters coexist: each claims an id of its own (a lock folder under
# /run/ccbench-emu, made atomically; EMU_ID_HINT=20..219 says which to try
# first, for tests) and removes only what it created.
#
# mpirun gets a hostfile of the hosts' addresses, an rsh agent that enters the
# host's namespaces (ip netns exec + unshare --uts), and Open MPI's out-of-band
# and TCP BTL restricted to the emulated subnet; shared memory stays within a
# host. Ranks yield when idle (mpi_yield_when_idle): the hosts share this
# machine's few cores with the kernel's packet processing, and busy-polling
# ranks would delay every packet by a scheduler tick (4 ms seen here). Exit code: mpirun's; 77 when namespaces cannot be made here (not root,
# no ip/tc/unshare, no netns support): the reason goes to stderr.
# Everything it creates is removed when it exits, also on failure or signal.
set -uo pipefail

hosts=4 slots=1 rate="" in_host_rate="" mtu=1500 slurm=0 health="" health_interval=${EMU_HEALTH_INTERVAL:-30}
declare -A throttle=()
switches=()
while [ $# -gt 0 ]; do
  case "$1" in  # an option without its value: said, not looped on
    -n|--slots|--rate|--in-host-rate|--throttle|--mtu|--switch|--health-check)
      [ $# -ge 2 ] || { echo "$(basename "$0" .sh): $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
    -n) hosts=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --in-host-rate) in_host_rate=$2; shift 2 ;;
    --throttle) throttle[${2%%=*}]=${2#*=}; shift 2 ;;
    --mtu) mtu=$2; shift 2 ;;
    --slurm) slurm=1; shift ;;
    --switch) switches+=("$2"); shift 2 ;;
    --health-check) health=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "emu-cluster: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "emu-cluster: give mpirun's arguments (--slurm: a command) after --" >&2; exit 2; }
case "$hosts" in ''|*[!0-9]*) echo "emu-cluster: -n '$hosts': not a number" >&2; exit 2 ;; esac
[ "$hosts" -ge 1 ] && [ "$hosts" -le 64 ] || { echo "emu-cluster: -n $hosts: 1 to 64 hosts" >&2; exit 2; }
case "$mtu" in ''|*[!0-9]*) echo "emu-cluster: --mtu '$mtu': a number of bytes, 68 to 65535" >&2; exit 2 ;; esac
[ "$mtu" -ge 68 ] && [ "$mtu" -le 65535 ] || { echo "emu-cluster: --mtu $mtu: 68 to 65535 bytes" >&2; exit 2; }
for i in "${!throttle[@]}"; do
  case "$i" in ''|*[!0-9]*) echo "emu-cluster: --throttle '$i': host index 1..$hosts" >&2; exit 2 ;; esac
  [ "$i" -ge 1 ] && [ "$i" -le "$hosts" ] || { echo "emu-cluster: --throttle $i: host index 1..$hosts" >&2; exit 2; }
done

skip() { echo "emu-cluster: SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, tc)"
for tool in ip tc unshare mpirun; do command -v $tool >/dev/null || skip "'$tool' is not installed"; done

# Names and a /24 unique to this invocation, so that two clusters can coexist:
# the id is claimed with mkdir (atomic); a claim whose owner is gone is taken
# over; an id whose bridge exists (a cluster of an older script) is skipped.
locks=/run/ccbench-emu
mkdir -p "$locks" || skip "cannot make $locks"
start=${EMU_ID_HINT:-$(( ($$ % 200) + 20 ))}
case "$start" in ''|*[!0-9]*) start=20 ;; esac
id=""
for k in $(seq 0 199); do
  candidate=$(( (start - 20 + k) % 200 + 20 ))
  ip link show "cce${candidate}br" > /dev/null 2>&1 && continue
  if ! mkdir "$locks/$candidate" 2> /dev/null; then
    owner=$(cat "$locks/$candidate/pid" 2> /dev/null)
    [ -n "$owner" ] && kill -0 "$owner" 2> /dev/null && continue
    rm -rf "$locks/$candidate"  # its owner is gone
    mkdir "$locks/$candidate" 2> /dev/null || continue
  fi
  echo $$ > "$locks/$candidate/pid"
  id=$candidate
  break
done
[ -n "$id" ] || { echo "emu-cluster: no free cluster id (200 in use: $locks)" >&2; exit 1; }
tag="cce${id}"
subnet="10.213.${id}"
bridge="${tag}br"
made=()  # the namespaces and bridge this run made: the only ones it removes
child=""
# Not under /tmp: a Slurm node's /tmp is its own (scripts/emu-slurm.sh).
work=$(mktemp -d "/var/tmp/${tag}.XXXXXX")
here=$(cd "$(dirname "$0")" && pwd)
[ "$slurm" = 1 ] && . "$here/emu-slurm.sh"

cleanup() {
  [ "$slurm" = 1 ] && stop_slurm
  for thing in "${made[@]}"; do
    case "$thing" in
      netns:*) ip netns del "${thing#netns:}" 2>/dev/null ;;
      link:*) ip link del "${thing#link:}" 2>/dev/null ;;
    esac
  done
  rm -rf "$work" "$locks/$id"
}
# A signal ends mpirun before the cluster goes: no orphan is left to talk to
# namespaces that are gone (--slurm's command runs in the foreground and is
# waited for; stopping Slurm ends its steps).
on_signal() {
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  exit "$1"
}
trap cleanup EXIT
trap 'on_signal 129' HUP
trap 'on_signal 143' TERM
trap 'on_signal 130' INT

ip netns add "${tag}probe" 2>/dev/null || skip "cannot create network namespaces here ($(ip netns add "${tag}probe2" 2>&1 | head -1))"
ip netns del "${tag}probe"
ip link add "$bridge" type bridge 2>/dev/null || skip "cannot create a bridge (no bridge support in this kernel?)"
made+=("link:$bridge")
ip link set "$bridge" mtu "$mtu" || { echo "emu-cluster: --mtu $mtu: the bridge refused it" >&2; exit 2; }
ip addr add "${subnet}.254/24" dev "$bridge"
ip link set "$bridge" up

shape() {  # shape DEV RATE [NETNS]: htb root qdisc, everything in one class at RATE
  local dev=$1 r=$2 ns=${3:-}
  local run=()
  [ -n "$ns" ] && run=(ip netns exec "$ns")
  "${run[@]}" tc qdisc add dev "$dev" root handle 1: htb default 1 &&
    "${run[@]}" tc class add dev "$dev" parent 1: classid 1:1 htb rate "$r" ceil "$r" quantum 60000
}

: > "$work/hostfile"
{
  echo '#!/bin/sh'
  echo '# Open MPI rsh agent: AGENT HOST COMMAND... runs COMMAND in the host'"'"'s namespaces.'
  echo 'host=$1; shift'
  echo 'case "$host" in'
} > "$work/agent"
for i in $(seq 1 "$hosts"); do
  ns="${tag}h$i" addr="${subnet}.$i" name="emu-h$i"
  ip netns add "$ns" || { echo "emu-cluster: cannot create namespace $ns" >&2; exit 1; }
  made+=("netns:$ns")
  ip link add "${tag}v$i" type veth peer name "${tag}p$i" || { echo "emu-cluster: cannot create veth" >&2; exit 1; }
  ip link set "${tag}p$i" netns "$ns"
  made+=("link:${tag}v$i")
  ip link set "${tag}v$i" master "$bridge" mtu "$mtu" up || { echo "emu-cluster: --mtu $mtu: refused" >&2; exit 2; }
  ip netns exec "$ns" ip link set lo up
  if [ -n "$in_host_rate" ]; then  # a host's own traffic (its address included) goes through lo
    shape lo "$in_host_rate" "$ns" || { echo "emu-cluster: --in-host-rate '$in_host_rate' rejected" >&2; exit 2; }
  fi
  ip netns exec "$ns" ip link set "${tag}p$i" name eth0 mtu "$mtu" up
  ip netns exec "$ns" ip addr add "$addr/24" dev eth0
  r=${throttle[$i]:-$rate}
  if [ -n "$r" ]; then
    shape "${tag}v$i" "$r" || { echo "emu-cluster: tc rate '$r' rejected" >&2; exit 2; }
    shape eth0 "$r" "$ns" || exit 2
  fi
  echo "$addr slots=$slots" >> "$work/hostfile"
  echo "  $addr|$name) exec ip netns exec $ns unshare --uts /bin/sh -c \"hostname $name && exec \$*\" ;;" >> "$work/agent"
  echo "emu-cluster: $name = $addr (namespace $ns${r:+, rate $r}, mtu $mtu)" >&2
done
{
  echo '  *) echo "emu-cluster agent: unknown host $host" >&2; exit 1 ;;'
  echo 'esac'
} >> "$work/agent"
chmod +x "$work/agent"

# Open MPI as root needs the confirmation variables; keep the ones set.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
btls=self,vader,tcp
[ -n "$in_host_rate" ] && btls=self,tcp  # no shared memory: in-host messages cross the shaped loopback
if [ "$slurm" = 1 ]; then
  start_slurm || exit 1
  # What mpirun's flags below say, for ranks that srun starts (srun passes
  # the environment on).
  export OMPI_MCA_btl_tcp_if_include="${subnet}.0/24" OMPI_MCA_btl=$btls \
    OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_mpi_yield_when_idle=1
  # Host I is namespace ${EMU_TAG}hI, its bridge end ${EMU_TAG}vI (tc on both).
  export EMU_TAG="$tag"
  "$@"  # in the foreground, as salloc and sbatch --wait expect; a signal waits for it
  exit $?
fi
mpirun --hostfile "$work/hostfile" \
  --mca plm_rsh_agent "$work/agent" --mca plm_rsh_no_tree_spawn 1 \
  --mca oob_tcp_if_include "${subnet}.0/24" --mca btl_tcp_if_include "${subnet}.0/24" \
  --mca btl "$btls" --mca btl_vader_single_copy_mechanism none \
  --mca odls_base_sigkill_timeout 5 --mca mpi_yield_when_idle 1 \
  "$@" < /dev/stdin &
child=$!
wait "$child"

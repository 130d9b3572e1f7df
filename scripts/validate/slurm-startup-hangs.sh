#!/usr/bin/env bash
# Job steps that hang in MPI start-up on the emulated Slurm, with Open MPI's
# default against OMPI_MCA_mpi_add_procs_cutoff=100000 (docs/running.md
# "The emulated Slurm"): ROUNDS rounds (default 30) of two concurrent
# 2-node sweep steps (emu-h1 + emu-h2, emu-h3 + emu-h4) per setting, the
# order alternating, each bounded at 20 s, while `ctest -L mpi` loads the
# machine. Prints each setting's count of hung steps. Needs the build in
# build/, root, slurm-wlm and munge. About 8 min at 30 rounds.
# Usage: scripts/validate/slurm-startup-hangs.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-30}
root=$PWD
work=$(mktemp -d /var/tmp/ccbench-startup-hangs.XXXXXX)
trap 'touch "$work/stop"; wait; rm -rf "$work"' EXIT
(cd build && while [ ! -f "$work/stop" ]; do ctest -L mpi -j1 --timeout 300 >/dev/null 2>&1; done) &
cat > "$work/steps.sh" <<'EOS'
cd "$WORK" || exit 1
for i in $(seq 1 "$ROUNDS"); do
  order="default cutoff"; [ $((i % 2)) = 0 ] && order="cutoff default"
  for setting in $order; do
    envs=OMPI_MCA_mpi_add_procs_cutoff=0
    [ "$setting" = cutoff ] && envs=OMPI_MCA_mpi_add_procs_cutoff=100000
    for pair in emu-h1,emu-h2 emu-h3,emu-h4; do
      ( env "$envs" timeout 20 srun --nodelist=$pair --nodes=2 --ntasks=2 --ntasks-per-node=1 --time=2 \
          --kill-on-bad-exit=1 "$CCBENCH" all_reduce -b 256K -e 256K -n 4 -w 1 >/dev/null 2>&1
        echo "$setting $? $pair" >> results.txt ) &
    done
    wait
  done
done
EOS
scripts/emu-cluster.sh -n 4 --slurm -- env CCBENCH="$root/build/ccbench" WORK="$work" ROUNDS="$rounds" \
  salloc -N 4 sh "$work/steps.sh" >"$work/emu.log" 2>&1 || { tail -5 "$work/emu.log"; exit 1; }
for s in default cutoff; do
  echo "$s: $(awk -v s=$s '$1 == s && $2 == 124' "$work/results.txt" | wc -l) of $(awk -v s=$s '$1 == s' "$work/results.txt" | wc -l) steps hung (20 s bound)"
done

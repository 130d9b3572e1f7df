#!/usr/bin/env bash
# Acceptance with plain mpirun and a hostfile: one rank per GPU on every node.
#   scripts/launch/accept-mpirun.sh HOSTFILE SPEC.yaml [OUT_DIR]
# HOSTFILE lines: "node01 slots=8". Results are written on the first node
# (rank 0) under OUT_DIR; ccbench's exit code is this script's (0 accepted,
# 1 rejected, 2 spec or run error).
set -euo pipefail
hostfile=$1 spec=$2 out=${3:-accept-$(date +%Y%m%d-%H%M%S)}
gpus_per_node=${GPUS_PER_NODE:-8}
exec mpirun --hostfile "$hostfile" --map-by ppr:"$gpus_per_node":node --bind-to none \
  --mca odls_base_sigkill_timeout 5 -x PATH -x LD_LIBRARY_PATH -x NCCL_DEBUG=WARN \
  ccbench accept "$spec" --out "$out"

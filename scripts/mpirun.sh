#!/usr/bin/env bash
# mpirun with what a single machine needs: more ranks than cores allowed,
# root allowed (Open MPI refuses root unless told), no CMA single-copy (fails
# in containers without ptrace rights).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
exec mpirun --oversubscribe "$@"

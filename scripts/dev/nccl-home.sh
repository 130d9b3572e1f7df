# shellcheck shell=bash
# Sourced by scripts/dev/gpu-check.sh and scripts/validate/nccl-tests-parity.sh: where NCCL
# is. $NCCL_HOME when set; else the CUDA toolkit's (/usr/local/cuda/include/nccl.h);
# else the one Python's nvidia-nccl wheel carries, linked as deps/nccl
# (include/ and lib/libnccl.so), with its lib/ put on LD_LIBRARY_PATH so that
# the programs built against it find libnccl.so.2 when they run.
# Expects to be sourced from the repository root.
if [ -z "${NCCL_HOME:-}" ] && [ ! -e /usr/local/cuda/include/nccl.h ] && command -v python3 >/dev/null; then
  wheel=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
  if [ -n "$wheel" ] && [ -e "$wheel/include/nccl.h" ]; then
    mkdir -p deps/nccl/lib
    ln -sfn "$wheel/include" deps/nccl/include
    ln -sf "$wheel/lib/libnccl.so.2" deps/nccl/lib/libnccl.so
    export NCCL_HOME=$PWD/deps/nccl LD_LIBRARY_PATH=$wheel/lib:${LD_LIBRARY_PATH:-}
    echo "NCCL from the Python wheel in $wheel" >&2
  fi
fi

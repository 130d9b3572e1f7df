# shellcheck shell=bash
# Sourced by scripts/dev/gpu-check.sh --rehearse: this machine as a bare GPU
# machine sees it (CUDA, NCCL, CMake, ninja, a compiler, Python; no MPI,
# hwloc, yaml-cpp, liburing or pkg-config; fmt, CLI11, nlohmann-json,
# GoogleTest, yaml-cpp and liburing only as staged in deps/ by --stage).
#   PATH               a folder of links to every program but MPI's and pkg-config
#   BARE_CMAKE_FLAGS   CMake ignores the system's prefixes (/usr and /, which
#                      /lib and /bin lead to) for every find_*: packages there
#                      are not found; /usr/local/cuda is its own prefix
bare_bin=$BUILD/bare-bin
rm -rf "$bare_bin"
mkdir -p "$bare_bin"
for dir in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
  for f in "$dir"/*; do
    name=${f##*/}
    case $name in
      mpirun | mpiexec | mpicc | mpicxx | mpic++ | orterun | oshrun | ompi_info | pkg-config | pkgconf | \
        *-pkg-config | hwloc-* | lstopo*) continue ;;
    esac
    [ -e "$bare_bin/$name" ] || ln -s "$f" "$bare_bin/$name"
  done
done
export PATH=/usr/local/cuda/bin:$PWD/$bare_bin
BARE_CMAKE_FLAGS=("-DCMAKE_IGNORE_PREFIX_PATH=/usr;/" -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON)

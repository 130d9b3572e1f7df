#!/usr/bin/env bash
# Installs what ccbench needs from Debian packages (only what is missing),
# then configures and builds it in ./build (not with --packages-only; only
# target T with --target T). Works as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config openmpi-bin libopenmpi-dev libhwloc-dev
          libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev iproute2
          libyaml-cpp-dev gnuplot-nox liburing-dev libsqlite3-dev libpq-dev)
# Extra packages a caller needs (scripts/test.sh: chromium for the report screenshot test).
read -r -a extra <<< "${CCBENCH_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "${1:-}" = "--packages-only" ] && exit 0
targets=()
if [ "${1:-}" = "--target" ]; then
  targets=(--target "$2")
  shift 2
fi

cmake_args=(-S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release)
[ "${CI:-}" = "true" ] && cmake_args+=(-DCCBENCH_WERROR=ON)
cmake "${cmake_args[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)" "${targets[@]}"

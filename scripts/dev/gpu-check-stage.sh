#!/usr/bin/env bash
# scripts/dev/gpu-check.sh --stage [PEERS]: copies into deps/ (ignored by git,
# carried to the GPU machine) what a bare GPU machine lacks: the headers of
# fmt, CLI11, nlohmann-json, GoogleTest, yaml-cpp and liburing, and the static
# libraries of GoogleTest, yaml-cpp and liburing (fmt is then header-only);
# with PEERS, the nccl-tests source archive from that folder (for
# scripts/validate/nccl-tests-parity.sh). Prints what it staged and the size,
# which must stay under the device tool's 64 MiB for carried paths.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p deps/include deps/lib deps/peers
if [ -n "${1:-}" ]; then
  ls "$1"/nccl-tests-*.tar.gz >/dev/null 2>&1 || { echo "gpu-check --stage: no nccl-tests-*.tar.gz in $1" >&2; exit 2; }
  cp "$1"/nccl-tests-*.tar.gz deps/peers/
fi
missing=""
for h in fmt CLI nlohmann gtest gmock yaml-cpp liburing liburing.h; do
  if [ -e "/usr/include/$h" ]; then cp -r "/usr/include/$h" deps/include/; else missing+=" $h"; fi
done
for l in libgtest.a libgtest_main.a libyaml-cpp.a liburing.a; do
  f=$(ls /usr/lib/*/$l 2>/dev/null | head -1 || true)
  if [ -n "$f" ]; then cp "$f" deps/lib/; else missing+=" $l"; fi
done
size=$(du -sm deps | cut -f1)
echo "staged into deps/ (${size} MiB): $(ls deps/include deps/lib deps/peers | grep -v ':$' | tr '\n' ' ')"
[ -z "$missing" ] || echo "not staged (not installed here):$missing" >&2
[ "$size" -lt 64 ] || { echo "gpu-check --stage: deps/ is ${size} MiB, over the 64 MiB a device call carries" >&2; exit 1; }

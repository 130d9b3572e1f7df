#!/usr/bin/env bash
# The code's floors, bottom up: common/ < kernels/ < collectives/ < results/ <
# io/ < harness/ < bench/. A file may include its own floor and the ones below,
# never one above. Fails naming every include that breaks the rule.
set -uo pipefail
cd "$(dirname "$0")/.."
declare -A above=(
  [common]="kernels collectives results io harness bench"
  [kernels]="collectives results io harness bench"
  [collectives]="results io harness bench"
  [results]="io harness bench"
  [io]="collectives harness bench"
)
bad=0
for floor in common kernels collectives results io; do
  for up in ${above[$floor]}; do
    hits=$(grep -rn --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.in' "#include \"$up/" "$floor" 2>/dev/null)
    if [ -n "$hits" ]; then
      echo "FAIL: $floor/ includes $up/ (a floor above it):"
      echo "$hits"
      bad=1
    fi
  done
done
[ $bad = 0 ] && echo "floors: common < kernels < collectives < results < io < harness hold (io/ uses no backend)"
exit $bad

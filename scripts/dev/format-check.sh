#!/usr/bin/env bash
# The house style (.clang-format) holds for every C++ and CUDA source in git:
# names each file clang-format would change and exits 1; exit 77 (skipped,
# reason printed) without clang-format 14, Debian 12's, whose output the tree
# follows (other versions format some constructs differently).
#   scripts/dev/format-check.sh         check (ctest format.check)
#   scripts/dev/format-check.sh FILE... check these files (ctest format.check_fails
#                                   proves a misformatted one fails)
#   scripts/dev/format-check.sh --fix   rewrite the files in place
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
command -v clang-format > /dev/null || { echo "format-check: SKIP: clang-format is not installed" >&2; exit 77; }
version=$(clang-format --version | grep -o 'version [0-9]*' | grep -o '[0-9]*')
[ "$version" = 14 ] || { echo "format-check: SKIP: clang-format $version, not 14" >&2; exit 77; }
if [ $# -gt 0 ] && [ "$1" != --fix ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
fi
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "format-check: $f is not in the house style (scripts/dev/format-check.sh --fix)"
    bad=1
  fi
done
[ $bad = 0 ] && echo "format-check: ${#files[@]} files in the house style"
exit $bad

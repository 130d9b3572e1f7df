#!/usr/bin/env bash
# The docs check can fail: a tree with one planted fault of each kind (a link
# to a missing file, an anchor with no heading, a path not in the tree, a flag
# ccbench does not declare, an exit-code table that leaves out a code, an
# environment variable the docs do not name, one read outside its declaration)
# gives exactly those seven problems and exit 1.
# Usage: docs_check_selftest.sh REPO_ROOT
set -u
root=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/common" "$dir/docs" "$dir/harness" "$dir/tests"
cp "$root/common/errors.hpp" "$dir/common/"
printf 'app.add_option("--out", out);\nconst char* x = getenv("CCBENCH_STRAY");\n' >"$dir/harness/cli.cpp"
printf '{EnvVar::a, "CCBENCH_NAMED"}, {EnvVar::b, "CCBENCH_UNNAMED"}\n' >"$dir/common/environment.hpp"
printf '# Running\n`CCBENCH_NAMED` does this.\n' >"$dir/docs/running.md"
sed -n '/^| exit code/,/^$/p' "$root/docs/failures.md" | grep -v '^| 5 |' >"$dir/docs/failures.md"
cat >"$dir/docs/a.md" <<'MD'
# A page
See [b](b.md), [the page](a.md#a-page) and [no heading](a.md#no-such-heading).
Run `tests/not-here.sh`, then `ccbench all_reduce --out x --no-such-flag`.
MD
out=$(python3 "$root/tests/docs_check.py" "$dir")
rc=$?
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
[ $rc = 1 ] || fail "exit $rc, expected 1"
grep -q '^docs/a.md:2: link b.md: docs/b.md does not exist$' <<<"$out" || fail "missing file not found"
grep -q "^docs/a.md:2: link a.md#no-such-heading: no heading 'no-such-heading' in docs/a.md$" <<<"$out" || fail "missing anchor not found"
grep -q '^docs/a.md:3: names tests/not-here.sh, which is not in the tree$' <<<"$out" || fail "missing path not found"
grep -q '^docs/a.md:3: --no-such-flag is not a flag of ccbench$' <<<"$out" || fail "unknown flag not found"
grep -q '^docs/failures.md: exit-code table names .*, common/errors.hpp defines .*5' <<<"$out" || fail "exit-code table not checked"
grep -q '^docs/running.md: does not name CCBENCH_UNNAMED' <<<"$out" || fail "undocumented variable not found"
grep -q '^harness/cli.cpp: reads CCBENCH_STRAY itself' <<<"$out" || fail "variable read outside its declaration not found"
[ "$(grep -c . <<<"$out")" = 8 ] || fail "expected 7 problems and the summary line"
# A quantities block that is not what ccbench's help prints (a fake ccbench
# that prints another definition) is found.
mkdir -p "$dir/bin"
printf '#!/bin/sh\nprintf "Quantities (one definition each):\\ntime_us (us): the pipelined time.\\n\\n"\n' >"$dir/bin/ccbench"
chmod +x "$dir/bin/ccbench"
printf '# Q\n<!-- quantities -->\n```\ntime_us (us): the median per-iteration time of the slowest rank.\n```\n<!-- /quantities -->\n' >"$dir/docs/q.md"
out=$(python3 "$root/tests/docs_check.py" "$dir" "$dir/bin/ccbench")
grep -q "^docs/q.md:2: the quantities block is not" <<<"$out" || fail "a stale quantities block not found"
# A README whose table of pages leaves a page of docs/ out is found.
printf '# R\n| [docs/a.md](docs/a.md) | a page |\n' >"$dir/README.md"
out=$(python3 "$root/tests/docs_check.py" "$dir")
grep -q "^README.md: its table of pages does not list docs/running.md$" <<<"$out" || fail "a page missing from the README's table not found"
grep -q "does not list docs/a.md" <<<"$out" && fail "a listed page reported"
# A layout in docs/development.md that leaves out a page of docs/ or a validate script is found.
mkdir -p "$dir/scripts/validate" && touch "$dir/scripts/validate/check-a.sh" "$dir/scripts/validate/check-b.py"
printf '# D\n```\ndocs/      pages: running, a, q,\n           failures\nscripts/validate/  check-a\n```\n' >"$dir/docs/development.md"
out=$(python3 "$root/tests/docs_check.py" "$dir")
grep -q "^docs/development.md: its layout's docs/ does not name development$" <<<"$out" &&
  grep -q "^docs/development.md: its layout's scripts/validate/ does not name check-b$" <<<"$out" ||
  fail "a page or a script missing from the layout not found"
grep -q "does not name \(running\|failures\|check-a\)" <<<"$out" && fail "a named page or script reported"
echo "docs check self-test: ok"

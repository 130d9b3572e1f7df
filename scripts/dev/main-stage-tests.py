#!/usr/bin/env python3
"""The tests CI's main stage runs (scripts/test.sh), as a ctest -I file.

  scripts/dev/main-stage-tests.py MAIN_BUILD SANITIZE_BUILD > FILE
  (cd MAIN_BUILD && ctest -I FILE ...)

Every test runs once in scripts/test.sh: a test the sanitizer stage runs
(registered in SANITIZE_BUILD and not matched by scripts/dev/sanitize-skip.txt)
is left to it, except the GoogleTest units and the error rows (label "unit",
"error"): only the main build compiles CUDA and NCCL, and without a GPU its
units and error rows take paths the sanitizer build (CUDA off) has not. The
main stage runs the rest: what the sanitizers skip (timing, scale, sources) and
what only the main build registers (GPU tests, benchmarks). Prints on stderr
how many tests each stage takes. Exit 2 on a build folder without tests.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP_LABELS = {"unit", "error"}


def skip_patterns():
    with open(os.path.join(HERE, "sanitize-skip.txt"), encoding="utf-8") as f:
        lines = (line.split("#", 1)[0].strip() for line in f)
        return [re.compile(p) for p in lines if p]


def tests(build):
    """[(number, name, labels)] of a configured build, in ctest's numbering."""
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"main-stage-tests: {build}: cannot list its tests ({e})")
    found = []
    for number, t in enumerate(json.loads(out.stdout).get("tests", []), 1):
        labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
        found.append((number, t["name"], set(labels)))
    return found


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    main_tests, sanitize_tests = tests(argv[1]), tests(argv[2])
    if not main_tests or not sanitize_tests:
        print(f"main-stage-tests: no tests in {argv[1] if not main_tests else argv[2]}", file=sys.stderr)
        return 2
    skip = skip_patterns()
    sanitized = {name for _, name, _ in sanitize_tests if not any(p.search(name) for p in skip)}
    chosen = [n for n, name, labels in main_tests if name not in sanitized or labels & KEEP_LABELS]
    print("0,0,0," + ",".join(map(str, chosen)))
    print(f"main-stage-tests: the main stage runs {len(chosen)} of the main build's {len(main_tests)} tests; "
          f"the sanitizer stage {len(sanitized)} of its {len(sanitize_tests)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Where CI's time goes: the tables of docs/development.md "CI", from a log.

  scripts/dev/ci-times.py LOG [--top N] [--build DIR]

LOG is what `scripts/test.sh` (or `.ci/run`) printed: its "== test.sh: STAGE
done at M min S s" lines and ctest's "Test #K: NAME ... Passed 12.34 sec"
lines (a test belongs to the stage whose line follows it). Prints Markdown:
each stage and when it ended, and the N slowest tests of the "main tests"
stage. With --build DIR (the main build the log's tests ran in), also the
main tests that run alone (ctest RUN_SERIAL) and one at a time (RESOURCE_LOCK
emu_cluster: the emulated clusters): their sums bound the main
stage from below however many cores there are. Exit 2 when LOG has no stage
line (not a test.sh log) or DIR lists no tests.
"""
import json
import re
import subprocess
import sys

STAGE = re.compile(r"== test\.sh: (.+) done at (\d+) min (\d+) s")
TEST = re.compile(r"Test +#\d+: (\S+) \.*\**\s*(Passed|Failed|\*\*\*Failed|Skipped|\*\*\*Timeout|Timeout|Not Run)?\s+([\d.]+) sec")


def test_properties(build):
    """{name: set of "alone" / "locked"} from a configured build's ctest, or None."""
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
        listed = json.loads(out.stdout).get("tests", [])
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    kinds = {}
    for t in listed:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        kinds[t["name"]] = {k for k, on in (("alone", props.get("RUN_SERIAL")),
                                            ("locked", "emu_cluster" in props.get("RESOURCE_LOCK", []))) if on}
    return kinds or None


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    top, build = 20, None
    for flag in ("--top", "--build"):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1] if i + 1 < len(args) else ""
            if flag == "--top" and (not value.isdigit() or int(value) < 1):
                print("ci-times: --top needs a number of tests (1 or more)", file=sys.stderr)
                return 2
            if flag == "--build" and not value:
                print("ci-times: --build needs the main build's folder", file=sys.stderr)
                return 2
            del args[i:i + 2]
            top, build = (int(value), build) if flag == "--top" else (top, value)
    if len(args) != 1:
        print("ci-times: give one log of scripts/test.sh (see --help)", file=sys.stderr)
        return 2
    kinds = None
    if build is not None:
        kinds = test_properties(build)
        if kinds is None:
            print(f"ci-times: --build {build}: no tests listed there (not a configured build?)", file=sys.stderr)
            return 2
    argv = [argv[0], args[0]]
    try:
        open(argv[1]).close()
    except OSError as e:
        print(f"ci-times: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    stages, tests, pending = [], {}, {}
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            m = STAGE.search(line)
            if m:
                stages.append((m.group(1), int(m.group(2)) * 60 + int(m.group(3))))
                if m.group(1) == "main tests":
                    tests = pending
                pending = {}
                continue
            m = TEST.search(line)
            if m:
                pending[m.group(1)] = float(m.group(3))
    if not stages:
        print(f"ci-times: {argv[1]}: no '== test.sh: ... done at' line: not a scripts/test.sh log", file=sys.stderr)
        return 2
    out = ["| stage | took | ended at |", "|---|---|---|"]
    last = 0
    for name, at in stages:
        out.append(f"| {name} | {(at - last) // 60} min {(at - last) % 60} s | {at // 60} min {at % 60} s |")
        last = at
    print("\n".join(out))
    if tests:
        print()
        line = f"Main tests: {len(tests)}, {sum(tests.values()) / 60:.1f} min of test time in all"
        if kinds is not None:
            for kind, what in (("alone", "run alone (RUN_SERIAL)"),
                               ("locked", "run one at a time (the emulated clusters)")):
                some = [t for n, t in tests.items() if kind in kinds.get(n, ())]
                line += f"; the {len(some)} that {what} {sum(some) / 60:.1f} min in a row"
        print(line + ".")
        print()
        print(f"| the {top} slowest main tests | s |")
        print("|---|---|")
        for name, t in sorted(tests.items(), key=lambda kv: -kv[1])[:top]:
            how = kinds.get(name, set()) if kinds is not None else set()
            note = " (alone)" if "alone" in how else " (one at a time)" if "locked" in how else ""
            print(f"| `{name}`{note} | {t:.3g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

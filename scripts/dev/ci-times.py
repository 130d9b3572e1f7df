#!/usr/bin/env python3
"""Where CI's time goes: the tables of docs/development.md "CI", from a log.

  scripts/dev/ci-times.py LOG [--top N]

LOG is what `scripts/test.sh` (or `.ci/run`) printed: its "== test.sh: STAGE
done at M min S s" lines and ctest's "Test #K: NAME ... Passed 12.34 sec"
lines. Prints Markdown: each stage and when it ended; the N slowest tests of
the main stage; and the tests that run one at a time (the emulated cluster's
and Slurm's: ctest RESOURCE_LOCK emu_cluster), whose sum bounds the main
stage from below however many cores there are. Exit 2 when LOG has no stage
line (not a test.sh log).
"""
import re
import sys

STAGE = re.compile(r"== test\.sh: (.+) done at (\d+) min (\d+) s")
TEST = re.compile(r"Test +#\d+: (\S+) \.*\**\s*(Passed|Failed|\*\*\*Failed|Skipped|\*\*\*Timeout|Timeout|Not Run)?\s+([\d.]+) sec")
SERIAL = re.compile(r"^(emu|slurm)\.")


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    top = 20
    if "--top" in args:
        i = args.index("--top")
        if i + 1 >= len(args) or not args[i + 1].isdigit() or int(args[i + 1]) < 1:
            print("ci-times: --top needs a number of tests (1 or more)", file=sys.stderr)
            return 2
        top = int(args.pop(i + 1))
        args.pop(i)
    if len(args) != 1:
        print("ci-times: give one log of scripts/test.sh (see --help)", file=sys.stderr)
        return 2
    argv = [argv[0], args[0]]
    try:
        open(argv[1]).close()
    except OSError as e:
        print(f"ci-times: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    stages, tests, stage_of = [], {}, []
    current = 0
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            m = STAGE.search(line)
            if m:
                stages.append((m.group(1), int(m.group(2)) * 60 + int(m.group(3))))
                current += 1
                continue
            m = TEST.search(line)
            if m and current == 1:  # the main tests: after the build's stage line, before their own
                tests[m.group(1)] = float(m.group(3))
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
        serial = {n: t for n, t in tests.items() if SERIAL.match(n)}
        rest = sum(t for n, t in tests.items() if n not in serial)
        print()
        print(f"Main tests: {len(tests)}, {sum(tests.values()) / 60:.1f} min of test time in all; the "
              f"{len(serial)} one-at-a-time tests (emulated cluster, Slurm) {sum(serial.values()) / 60:.1f} min "
              f"in a row, the other {len(tests) - len(serial)} {rest / 60:.1f} min over the cores.")
        print()
        print(f"| the {top} slowest main tests | s |")
        print("|---|---|")
        for name, t in sorted(tests.items(), key=lambda kv: -kv[1])[:top]:
            print(f"| `{name}`{' (one at a time)' if name in serial else ''} | {t:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

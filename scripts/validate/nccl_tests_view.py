#!/usr/bin/env python3
"""What a parser of nccl-tests' output sees in a file: the structure, not the numbers.

  nccl_tests_view.py view FILE          the view of one stdout log or -J .json document, as JSON
  nccl_tests_view.py diff GENUINE OURS  the parts of the two views that differ; exit 1 when any

A stdout log's view: the version line's keys, the program, the nThread line's
fields and values, the extra header lines (blocking, per-iteration), the
rank lines nccl-tests' own parseRankInfo format reads (count, devices),
the column names and where each column ends, the rows (count, tokens each,
sizes), and the footer lines in order. ccbench's own lines (a version key
"ccbench=", the block that starts "# ccbench ", the notes after the footer)
are left out: they are where nccl-tests' parsers do not look. A document's
view: its keys and nesting, per result, and the types of its values.
Used by tests/nccl_tests_json.sh (ccbench's output has nccl-tests' view) and
scripts/validate/nccl-tests-parity.sh (ccbench's view equals nccl-tests' own,
run side by side on a GPU machine)."""
import json
import re
import sys

RANK = re.compile(r"^#  Rank +(\d+) Group +(\d+) Pid +(\d+) on +(\S+) device +(-?\d+) \[([^\]]+)\] (.+)$")


def stdout_view(text):
    lines = text.split("\n")
    view = {"version_keys": None, "program": None, "nthread": None, "header_extra": [], "ranks": 0,
            "devices": [], "columns": None, "column_ends": None, "rows": [], "footer": []}
    state = "header"
    for line in lines:
        if line.startswith("# nccl-tests version "):
            keys = [t.split("=")[0] for t in line.split()[4:] if "=" in t and not t.startswith("ccbench=")]
            view["version_keys"] = keys
        elif line.startswith("# Collective test starting: "):
            view["program"] = line.split(": ", 1)[1]
        elif line.startswith("# nThread "):
            # "name value" pairs; a name may have several words ("warmup iters: 1")
            pairs, name = [], []
            for token in line[2:].split():
                if re.match(r"^-?\d", token):
                    pairs.append([" ".join(name).rstrip(":"), token])
                    name = []
                else:
                    name.append(token)
            view["nthread"] = pairs
        elif line.startswith("# Blocking Enabled") or line.startswith("# Per-Iteration Report") or \
                line.startswith("# Parallel Init"):
            view["header_extra"].append(line.split(":")[0])
        elif RANK.match(line):
            m = RANK.match(line)
            view["ranks"] += 1
            view["devices"].append(int(m.group(5)))
        elif line.startswith("#       size "):
            view["columns"] = line.split()[1:]
            view["column_ends"] = [m.end() for m in re.finditer(r"\S+", line)][1:]
            state = "rows"
        elif state == "rows" and line.startswith("#        (B)"):
            continue
        elif state == "rows" and line and not line.startswith("#"):
            tokens = line.split()
            view["rows"].append([len(tokens), int(tokens[0]) if tokens[0].isdigit() else tokens[0]])
        elif line.startswith("# Out of bounds values") or line.startswith("# Avg bus bandwidth"):
            state = "footer"
            view["footer"].append(line[2:].split(":")[0].strip())
        elif state == "footer" and line.startswith("# Collective test concluded"):
            view["footer"].append("Collective test concluded")
            state = "after"
        elif state == "rows" and line.startswith("#"):
            view["footer"].append("a '#' line between the rows: " + line[:40])
    view["nthread_fields"] = [k for k, _ in view["nthread"] or []]
    return view


def shape(value):
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "string"


def json_view(doc):
    view = {"top": list(doc), "config": list(doc.get("config", {})), "results": len(doc.get("results", []))}
    results = doc.get("results", [])
    view["result_keys"] = sorted({tuple(r) for r in results}) if results else []
    view["result_shape"] = shape(results[0]) if results else None
    view["devices"] = [shape(d) for d in doc.get("config", {}).get("devices", [])[:1]]
    view["footer"] = {k: shape(doc[k]) for k in ("out_of_bounds", "average_bus_bandwidth") if k in doc}
    return view


def view_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    if text.lstrip().startswith("{"):
        return json_view(json.loads(text))
    return stdout_view(text)


def main(argv):
    if len(argv) == 3 and argv[1] == "view":
        print(json.dumps(view_of(argv[2]), indent=1))
        return 0
    if len(argv) == 4 and argv[1] == "diff":
        a, b = view_of(argv[2]), view_of(argv[3])
        # Values that differ between any two runs (pids, hosts, the sizes a GPU
        # can hold) are not the structure: the nThread line's values and the devices are compared by name only.
        for v in (a, b):
            v.pop("devices", None)
            if v.get("nthread"):
                v["nthread"] = [k for k, _ in v["nthread"]]
        differ = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        for k in differ:
            print(f"{k}:\n  {argv[2]}: {json.dumps(a.get(k))}\n  {argv[3]}: {json.dumps(b.get(k))}")
        return 1 if differ else 0
    print(__doc__.split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

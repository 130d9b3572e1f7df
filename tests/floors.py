#!/usr/bin/env python3
"""The floors of the code, at every folder level (docs/development.md "Layout").

Rooms: at a folder level, each subfolder is one room and each file directly in
it another (foo.hpp and foo.cpp are one room, "foo"). An arrow runs from a room
to another when a file of the first includes a file of the second.

Two rules, both checked for the repository root and every folder below it:
  1. no loops: no two rooms include each other, directly or around a circle;
  2. where FLOORS below declares an order for a folder, no room includes a room
     of a higher floor (rooms the order does not name are not judged by it).

Prints every arrow that breaks a rule and exits 1; exits 0 naming the levels it
checked. --root DIR checks another tree; --selftest proves on small trees
that each rule fails when broken and passes when kept.
"""
import os
import re
import sys
from collections import defaultdict

# Bottom up, per folder: a room may include its own floor and those below.
FLOORS = {
    "": ["common", "kernels", "collectives", "results", "analysis", "io", "harness", "commands", "bench"],
    "analysis": ["compare model", "workload", "decide history", "report", "accept"],
    "harness": ["topo"],  # the topology below the engine that binds ranks with it
}
# Arrows a folder may never draw, whatever the floors (io/ measures storage: no backend).
NEVER = {"io": ["collectives"]}
SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".in")
SKIP = ("tests", "build", "deps", ".git")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def source_files(root):
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not (rel == "." and (d in SKIP or d.startswith("build"))))
        for f in sorted(files):
            if f.endswith(SOURCES):
                yield os.path.normpath(os.path.join(rel, f))


def includes(root, files):
    known = set(files)
    edges = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            for target in (os.path.normpath(inc), os.path.normpath(os.path.join(os.path.dirname(f), inc))):
                if target in known and target != f:
                    edges.append((f, target))
                    break
    return edges


def room(path, folder):
    """The room of `path` seen from `folder` ("" is the root), or None outside it."""
    prefix = folder + "/" if folder else ""
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix):]
    if "/" in rest:
        return rest.split("/", 1)[0] + "/"
    return rest.split(".", 1)[0]


def cycles(nodes, graph):
    """Strongly connected components of more than one room (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def floor_of(folder):
    order = FLOORS.get(folder)
    if order is None:
        return None
    return {name: i for i, names in enumerate(order) for name in names.split()}


def check(root):
    files = list(source_files(root))
    edges = includes(root, files)
    folders = sorted({""} | {os.path.dirname(f) for f in files} |
                     {"/".join(f.split("/")[:k]) for f in files for k in range(1, f.count("/"))})
    problems = []
    for folder in folders:
        graph, nodes, why = defaultdict(set), set(), {}
        floors = floor_of(folder)
        for a, b in edges:
            ra, rb = room(a, folder), room(b, folder)
            if ra is None or rb is None or ra == rb:
                continue
            graph[ra].add(rb)
            nodes.update((ra, rb))
            why.setdefault((ra, rb), f"{a} includes {b}")
            if floors is not None:
                fa, fb = floors.get(ra.rstrip("/")), floors.get(rb.rstrip("/"))
                if fa is not None and fb is not None and fb > fa:
                    problems.append(f"up: {a} includes {b} ({folder or '.'}: {rb} is a floor above {ra})")
            if rb.rstrip("/") in NEVER.get(ra.rstrip("/") if not folder else "", []):
                problems.append(f"never: {a} includes {b} ({ra} may not use {rb})")
        for comp in cycles(nodes, graph):
            members = set(comp)
            arrows = sorted(why[(a, b)] for a in comp for b in graph[a] if b in members)
            problems.append(f"loop in {folder or '.'}: {' <-> '.join(comp)}: " + "; ".join(arrows))
    return folders, problems


def selftest():
    import tempfile
    cases = {  # tree -> the words each problem must hold (none: it passes)
        "kept": ({"results/r.hpp": "", "analysis/workload/w.hpp": '#include "analysis/compare/c.hpp"',
                  "analysis/compare/c.hpp": '#include "results/r.hpp"'}, []),
        "up at the root": ({"results/r.hpp": '#include "harness/h.hpp"', "harness/h.hpp": ""},
                           ["up: results/r.hpp includes harness/h.hpp"]),
        "up in analysis": ({"analysis/compare/c.hpp": '#include "analysis/workload/w.hpp"',
                            "analysis/workload/w.hpp": ""}, ["up: analysis/compare/c.hpp includes"]),
        "loop in a subfolder": ({"analysis/model/a.hpp": '#include "analysis/model/b.hpp"',
                                 "analysis/model/b.cpp": '#include "a.hpp"', "analysis/model/b.hpp": ""},
                                ["loop in analysis/model: a <-> b"]),
        "loop between folders": ({"harness/x/p.hpp": '#include "harness/y/q.hpp"',
                                  "harness/y/q.hpp": '#include "harness/x/p.hpp"'}, ["loop in harness: x/ <-> y/"]),
        "io uses a backend": ({"io/e.hpp": '#include "collectives/b.hpp"', "collectives/b.hpp": ""},
                              ["never: io/e.hpp includes collectives/b.hpp"]),
    }
    failed = 0
    for name, (tree, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for path, text in tree.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as fh:
                    fh.write(text + "\n")
            _, problems = check(root)
        ok = len(problems) == len(expected) and all(any(e in p for p in problems) for e in expected)
        print(f"{'ok' if ok else 'FAIL'}: {name}: {problems or 'passes'}")
        failed += not ok
    return 1 if failed else 0


def main():
    root = "."
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    if len(sys.argv) == 3 and sys.argv[1] == "--root":
        root = sys.argv[2]
    elif len(sys.argv) != 1:
        print("usage: floors.py [--root DIR]", file=sys.stderr)
        return 2
    if root == ".":
        os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    folders, problems = check(root)
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print(f"floors: no loops and no arrow up at {len(folders)} folder levels "
          f"({' < '.join(FLOORS[''])}; analysis: {' < '.join(FLOORS['analysis'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

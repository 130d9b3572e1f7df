#!/usr/bin/env python3
"""Docs that cannot drift: checks every Markdown file of the repository (and
ccbench's --help) against the tree and the code.

  1. every relative link resolves to a file of the tree, and its #anchor to a
     heading of that file (GitHub's heading ids);
  2. every repository path the docs name in `code` (kernels/..., tests/...,
     docs/..., scripts/...) exists (globs and {a,b} alternatives expanded);
  3. every --flag in a `ccbench ...` command line of the docs is a flag some
     ccbench source declares;
  4. every exit-code table (docs/failures.md) and `ccbench --help`'s exit-code
     line name exactly the codes common/errors.hpp defines;
  5. every block of the docs marked <!-- quantities --> ... <!-- /quantities -->
     is, line for line, the "Quantities" section of `ccbench history --help`
     (results/quantities.cpp: one definition of each quantity);
  6. the README's table of pages lists every page of docs/ (a list kept by
     hand is checked against the tree);
  7. docs/development.md's layout names every page of docs/ and every script
     of scripts/validate/ in those folders' entries.

Usage: docs_check.py REPO_ROOT [CCBENCH]. Prints one line per problem and
exits 1 when there is any; a test proves each check can fail
(docs_check_selftest in tests/CMakeLists.txt).
"""
import glob
import os
import re
import subprocess
import sys

TOP = ("kernels", "collectives", "harness", "commands", "analysis", "results", "scripts", "tests", "bench", "docs", "common", "io", ".ci")
problems = []


def md_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True).stdout.split()
    if not out:  # not a git checkout (a copied tree): every .md outside build folders
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".", "deps"))]
            out += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md")]
    return sorted(f for f in out if "/fixtures/" not in f)


def slug(heading):
    # GitHub: lower case, drop what is not a letter, digit, space, '-' or '_', spaces to '-'.
    text = re.sub(r"`|\*\*|\*", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    ids, seen = set(), {}
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            ids.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    return ids


def prose(path):
    """Lines outside fenced code blocks, and the fenced ones, with line numbers."""
    text, code = [], []
    in_code = False
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        (code if in_code else text).append((i, line.rstrip("\n")))
    return text, code


def check_links(root, md):
    text, _ = prose(os.path.join(root, md))
    for i, line in text:
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target) or target.startswith("mailto:"):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            full = os.path.join(root, resolved)
            if not os.path.exists(full):
                problems.append(f"{md}:{i}: link {target}: {resolved} does not exist")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(full):
                problems.append(f"{md}:{i}: link {target}: no heading '{anchor}' in {resolved}")


def expand(pattern):
    m = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",") for x in expand(pattern[: m.start()] + alt + pattern[m.end():])]


def check_paths(root, md):
    text, code = prose(os.path.join(root, md))
    # Prose: what stands in `code`; code blocks: every line.
    for i, span in [(i, s) for i, line in text for s in re.findall(r"`([^`]+)`", line)] + code:
        for m in re.finditer(r"(?<![\w./-])((?:%s)/[\w./*{},+-]*)" % "|".join(re.escape(t) for t in TOP), span):
            if span[m.end():m.end() + 1] == "<":  # runs/<UTC time>/...: made at run time
                continue
            word = m.group(1).rstrip(".,:;").rstrip("/")  # a folder is named with or without its slash
            if not word or re.search(r"[A-Z]{3,}", word):  # a placeholder (DIR, FILE, N...)
                continue
            if not any(glob.glob(os.path.join(root, w)) for w in expand(word)):
                problems.append(f"{md}:{i}: names {word}, which is not in the tree")


def declared_flags(root):
    flags = set()
    for pattern in ("harness/**/*.cpp", "harness/**/*.hpp", "commands/**/*.cpp", "commands/**/*.hpp",
                    "results/**/*.cpp", "analysis/**/*.cpp", "io/**/*.cpp"):
        for f in glob.glob(os.path.join(root, pattern), recursive=True):
            flags.update(re.findall(r"(--[a-z][a-z0-9-]*)", open(f, encoding="utf-8", errors="replace").read()))
    return flags


def check_flags(root, md, flags):
    text, code = prose(os.path.join(root, md))
    for i, line in text + code:
        for command in re.findall(r"(?:^|[`\s(])((?:build/)?ccbench\s+[^`|]*)", line):
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command):
                if flag not in flags:
                    problems.append(f"{md}:{i}: {flag} is not a flag of ccbench")


def defined_codes(root):
    text = open(os.path.join(root, "common/errors.hpp"), encoding="utf-8").read()
    codes = {int(v) for v in re.findall(r"kExit\w+ = (\d+)", text)}
    signal_base = 128 if 128 in codes else None
    codes.discard(128)
    return codes, {signal_base + s for s in (1, 2, 15)} if signal_base else set()


def check_exit_codes(root, ccbench):
    codes, signals = defined_codes(root)
    table = set()
    for i, line in prose(os.path.join(root, "docs/failures.md"))[0]:
        m = re.match(r"\|\s*([\d, ]+)(?:\s*\(|\s*\|)", line)
        if m:
            table.update(int(x) for x in re.findall(r"\d+", m.group(1)))
    table.discard(137)  # mpirun's, not ccbench's
    if table != codes | signals:
        problems.append(f"docs/failures.md: exit-code table names {sorted(table)}, common/errors.hpp defines {sorted(codes | signals)}")
    if ccbench:
        out = subprocess.run([ccbench, "--help"], capture_output=True, text=True).stdout
        start = out.find("Exit codes:")
        line = out[start:out.find("\n\n", start)] if start >= 0 else ""
        line = re.sub(r"\([^)]*\.md\)", "", line)  # the doc it points to
        named = {int(x) for x in re.findall(r"(?<![\w.])(\d+)(?![\w.])", line)}
        if named != codes | signals:
            problems.append(f"ccbench --help: 'Exit codes:' names {sorted(named)}, common/errors.hpp defines {sorted(codes | signals)}")


def check_environment(root, ccbench):
    """Every CCBENCH_* variable is declared once (common/environment.hpp), named in
    docs/running.md and in --help, and read nowhere else."""
    decl = os.path.join(root, "common/environment.hpp")
    if not os.path.exists(decl):
        return
    names = list(dict.fromkeys(re.findall(r'"(CCBENCH_[A-Z0-9_]+)"', open(decl, encoding="utf-8").read())))
    running = open(os.path.join(root, "docs/running.md"), encoding="utf-8").read()
    for n in names:
        if n not in running:
            problems.append(f"docs/running.md: does not name {n} (common/environment.hpp declares it)")
    for pattern in ("*/**/*.cpp", "*/**/*.hpp", "*/**/*.cu"):
        for f in glob.glob(os.path.join(root, pattern), recursive=True):
            rel = os.path.relpath(f, root)
            if rel.startswith(("tests/", "build", "deps/")):
                continue
            for n in re.findall(r'getenv\("(CCBENCH_[A-Z0-9_]+)"\)', open(f, encoding="utf-8", errors="replace").read()):
                problems.append(f"{rel}: reads {n} itself: declare it in common/environment.hpp, read it with env_value")
    if ccbench:
        out = subprocess.run([ccbench, "--help"], capture_output=True, text=True).stdout
        for n in names:
            if n not in out:
                problems.append(f"ccbench --help: does not list {n}")


def help_section(ccbench, args, heading):
    """The lines of `ccbench ARGS` from the one starting with HEADING to the
    next blank line, heading left out."""
    out = subprocess.run([ccbench] + args, capture_output=True, text=True).stdout.splitlines()
    start = next((i for i, line in enumerate(out) if line.startswith(heading)), None)
    if start is None:
        return None
    section = []
    for line in out[start + 1:]:
        if not line.strip():
            break
        section.append(line)
    return section


def check_quantities(root, ccbench, files):
    if not ccbench:
        return
    want = help_section(ccbench, ["history", "--help"], "Quantities")
    if want is None:
        problems.append("ccbench history --help: no 'Quantities' section")
        return
    for md in files:
        lines = open(os.path.join(root, md), encoding="utf-8").read().splitlines()
        for i, line in enumerate(lines):
            if line.strip() != "<!-- quantities -->":
                continue
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "<!-- /quantities -->"), None)
            if end is None:
                problems.append(f"{md}:{i + 1}: <!-- quantities --> without <!-- /quantities -->")
                continue
            got = [x for x in lines[i + 1:end] if not x.startswith("```")]
            if got != want:
                problems.append(f"{md}:{i + 1}: the quantities block is not `ccbench history --help`'s "
                                "Quantities section (results/quantities.cpp): copy it from there")


def check_page_list(root, files):
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        return
    listed = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", open(readme, encoding="utf-8").read()))
    for md in files:
        if md.startswith("docs/") and md.count("/") == 1 and md not in listed:
            problems.append(f"README.md: its table of pages does not list {md}")


def layout_entry(text, folder):
    """The layout's entry for `folder`: its line and the indented lines after it."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(folder + " "):
            entry = [line[len(folder):]]
            for more in lines[i + 1:]:
                if not more.startswith(" "):
                    break
                entry.append(more)
            return " ".join(entry)
    return None


def check_layout(root):
    dev = os.path.join(root, "docs", "development.md")
    if not os.path.exists(dev):
        return
    text = open(dev, encoding="utf-8").read()
    for folder, pattern in (("docs/", "*.md"), ("scripts/validate/", "*")):
        entry = layout_entry(text, folder)
        if entry is None:
            problems.append(f"docs/development.md: its layout has no entry for {folder}")
            continue
        words = set(re.findall(r"[A-Za-z0-9_.-]+", entry))
        for path in sorted(glob.glob(os.path.join(root, folder, pattern))):
            stem = os.path.splitext(os.path.basename(path))[0]
            if os.path.isfile(path) and stem not in words:
                problems.append(f"docs/development.md: its layout's {folder} does not name {stem}")


def main():
    root = sys.argv[1]
    ccbench = sys.argv[2] if len(sys.argv) > 2 else None
    flags = declared_flags(root)
    files = md_files(root)
    for md in files:
        check_links(root, md)
        check_paths(root, md)
        check_flags(root, md, flags)
    check_exit_codes(root, ccbench)
    check_environment(root, ccbench)
    check_quantities(root, ccbench, files)
    check_page_list(root, files)
    check_layout(root)
    for p in problems:
        print(p)
    print(f"docs check: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

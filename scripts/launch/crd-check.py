#!/usr/bin/env python3
"""Checks Kubernetes custom resources offline against their CRDs' OpenAPI schemas.

  crd-check.py --crd CRD [--crd CRD ...] FILE [FILE ...]

CRD: a file or a folder of files holding CustomResourceDefinitions (a List
from `kubectl get crd NAME... -o yaml` too: the schemas your cluster runs).
FILE: YAML documents to check; each custom resource is checked against the
served version of its CRD the way an API server with strict field validation
(kubectl's default) checks it: types, int32/int64 ranges, required fields,
unknown fields, enums, lengths, patterns, bounds, list-type set/map keys,
int-or-string, preserve-unknown-fields, embedded resources, anyOf/allOf/oneOf/
not, and the object's name. CEL rules (x-kubernetes-validations) need an API
server: they are counted, not evaluated (--list-cel prints them). Documents of built-in kinds
(ConfigMap, ...) are named and skipped.

Exit: 0 every custom resource valid; 1 a resource breaks its schema (every
error printed as PATH: what); 2 bad input (unreadable YAML, no CRD for a
kind, a version the CRD does not serve). docs/acceptance.md "Launch files".
"""
import argparse
import math
import os
import re
import reprlib
import signal
import stat
import sys
import time

try:
    import yaml
except ImportError:
    sys.exit("crd-check.py: needs PyYAML (Debian: apt-get install python3-yaml)")

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
OBJECT_META = {"name", "generateName", "namespace", "labels", "annotations", "finalizers",
               "ownerReferences", "uid", "resourceVersion", "generation", "creationTimestamp",
               "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"}
INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


class BadInput(Exception):
    pass


MAX_FILE_BYTES = 64 << 20   # as ccbench's readers: a larger file is not a launch file
MAX_VALUES = 1_000_000      # values a file expands to, aliases followed (a "billion laughs" file expands to 10^9)
PATTERN_SECONDS = 2.0       # one pattern on one value, in Python's backtracking engine


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping, as the API server's strict decoding does."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                continue  # SafeLoader's own error follows
            if key in seen:
                raise BadInput(f"line {key_node.start_mark.line + 1}: key {str(key)[:80]!r} given twice in one mapping "
                               f"(first at line {seen[key]}; the API server's strict decoding refuses it)")
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)



def values_in(doc, budget):
    """Counts the values of doc, aliases followed, up to budget (raises BadInput beyond it)."""
    stack, n = [doc], 0
    while stack:
        v = stack.pop()
        n += 1
        if n > budget:
            raise BadInput(f"it expands to more than {budget:,} values or refers to itself (YAML aliases: no API "
                           f"server decodes it)")
        if isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(v.keys())
        elif isinstance(v, list):
            stack.extend(v)
    return n


def read_regular(path):
    """The text of a regular file of at most MAX_FILE_BYTES (a FIFO blocked the reader; /dev/zero never ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise BadInput(f"{path}: cannot read it: {e.strerror}")
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{path}: not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise BadInput(f"{path}: {st.st_size} bytes, more than {MAX_FILE_BYTES} (64 MiB)")
        data = f.read(MAX_FILE_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not UTF-8 text: {e}")


def load_documents(path):
    text = read_regular(path)
    try:
        docs = [d for d in yaml.load_all(text, Loader=StrictLoader) if d is not None]
    except yaml.YAMLError as e:
        raise BadInput(f"{path}: cannot read it as YAML: {e}")
    except BadInput as e:
        raise BadInput(f"{path}: {e}")
    budget = MAX_VALUES
    for d in docs:
        try:
            budget -= values_in(d, budget)
        except BadInput as e:
            raise BadInput(f"{path}: {e}")
    out = []
    for d in docs:
        if not isinstance(d, dict):
            raise BadInput(f"{path}: a document is not a mapping")
        out.extend((d.get("items") or []) if d.get("kind") == "List" else [d])
    return out


def short(v, limit=120):
    """repr of v cut at limit characters, without building the whole of a large value."""
    r = reprlib.Repr()
    r.maxstring, r.maxother, r.maxlist, r.maxdict, r.maxlevel = limit, limit, 8, 8, 3
    text = r.repr(v)
    return text if len(text) <= limit else text[:limit] + "..."


def pattern_matches(pattern, value):
    """re.search in a child process bounded by PATTERN_SECONDS: a pattern RE2 (the API server's engine) runs in
    linear time can backtrack for hours in Python's (^(a+)+$). True, False, or None when it ran out of time."""
    if len(value) <= 16:
        return re.search(pattern, value) is not None  # a short value cannot backtrack for long
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os._exit(0 if re.search(pattern, value) else 1)
    deadline = time.monotonic() + PATTERN_SECONDS
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)


def load_crds(paths):
    crds = {}
    for p in paths:
        try:
            files = sorted(os.path.join(p, n) for n in os.listdir(p)
                           if n.endswith((".yaml", ".yml", ".json"))) if os.path.isdir(p) else [p]
        except OSError as e:
            raise BadInput(f"{p}: cannot list it: {e}")
        for f in files:
            for d in load_documents(f):
                if d.get("kind") != "CustomResourceDefinition":
                    continue
                spec = d.get("spec") or {}
                key = (spec.get("group"), (spec.get("names") or {}).get("kind"))
                crds[key] = (f, spec)
    if not crds:
        raise BadInput(f"no CustomResourceDefinition in {', '.join(paths)}")
    return crds


class Checker:
    def __init__(self):
        self.errors = []
        self.cel_rules = []  # (path, rule): CEL, which needs an API server

    def fail(self, path, what):
        self.errors.append(f"{path or '(root)'}: {what}")

    def check(self, v, s, path):
        """Checks value v against schema s; path names v in messages."""
        self.cel_rules += [(path, r.get("rule", "")) for r in s.get("x-kubernetes-validations") or []]
        if v is None:
            if not s.get("nullable"):
                self.fail(path, "null where a value is needed (nullable is not set)")
            return
        if not self.check_type(v, s, path):
            return
        if "enum" in s and v not in s["enum"]:
            self.fail(path, f"{short(v)} is not one of {short(s['enum'])}")
        for sub in s.get("allOf") or []:
            self.check(v, sub, path)
        if "anyOf" in s and not any(self.passes(v, sub, path) for sub in s["anyOf"]):
            self.fail(path, "matches none of anyOf")
        if "oneOf" in s and sum(self.passes(v, sub, path) for sub in s["oneOf"]) != 1:
            self.fail(path, "does not match exactly one of oneOf")
        if "not" in s and self.passes(v, s["not"], path):
            self.fail(path, "matches the schema under not")
        if isinstance(v, dict):
            self.check_object(v, s, path)
        elif isinstance(v, list):
            self.check_array(v, s, path)
        elif isinstance(v, str):
            self.check_string(v, s, path)
        elif not isinstance(v, bool):
            self.check_number(v, s, path)

    def passes(self, v, s, path):
        trial = Checker()
        trial.check(v, s, path)
        return not trial.errors

    def check_type(self, v, s, path):
        t = s.get("type")
        if s.get("x-kubernetes-int-or-string"):
            ok = isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
            t = "integer or string"
        elif t is None:
            return True
        else:
            ok = {"object": lambda: isinstance(v, dict), "array": lambda: isinstance(v, list),
                  "string": lambda: isinstance(v, str), "boolean": lambda: isinstance(v, bool),
                  "integer": lambda: isinstance(v, int) and not isinstance(v, bool),
                  "number": lambda: isinstance(v, (int, float)) and not isinstance(v, bool)}.get(t, lambda: True)()
        if not ok:
            self.fail(path, f"{type(v).__name__} {short(v)} where the schema wants {t}")
        return ok

    def check_object(self, v, s, path):
        props = s.get("properties") or {}
        extra = s.get("additionalProperties")
        embedded = s.get("x-kubernetes-embedded-resource")
        for k in s.get("required") or []:
            if v.get(k) is None:
                self.fail(path, f"required field {k!r} is missing")
        for k, val in v.items():
            sub = f"{path}.{k}" if path else str(k)
            if k in props:
                if val is None and not props[k].get("nullable"):
                    continue  # a null is pruned before validation, as if absent
                self.check(val, props[k], sub)
            elif isinstance(extra, dict):
                self.check(val, extra, sub)
            elif embedded and k in ("apiVersion", "kind", "metadata"):
                if k == "metadata":
                    self.check_meta(val, sub, top=False)
            elif extra is True or s.get("x-kubernetes-preserve-unknown-fields"):
                continue
            elif props or extra is False or s.get("type") == "object":
                self.fail(sub, "unknown field (strict field validation rejects it)")
        for key, test, what in (("maxProperties", lambda n, m: n > m, "more"), ("minProperties", lambda n, m: n < m, "fewer")):
            if key in s and test(len(v), s[key]):
                self.fail(path, f"{len(v)} fields: {what} than {key} {s[key]}")

    def check_array(self, v, s, path):
        if "maxItems" in s and len(v) > s["maxItems"]:
            self.fail(path, f"{len(v)} items: more than maxItems {s['maxItems']}")
        if "minItems" in s and len(v) < s["minItems"]:
            self.fail(path, f"{len(v)} items: fewer than minItems {s['minItems']}")
        for i, item in enumerate(v):
            if "items" in s:
                self.check(item, s["items"], f"{path}[{i}]")
        kind = s.get("x-kubernetes-list-type")
        if kind == "set" or s.get("uniqueItems"):
            keys = [repr(x) for x in v]
        elif kind == "map":
            names = s.get("x-kubernetes-list-map-keys") or []
            keys = [tuple(repr(x.get(n)) if isinstance(x, dict) else None for n in names) for x in v]
        else:
            return
        seen = set()
        for i, k in enumerate(keys):
            if k in seen:
                self.fail(f"{path}[{i}]", f"a duplicate {'key ' + str(s.get('x-kubernetes-list-map-keys')) if kind == 'map' else 'item'} (list-type {kind or 'uniqueItems'})")
            seen.add(k)

    def check_string(self, v, s, path):
        if "maxLength" in s and len(v) > s["maxLength"]:
            self.fail(path, f"{len(v)} characters: more than maxLength {s['maxLength']}")
        if "minLength" in s and len(v) < s["minLength"]:
            self.fail(path, f"{len(v)} characters: fewer than minLength {s['minLength']}")
        if "pattern" in s:
            matched = pattern_matches(s["pattern"], v)
            if matched is None:
                raise BadInput(f"{path or '(root)'}: the pattern {short(s['pattern'])} on {short(v)} ran past "
                               f"{PATTERN_SECONDS:g} s in Python's backtracking engine (the API server's RE2 runs it "
                               f"in linear time): not checked here")
            if not matched:
                self.fail(path, f"{short(v)} does not match the pattern {short(s['pattern'], 200)}")

    def check_number(self, v, s, path):
        if isinstance(v, float) and not math.isfinite(v):
            self.fail(path, f"{v} is not a finite number")
            return
        lo, hi = INT_RANGE.get(s.get("format"), (None, None))
        if lo is not None and not lo <= v <= hi:
            self.fail(path, f"{v} is outside {s['format']}")
        if "minimum" in s and (v < s["minimum"] or (s.get("exclusiveMinimum") and v == s["minimum"])):
            self.fail(path, f"{v} is below the minimum {s['minimum']}")
        if "maximum" in s and (v > s["maximum"] or (s.get("exclusiveMaximum") and v == s["maximum"])):
            self.fail(path, f"{v} is above the maximum {s['maximum']}")
        if s.get("multipleOf") and v % s["multipleOf"]:
            self.fail(path, f"{v} is not a multiple of {s['multipleOf']}")

    def check_meta(self, meta, path, top):
        if not isinstance(meta, dict):
            self.fail(path, "metadata is not a mapping")
            return
        for k in meta:
            if k not in OBJECT_META:
                self.fail(f"{path}.{k}", "unknown field of ObjectMeta")
        name = meta.get("name")
        if top and not name and not meta.get("generateName"):
            self.fail(path, "neither name nor generateName")
        if name is not None and (not isinstance(name, str) or len(name) > 253 or not DNS_SUBDOMAIN.match(name)):
            self.fail(f"{path}.name", f"{short(name)} is not a DNS-1123 subdomain (lower case, digits, '-', '.')")
        for field in ("labels", "annotations"):
            for k, val in (meta.get(field) or {}).items():
                prefix, _, last = str(k).rpartition("/")
                if not LABEL_NAME.match(last) or len(last) > 63 or len(prefix) > 253 or (prefix and not DNS_SUBDOMAIN.match(prefix)):
                    self.fail(f"{path}.{field}", f"{short(k)} is not a valid key")
                if not isinstance(val, str):
                    self.fail(f"{path}.{field}.{k}", f"{short(val)} is not a string")
                elif field == "labels" and val and (len(val) > 63 or not LABEL_NAME.match(val)):
                    self.fail(f"{path}.{field}.{k}", f"{short(val)} is not a valid label value")


def check_resource(doc, crds, where):
    """Returns (summary line, errors, CEL rules not evaluated); raises BadInput when no served CRD version fits."""
    api, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    name = str((doc.get("metadata") or {}).get("name", "?"))[:253]
    if not isinstance(api, str) or not api or not isinstance(kind, str) or not kind:
        raise BadInput(f"{where}: not a Kubernetes object (no apiVersion and kind)")
    group, _, version = api.rpartition("/")
    if not group or "." not in group:
        return f"{where}: {kind} {name}: a built-in kind ({api}), skipped", [], []
    if (group, kind) not in crds:
        raise BadInput(f"{where}: {kind} {name}: no CRD for {kind} in group {group} was given (--crd)")
    crd_file, spec = crds[(group, kind)]
    served = {v.get("name"): v for v in spec.get("versions") or [] if v.get("served")}
    if version not in served:
        raise BadInput(f"{where}: {kind} {name}: {crd_file} does not serve {api} (served: {', '.join(served) or 'none'})")
    schema = (served[version].get("schema") or {}).get("openAPIV3Schema")
    if not schema:
        raise BadInput(f"{where}: {kind} {name}: {crd_file} has no openAPIV3Schema for {version}")
    c = Checker()
    c.check_meta(doc.get("metadata"), "metadata", top=True)
    # apiVersion, kind and metadata are the API server's own (checked above): never unknown fields, whether or not
    # the CRD's schema lists them.
    own = ("apiVersion", "kind", "metadata")
    body = {k: v for k, v in doc.items() if k not in own}
    body_schema = dict(schema)
    body_schema["properties"] = {k: v for k, v in (schema.get("properties") or {}).items() if k not in own}
    body_schema["required"] = [k for k in schema.get("required") or [] if k not in own]
    c.check(body, body_schema, "")
    summary = f"{where}: {kind} {name}: valid against {os.path.basename(crd_file)} ({version})"
    if c.cel_rules:
        summary += f"; {len(c.cel_rules)} CEL rules left to the API server"
    return summary, c.errors, c.cel_rules


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--crd", action="append", required=True, help="a CRD file or a folder of them (repeatable)")
    p.add_argument("--list-cel", action="store_true", help="print the CEL rules left to the API server")
    p.add_argument("files", nargs="+", help="YAML files of resources to check")
    a = p.parse_args()
    try:
        crds = load_crds(a.crd)
        bad = 0
        for f in a.files:
            for i, doc in enumerate(load_documents(f)):
                summary, errors, cel = check_resource(doc, crds, f"{f}[{i}]")
                if errors:
                    bad += 1
                    print(summary.split(": valid")[0] + ": INVALID")
                    for e in errors:
                        print(f"  {e}")
                else:
                    print(summary)
                for path, rule in cel if a.list_cel else []:
                    print(f"  CEL at {path or '(root)'}: {rule}")
    except BadInput as e:
        print(f"crd-check.py: {e}", file=sys.stderr)
        return 2
    except (AttributeError, TypeError, KeyError, ValueError, re.error) as e:
        print(f"crd-check.py: a CRD or resource of a shape no API server takes ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    except RecursionError:
        print("crd-check.py: a document nests too deep or refers to itself (YAML aliases)", file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

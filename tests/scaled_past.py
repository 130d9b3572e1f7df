#!/usr/bin/env python3
"""An accept raw run as an older one, for `baseline: history` tests
(tests/history.sh, tests/history_postgres.sh): started on 2026-01-0DAY,
every bandwidth x FACTOR and every time / FACTOR.
   scaled_past.py SRC.jsonl FACTOR DAY > FILE"""
import json
import sys

src, factor, day = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
for line in open(src):
    r = json.loads(line)
    if "started_at" in r:
        r["started_at"] = f"2026-01-0{day}T00:00:00.000Z"
    for part in ("out_of_place", "in_place"):
        if isinstance(r.get(part), dict):
            m = r[part]
            for k in ("busbw_gbps", "algbw_gbps"):
                m[k] *= factor
            for k in ("time_us", "pipelined_us"):
                if m.get(k) is not None:
                    m[k] /= factor
    print(json.dumps(r))

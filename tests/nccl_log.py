#!/usr/bin/env python3
"""Rewrites an nccl-tests log for the history tests (tests/history.sh,
tests/history_postgres.sh): its ranks on host HOST, every row's times x
FACTOR (bandwidths / FACTOR) with 1% noise drawn from SEED.
   nccl_log.py SRC HOST FACTOR SEED > FILE"""
import random
import re
import sys

src, host, factor, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
for line in open(src):
    if " on " in line and line.startswith("#  Rank"):
        line = re.sub(r" on +\S+ ", f" on {host} ", line)
    t = line.split()
    if t and t[0].isdigit() and len(t) >= 13:
        f = factor * (1 + 0.01 * rng.gauss(0, 1))
        for i in (5, 9):
            t[i] = f"{float(t[i]) * f:.2f}"
            t[i + 1] = f"{float(t[i + 1]) / f:.2f}"
            t[i + 2] = f"{float(t[i + 2]) / f:.2f}"
        line = "  ".join(t) + "\n"
    sys.stdout.write(line)

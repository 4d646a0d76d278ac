"""Medians [min-max] of ab.sh's runs per case and build: python3 summarize.py A B runs.txt..."""
import re
import statistics
import sys

a, b, files = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {}
for path in files:
    for line in open(path):
        m = re.match(r"(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+search\s+([\d.]+) s\s+total\s+([\d.]+) s\s+peak\s+(\d+) MiB\s+md5 (\S+)", line)
        if m:
            case = (path, m[1], m[2], m[3])
            rows.setdefault(case, {}).setdefault(m[4], []).append((float(m[5]), float(m[6]), int(m[7]), m[8]))


def spread(values):
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


print(f"file model mode target | search s {a} | {b} | ratio | total s {a} | {b} | peak MiB {a} -> {b} | bytes")
for (path, model, mode, target), runs in rows.items():
    ra, rb = runs[a], runs[b]
    sa, sb = [r[0] for r in ra], [r[0] for r in rb]
    ta, tb = [r[1] for r in ra], [r[1] for r in rb]
    same = "same" if {r[3] for r in ra} == {r[3] for r in rb} else "differ"
    print(f"{path} {model} {mode} {target} | {spread(sa)} | {spread(sb)} | {statistics.median(sb) / statistics.median(sa):.3f}"
          f" | {spread(ta)} | {spread(tb)} | {statistics.median([r[2] for r in ra]):.0f} -> {statistics.median([r[2] for r in rb]):.0f} | {same}")

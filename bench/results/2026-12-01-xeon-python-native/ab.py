"""pet.optimize through the pet-opt binary beside the module (after) against pet.optimize in Python's
process (before: the package's path without the binary), interleaved, the order turned each round,
after one warm-up run of each case that fills the proof store. Each run is a fresh Python process:
its wall time of the call, the report's search seconds, the peak RSS of the Python process and of
the pet-opt process it ran, and the written model's md5.
    PYTHONPATH=build/python python3 ab.py ROUNDS > runs.txt
    python3 ab.py --summarize runs.txt      (medians [min-max] per case and variant)"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CASES = [  # (label, model, keywords)
    ("inception_v3 taso", "inception_v3_299_b1", {"mode": "taso"}),
    ("resnet50 pet", "resnet50_b1", {"mode": "pet"}),
    ("bert_s128 pet", "bert_s128_b1", {"mode": "pet"}),
    ("resnet18 pet", "resnet18_b1", {"mode": "pet"}),
]

ONE_RUN = r"""
import json, resource, sys, time
import pet
from pet import _cli
if sys.argv[1] == "in-process":
    _cli.native_pet_opt = lambda: None
start = time.monotonic()
result = pet.optimize(sys.argv[2], target="h200", replay=True, report_times=True, progress=False,
                      **json.loads(sys.argv[3]))
wall = time.monotonic() - start
print(json.dumps({"wall": wall, "search": result.report["seconds"]["search"],
                  "allocator": result.report["allocator"],
                  "rss_python_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_child_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "md5": __import__("hashlib").md5(result.model_bytes).hexdigest()[:12]}))
"""


def run(variant, model, keywords, env):
    path = os.path.join(ROOT, "build", "models", model, "model.onnx")
    done = subprocess.run([sys.executable, "-c", ONE_RUN, variant, path, json.dumps(keywords)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def summarize(path):
    rows = {}
    pattern = (r"round \d+\s+(.+?)\s+(native|in-process)\s+wall\s+([\d.]+) s\s+search\s+([\d.]+) s\s+python\s+(\d+) "
               r"MiB\s+pet-opt\s+(\d+) MiB.*md5 (\S+)")
    for line in open(path):
        m = re.match(pattern, line)
        if m:
            rows.setdefault(m[1], {}).setdefault(m[2], []).append(
                (float(m[3]), float(m[4]), int(m[5]), int(m[6]), m[7]))

    def spread(values):
        return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"

    print("| case | wall s, in-process | wall s, native | in-process / native | search s, in-process | search s, "
          "native | peak MiB in-process (python) | peak MiB native (python + pet-opt) | same model |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case, runs in rows.items():
        before, after = runs["in-process"], runs["native"]
        median = statistics.median
        same = "yes" if {r[4] for r in before} == {r[4] for r in after} and len({r[4] for r in before}) == 1 else "no"
        print(f"| {case} | {spread([r[0] for r in before])} | {spread([r[0] for r in after])} | "
              f"{median([r[0] for r in before]) / median([r[0] for r in after]):.2f}x | "
              f"{spread([r[1] for r in before])} | {spread([r[1] for r in after])} | "
              f"{median([r[2] for r in before]):.0f} | {median([r[2] for r in after]):.0f} + "
              f"{median([r[3] for r in after]):.0f} | {same} |")


def main():
    if sys.argv[1:2] == ["--summarize"]:
        summarize(sys.argv[2])
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as proofs:
        env = dict(os.environ, PET_PROOF_CACHE=proofs)
        for _, model, keywords in CASES:
            run("native", model, keywords, env)  # the proof store warmed
        for r in range(rounds):
            for label, model, keywords in CASES:
                order = ["native", "in-process"] if r % 2 == 0 else ["in-process", "native"]
                for variant in order:
                    m = run(variant, model, keywords, env)
                    print(f"round {r + 1}  {label:<18} {variant:<10}  wall {m['wall']:6.2f} s  search "
                          f"{m['search']:6.2f} s  python {m['rss_python_mib']:6.0f} MiB  pet-opt "
                          f"{m['rss_child_mib']:6.0f} MiB  {m['allocator'][:16]:<16} md5 {m['md5']}", flush=True)


if __name__ == "__main__":
    main()

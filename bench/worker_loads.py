#!/usr/bin/env python3
"""What a GPU worker's model loading costs pet-opt --live: two workers (PET_GPU), each with its pet-opt, side by side, interleaved.

Each round runs every case once with each worker (which goes first alternates by round), each run
from an empty profile DB, so both time the same requests; from pet-opt's text it reads the
measured ranking's "finalizing, serializing and timing" seconds, the kernel groups' timing seconds
and the whole run's. With pet-gpu's test double as the worker (build/tests/pet_fake_gpu_worker),
whose times depend on the model alone, the written models must be byte-identical; on a card the
check is left to the reports.

    python3 bench/worker_loads.py --before OLD/pet_fake_gpu_worker --after build/tests/pet_fake_gpu_worker \\
        [--pet-opt build/tools/pet-opt] [--before-pet-opt OLD/pet-opt] [--rounds 3] MODEL:MODE [...]

Prints a Markdown table: medians over the rounds (min-max).
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

RANKING = re.compile(r"([0-9.]+) s finalizing, serializing and timing them")
GROUPS = re.compile(r"kernel costs: [0-9]+ measured \(([0-9.]+) s\)")
WHOLE = re.compile(r"^  wrote .* in ([0-9.]+) s$", re.MULTILINE)


def run_once(pet_opt: str, worker: str, model: str, mode: str, folder: pathlib.Path, name: str) -> dict:
    """One pet-opt --live run from an empty DB; its seconds and its written model's bytes."""
    db, out = folder / f"{name}-db.json", folder / f"{name}.onnx"
    db.unlink(missing_ok=True)
    env = dict(os.environ, PET_GPU=worker, PET_PROOF_CACHE="off")
    done = subprocess.run([pet_opt, model, "--target", "h200", "--live", "--mode", mode, "--profile-db", str(db),
                           "-o", str(out)], capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0:
        sys.exit(f"worker_loads: pet-opt with {worker} on {model} exited {done.returncode}:\n{done.stderr[-2000:]}")
    found = {key: pattern.search(done.stdout) for key, pattern in
             (("ranking", RANKING), ("groups", GROUPS), ("whole", WHOLE))}
    missing = [key for key, match in found.items() if not match]
    if missing:
        sys.exit(f"worker_loads: pet-opt's text lacks {', '.join(missing)}:\n{done.stdout[-2000:]}")
    seconds = {key: float(match.group(1)) for key, match in found.items()}
    return dict(seconds, written=out.read_bytes())


def summary(values: list) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the worker before (PET_GPU)")
    parser.add_argument("--after", required=True, help="the worker after")
    parser.add_argument("--pet-opt", default="build/tools/pet-opt", help="the pet-opt of the after worker")
    parser.add_argument("--before-pet-opt", default=None, help="the pet-opt of the before worker (default: --pet-opt)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("cases", nargs="+", help="MODEL:MODE (taso or pet)")
    args = parser.parse_args(argv)
    cases = [tuple(case.rsplit(":", 1)) for case in args.cases]
    runs = {(case, worker): [] for case in cases for worker in ("before", "after")}
    with tempfile.TemporaryDirectory() as scratch:
        folder = pathlib.Path(scratch)
        for round_ in range(args.rounds):
            for case in cases:
                order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
                for worker in order:
                    path = args.before if worker == "before" else args.after
                    pet_opt = (args.before_pet_opt or args.pet_opt) if worker == "before" else args.pet_opt
                    runs[(case, worker)].append(run_once(pet_opt, path, case[0], case[1], folder, worker))
                    print(f"round {round_ + 1}: {case[0]} {case[1]} {worker}: "
                          f"{runs[(case, worker)][-1]['whole']:.2f} s", file=sys.stderr, flush=True)
    print("| model | mode | ranking s, before | after | groups' timing s, before | after | whole run s, before | "
          "after | same models |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        before, after = runs[(case, "before")], runs[(case, "after")]
        same = len({run["written"] for run in before + after}) == 1
        print(f"| {pathlib.Path(case[0]).parent.name or case[0]} | {case[1]} | "
              f"{summary([r['ranking'] for r in before])} | {summary([r['ranking'] for r in after])} | "
              f"{summary([r['groups'] for r in before])} | {summary([r['groups'] for r in after])} | "
              f"{summary([r['whole'] for r in before])} | {summary([r['whole'] for r in after])} | "
              f"{'yes' if same else 'no'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

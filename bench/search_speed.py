#!/usr/bin/env python3
"""pet-opt's own time, two builds side by side: the search's seconds and the wall seconds of
`pet-opt MODEL --mode MODE --target TARGET --replay` for each MODEL:MODE, and its peak resident size, the builds interleaved
(each round runs every variant on each model, the order turned round every other round), medians
with the range. The `after` build runs twice per round: with an empty proof store (cold) and again
with the store that run filled (warm). The `before` build runs without a store (every instance
proved), or with `--before-store warm` from a store of its own filled by an untimed run first (a
change that is not about proofs, compared warm against warm). `--jobs N` goes to both builds.
Also says whether the two builds wrote the same bytes.

    python3 bench/search_speed.py --before OLD/pet-opt --before-env LD_LIBRARY_PATH=OLD/lib \\
        --after build/tools/pet-opt --rounds 3 resnet18.pet:taso bert.pet:pet
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

SEARCH_SECONDS = re.compile(r"^  search: .*, ([0-9.]+) s$", re.M)


def high_water_kib(pid):
    """The process's peak resident size so far (Linux /proc), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(binary, env, model, mode, target, out, store, jobs=None):
    """(search seconds, wall seconds, peak resident MiB) of one pet-opt run."""
    environment = dict(os.environ, **env)
    environment["PET_PROOF_CACHE"] = store
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        child = subprocess.Popen([binary, model, "--mode", mode, "--target", target, "--replay", "-o", out]
                                 + (["--jobs", str(jobs)] if jobs else []), env=environment, stdout=stdout,
                                 stderr=stderr, text=True)
        peak_kib = 0
        while child.poll() is None:  # VmHWM, polled: this process image's own peak
            peak_kib = max(peak_kib, high_water_kib(child.pid))
            time.sleep(0.02)
        wall = time.monotonic() - started
        stdout.seek(0)
        stderr.seek(0)
        output, errors = stdout.read(), stderr.read()
    if child.returncode != 0:
        sys.exit(f"search_speed: {binary} on {model} ({mode}) failed: {output[-600:]}{errors[-600:]}")
    found = SEARCH_SECONDS.search(output)
    if not found:
        sys.exit(f"search_speed: no search line in {binary}'s output on {model}")
    return float(found.group(1)), wall, peak_kib / 1024


def peak_text(values):
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def summary(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--before-env", action="append", default=[], help="NAME=VALUE for the before build")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before-store", choices=["off", "warm"], default="off")
    parser.add_argument("--jobs", type=int, help="pet-opt --jobs N for both builds (default: theirs)")
    parser.add_argument("runs", nargs="+", help="MODEL:MODE")
    args = parser.parse_args()
    before_env = dict(item.split("=", 1) for item in args.before_env)
    cases = [tuple(run_.rsplit(":", 1)) for run_ in args.runs]
    times = {(case, variant): [] for case in cases for variant in ("before", "cold", "warm")}
    same = {case: True for case in cases}
    with tempfile.TemporaryDirectory(prefix="pet-search-speed-") as work:
        work = pathlib.Path(work)
        for round_ in range(args.rounds):
            for index, case in enumerate(cases):
                model, mode = case
                store = str(work / f"store-{round_}-{index}")  # empty: the cold run fills it
                outputs = {name: str(work / f"{name}.onnx") for name in ("before", "cold", "warm")}
                before_store = "off"
                if args.before_store == "warm":  # filled by an untimed run of the before build
                    before_store = str(work / f"before-store-{round_}-{index}")
                    run(args.before, before_env, model, mode, args.target, outputs["before"], before_store, args.jobs)
                steps = [("before", args.before, before_env, before_store), ("cold", args.after, {}, store),
                         ("warm", args.after, {}, store)]
                if round_ % 2:  # the after build first, its cold run still before its warm one
                    steps = steps[1:] + steps[:1]
                for name, binary, env, folder in steps:
                    times[(case, name)].append(run(binary, env, model, mode, args.target, outputs[name], folder,
                                                   args.jobs))
                    search_s, wall_s, peak_mib = times[(case, name)][-1]
                    print(f"round {round_ + 1} {model} {mode} {name}: search {search_s:.2f} s, wall {wall_s:.2f} s, "
                          f"peak {peak_mib:.0f} MiB", file=sys.stderr, flush=True)
                written = [pathlib.Path(outputs[name]).read_bytes() for name in ("before", "cold", "warm")]
                same[case] &= written[0] == written[1] == written[2]
    print(f"| model | mode | before search s | after, cold store | after, warm store | before wall s | after wall s, "
          f"warm | search ratio, warm | before peak MiB | after peak MiB, warm | same model |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        model, mode = case
        search = {name: [t[0] for t in times[(case, name)]] for name in ("before", "cold", "warm")}
        wall = {name: [t[1] for t in times[(case, name)]] for name in ("before", "warm")}
        peak = {name: [t[2] for t in times[(case, name)]] for name in ("before", "warm")}
        ratio = statistics.median(search["before"]) / max(statistics.median(search["warm"]), 1e-9)
        print(f"| {pathlib.Path(model).parent.name or model} | {mode} | {summary(search['before'])} | "
              f"{summary(search['cold'])} | {summary(search['warm'])} | {summary(wall['before'])} | "
              f"{summary(wall['warm'])} | {ratio:.1f}x | {peak_text(peak['before'])} | "
              f"{peak_text(peak['warm'])} | {'yes' if same[case] else 'NO'} |")


if __name__ == "__main__":
    main()

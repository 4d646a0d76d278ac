#!/usr/bin/env python3
"""pet-gpu's TF32 convolutions and GEMMs four ways, side by side on the kit's models: cuDNN's legacy API alone, with the graph API's plans where they time faster, the default without split-K GEMM candidates, and the default (also the column path, im2col and one cuBLASLt GEMM, where it times faster, every GEMM searched with K split too).

Per model one interleaved run: four `pet-gpu serve --tf32` processes of the same weight-free model
(KIT/work/<model>/model.pet, seeded inputs): `--conv-engines 0 --conv-columns off`,
`--conv-columns off`, `--gemm-splits 0` and the default, each loaded once, then `--rounds` rounds timing them in a
rotating order, `--runs` CUDA-graph replays after `--warmup` each; a variant's median is the median
of its round medians, its spread as e2e.py's. All variants on the same card in the same process
tree, so the ratios are side by side.

    python3 bench/gpu/conv_apis.py --kit KIT --out conv_apis.json [--models M,...] [--rounds 3] [--seconds S]
Exit status: 0 all measured, 1 a variant failed, 2 a usage error.
"""
import argparse
import json
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from e2e import PetGpuTimer, entry, interleave  # noqa: E402
from gpu_timing import EVALUATION_MODELS  # noqa: E402

VARIANTS = {"legacy-api": ["--conv-engines", "0", "--conv-columns", "off"], "graph-api": ["--conv-columns", "off"],
            "no-split-k": ["--gemm-splits", "0"], "default": []}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kit", required=True, help="the unpacked kit: KIT/bin/pet-gpu, KIT/work/<model>/model.pet")
    parser.add_argument("--out", required=True, help="the results file (JSON)")
    parser.add_argument("--models", default=",".join(EVALUATION_MODELS), help="comma-separated (default: the nine)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument("--runs", type=int, default=30, help="timed replays per variant and round (default: 30)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed replays before them (default: 5)")
    parser.add_argument("--seconds", type=float, default=0, help="start no model after this many seconds (0: no limit)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.runs < 1 or args.warmup < 0:
        parser.error("--rounds and --runs must be positive, --warmup not negative")
    args.models = [m for m in args.models.split(",") if m]
    return args


def measure_model(kit: Path, model: str, args) -> list:
    """Every variant's entries (e2e.py's form) of one model, timed in interleaved rounds."""
    options = types.SimpleNamespace(runs=args.runs, warmup=args.warmup, conv_cache=None)
    timers = {v: PetGpuTimer(kit / "bin" / "pet-gpu", kit / "work" / model / "model.pet", options, flags)
              for v, flags in VARIANTS.items()}
    outcomes = {}
    try:
        rounds = interleave(timers, outcomes, args.rounds, order=list(VARIANTS))
    finally:
        for timer in timers.values():
            timer.close()
    return [entry(model, 1, v, rounds[v], outcomes.get(v)) for v in VARIANTS]


def main(argv) -> int:
    args = parse_args(argv)
    kit = Path(args.kit)
    if not (kit / "bin" / "pet-gpu").is_file():
        print(f"conv_apis: no pet-gpu in {kit}/bin; unpack the kit (scripts/device/make-kit.sh)", file=sys.stderr)
        return 2
    results, failed = [], False
    start = time.monotonic()
    for model in args.models:
        if args.seconds and time.monotonic() - start > args.seconds:
            print(f"conv_apis: {model}: not started, {args.seconds:.0f} s have passed", flush=True)
            continue
        if not (kit / "work" / model / "model.pet").is_file():
            print(f"conv_apis: {model}: not in the kit's work folder, left out", flush=True)
            continue
        entries = measure_model(kit, model, args)
        results += entries
        failed |= any(e["status"] != "ok" for e in entries)
        default = entries[-1]
        ratio = "".join(f", {e['variant']}/default {e['median_us'] / default['median_us']:.3f}x" for e in entries[:-1]
                        if e["status"] == default["status"] == "ok")
        print(f"{model}: " + "; ".join(f"{e['variant']} " + (f"{e['median_us']:.1f} ± {e['spread_us']:.1f} us"
                                                              if e["status"] == "ok" else e["reason"])
                                       for e in entries) + ratio, flush=True)
        Path(args.out).write_text(json.dumps({"method": vars(args) | {"kit": str(kit)}, "results": results}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

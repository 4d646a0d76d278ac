#!/usr/bin/env python3
"""pet's CPU executor on a float32 model and its bfloat16 rewrite (models/to_bfloat16.py), timed side by side.

  python3 bench/executor_bfloat16.py PET_RUN MODEL.onnx [--rounds 6] [--repeat 3]

Each round runs `pet-run --repeat R` on both models on the same seeded inputs, the order alternating
from round to round; a round's figure is pet-run's median of its R runs. Prints, per model, the
median of the round figures and half their interquartile range, then the ratio of the medians.
"""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import to_bfloat16  # noqa: E402


def latency_ms(pet_run: str, model: Path, repeat: int) -> float:
    done = subprocess.run([pet_run, str(model), "--repeat", str(repeat), "--seed", "2026"], capture_output=True,
                          text=True, check=True)
    return float(re.search(r"latency ([0-9.]+) ms", done.stdout).group(1))


def summary(figures: list) -> str:
    q1, _, q3 = statistics.quantiles(figures, n=4)
    return f"median {statistics.median(figures):.1f} ms ± {(q3 - q1) / 2:.1f} (half IQR) over {len(figures)} rounds"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pet_run")
    parser.add_argument("model", type=Path)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rewritten = Path(folder) / "model_bf16.onnx"
        onnx.save(to_bfloat16.convert(onnx.load(str(args.model))), str(rewritten))
        models = {"float32": args.model, "bfloat16": rewritten}
        figures = {name: [] for name in models}
        for round_index in range(args.rounds):
            order = list(models) if round_index % 2 == 0 else list(reversed(models))
            for name in order:
                figures[name].append(latency_ms(args.pet_run, models[name], args.repeat))
    for name, values in figures.items():
        print(f"{name}: {summary(values)}")
    ratio = statistics.median(figures["bfloat16"]) / statistics.median(figures["float32"])
    print(f"bfloat16 / float32: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The input BERT-s128 b1 against its two hand-merged Q/K/V forms (make_variants.py) in ONNX Runtime, timed
by the harness's own cell measurement (bench/harnesslib/measure.py: deployed session settings, outputs
checked against the input's, interleaved rounds after warm-ups): median ms ± half the IQR.
    python3 qkv_ab.py INPUT.onnx THREADS ROUNDS"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harnesslib.measure import measure_cell  # noqa: E402


def report(variants, threads, rounds):
    request = {"runtime": "ort-cpu", "threads": threads, "warmup": 3, "repeats": rounds, "seed": 2026,
               "variants": [{"name": name, "path": path} for name, path in variants]}
    results = measure_cell(request)
    base = results[variants[0][0]]["median_ms"]
    for name, _ in variants:
        r = results[name]
        print(f"{name:<15} {r['median_ms']:8.2f} ms ± {r['spread_ms']:.2f}  {base / r['median_ms']:.3f}x  check: {r['check']}")


if __name__ == "__main__":
    report([("input", sys.argv[1]), ("split_then_add", "split_then_add.onnx"), ("add_then_split", "add_then_split.onnx")],
           int(sys.argv[2]), int(sys.argv[3]))

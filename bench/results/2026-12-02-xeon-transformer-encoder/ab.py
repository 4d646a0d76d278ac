"""The exported encoder against pet's written model and ONNX Runtime's transformer optimizer's
(model_type bert or as given, 4 heads and hidden 256 or as given, opt_level 0 as the harness's peer runs it), timed by the
harness's cell measurement (deployed session settings, outputs checked against the input's,
interleaved rounds after warm-ups): median ms ± half the IQR, and the nodes each file holds.
    python3 ab.py INPUT.onnx PET_WRITTEN.onnx THREADS ROUNDS [HEADS HIDDEN [MODEL_TYPE]]"""
import collections
import sys
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harnesslib.measure import measure_cell  # noqa: E402

source, written, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
heads, hidden = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else (4, 256)
model_type = sys.argv[7] if len(sys.argv) > 7 else "bert"
from onnxruntime.transformers.optimizer import optimize_model  # noqa: E402

optimizer_path = str(Path(written).with_name("transformer_optimizer.onnx"))
optimize_model(source, model_type=model_type, num_heads=heads, hidden_size=hidden, opt_level=0).save_model_to_file(optimizer_path)
variants = [("input", source), ("pet", written), ("optimizer", optimizer_path)]
for name, path in variants:
    ops = collections.Counter(node.op_type for node in onnx.load(path).graph.node)
    print(f"{name:<10} {sum(ops.values())} nodes; " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))
request = {"runtime": "ort-cpu", "threads": threads, "warmup": 3, "repeats": rounds, "seed": 2026,
           "variants": [{"name": name, "path": path} for name, path in variants]}
results = measure_cell(request)
base = results["input"]["median_ms"]
for name, _ in variants:
    r = results[name]
    print(f"{name:<10} {r['median_ms']:8.3f} ms ± {r['spread_ms']:.3f}  {base / r['median_ms']:.3f}x  check: {r['check']}")

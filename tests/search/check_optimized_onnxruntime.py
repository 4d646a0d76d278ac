#!/usr/bin/env python3
"""Optimizes models with pet-opt and checks each result in onnxruntime against the original.

  python3 tests/search/check_optimized_onnxruntime.py PET_OPT MODELS_DIR OUT_DIR resnet18_b1 csrnet_backend_b1

For each model: pet-opt --beam 8 writes OUT_DIR/NAME.opt.onnx and its report; the optimized model
must pass the ONNX checker (full check, with shape inference), and onnxruntime must give the same
outputs for both models on seeded random inputs (rtol 1e-3, atol 1e-4). Prints one line per
model with the transformations applied and the error, and exits 1 on any failure.
"""
import json
import pathlib
import subprocess
import sys

import numpy
import onnx
import onnxruntime

RTOL, ATOL = 1e-3, 1e-4
SEED = 2026


def session(path):
    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def random_feeds(sess):
    rng = numpy.random.default_rng(SEED)
    return {spec.name: rng.standard_normal(spec.shape).astype(numpy.float32) for spec in sess.get_inputs()}


def check_model(pet_opt, models_dir, out_dir, name):
    original = models_dir / name / "model.onnx"
    optimized = out_dir / f"{name}.opt.onnx"
    report_path = out_dir / f"{name}.opt.json"
    run = subprocess.run([pet_opt, "--beam", "8", str(original), "-o", str(optimized)], capture_output=True, text=True)
    if run.returncode != 0:
        return False, f"pet-opt exited {run.returncode}: {run.stderr.strip()}"
    onnx.checker.check_model(onnx.load(str(optimized)), full_check=True)
    reference, candidate = session(original), session(optimized)
    feeds = random_feeds(reference)
    want, got = reference.run(None, feeds), candidate.run(None, feeds)
    error = max(float(numpy.max(numpy.abs(w - g))) for w, g in zip(want, got))
    close = all(w.shape == g.shape and numpy.allclose(g, w, rtol=RTOL, atol=ATOL) for w, g in zip(want, got))
    report = json.loads(report_path.read_text())
    kinds = report["totals"]["by_evidence"]
    line = (f"{len(report['transformations'])} transformations {kinds}, estimated "
            f"{report['totals']['cost_original_us']:.1f} -> {report['totals']['cost_optimized_us']:.1f} us, "
            f"onnxruntime max abs error {error:.3g}")
    return close, line


def main():
    pet_opt, models_dir, out_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for name in sys.argv[4:]:
        if not (models_dir / name / "model.onnx").exists():
            print(f"{name}: missing; run models/export_models.py first")
            failures += 1
            continue
        ok, line = check_model(pet_opt, models_dir, out_dir, name)
        print(f"{name}: {'ok' if ok else 'FAILED'}: {line}")
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks pet-opt on the uint8-image and int32-token models on both CPU targets.

  python3 tests/models/check_typed_models.py PET_OPT MODELS_DIR OUT_DIR

MODELS_DIR holds what models/export_typed.py writes (scripts/test.sh exports it into
build/models-typed). For each model and target (ort-cpu, openvino-cpu): pet-opt --threads 1
measures into a fresh profile DB (no time is asserted), then the written model must pass
onnx.checker.check_model(full_check=True), keep the original's inputs and outputs with their
element types (uint8, int32), give onnxruntime's outputs of the original on seeded random inputs
of the input's own type (uint8 0..255, token ids 0..49; rtol 1e-3, atol 1e-4), and its report
must say the written model is never slower than the input (the selection keeps the input when
nothing is faster). Exits 77 (ctest's skip) when the models are missing, 1 on any failure.
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
MODELS = {"uint8_image_cnn": (0, 256), "int32_tokens": (0, 50)}  # the inputs' value ranges
TARGETS = ["ort-cpu", "openvino-cpu"]
NUMPY_OF_ONNX = {onnx.TensorProto.UINT8: numpy.uint8, onnx.TensorProto.INT32: numpy.int32,
                 onnx.TensorProto.INT64: numpy.int64, onnx.TensorProto.FLOAT: numpy.float32}


def interface(model):
    return ([(v.name, v.type.tensor_type.elem_type) for v in model.graph.input],
            [(v.name, v.type.tensor_type.elem_type) for v in model.graph.output])


def feeds_for(model, value_range):
    rng = numpy.random.default_rng(SEED)
    feeds = {}
    for value in model.graph.input:
        dtype = NUMPY_OF_ONNX[value.type.tensor_type.elem_type]
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.integers(value_range[0], value_range[1], size=shape).astype(dtype)
    return feeds


def run_ort(path, feeds):
    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)


def never_slower(report):
    """The report's selection: the written candidate's median is at most the input's."""
    selection = report["target"]["selection"]
    candidates = {c["label"]: c for c in selection["candidates"]}
    chosen, original = candidates[selection["chosen"]], selection["candidates"][0]
    return chosen["median_us"] <= original["median_us"], (f"chose {selection['chosen']} "
                                                        f"({chosen['median_us']:.1f} us vs input "
                                                        f"{original['median_us']:.1f} us)")


def check(pet_opt, original_path, out_dir, target, value_range):
    written = out_dir / f"{original_path.parent.name}.{target}.onnx"
    db = out_dir / f"{original_path.parent.name}.{target}.db.json"
    db.unlink(missing_ok=True)
    run = subprocess.run([pet_opt, str(original_path), "-o", str(written), "--target", target, "--threads", "1",
                          "--select-runs", "3", "--profile-db", str(db), "--time-limit", "30"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return [f"pet-opt exited {run.returncode}: {run.stderr.strip()[-2000:]}"], ""
    original, optimized = onnx.load(str(original_path)), onnx.load(str(written))
    failures = []
    onnx.checker.check_model(optimized, full_check=True)
    if interface(optimized) != interface(original):
        failures.append(f"interface changed: {interface(original)} -> {interface(optimized)}")
    feeds = feeds_for(original, value_range)
    want, got = run_ort(original_path, feeds), run_ort(written, feeds)
    error = max(float(numpy.max(numpy.abs(w.astype(numpy.float64) - g))) for w, g in zip(want, got))
    if not all(w.shape == g.shape and numpy.allclose(g, w, rtol=RTOL, atol=ATOL) for w, g in zip(want, got)):
        failures.append(f"onnxruntime max abs error {error:.3g}")
    report = json.loads(written.with_suffix(".json").read_text())
    ok, selection = never_slower(report)
    if not ok:
        failures.append(f"the written model is slower than the input: {selection}")
    return failures, f"{selection}, max abs error {error:.3g}"


def main():
    pet_opt, models_dir, out_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    missing = [name for name in MODELS if not (models_dir / name / "model.onnx").exists()]
    if missing:
        print(f"{', '.join(missing)} missing in {models_dir}: export them with Debian's torch "
              f"(/usr/bin/python3 models/export_typed.py --out {models_dir}; scripts/test.sh does this)")
        sys.exit(77)
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name, value_range in MODELS.items():
        for target in TARGETS:
            failures, line = check(pet_opt, models_dir / name / "model.onnx", out_dir, target, value_range)
            print(f"{name} on {target}: {'ok' if not failures else 'FAILED'}: {line}")
            for failure in failures:
                print(f"  {failure}")
            failed += bool(failures)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

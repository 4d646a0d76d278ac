#!/usr/bin/env python3
"""A bfloat16 BERT (bert_s128_b1 rewritten by models/to_bfloat16.py) runs on pet's executor.

  python3 tests/models/check_bfloat16_model.py PET_RUN MODELS_DIR OUT_DIR

pet-run runs the float32 model and its bfloat16 rewrite on the same seeded token ids (seed 2026);
the bfloat16 output must be bfloat16 and within 5 % relative L2 of the float32 one (bfloat16 keeps
8 significant bits through twelve layers: about 2 % here). No time is measured here (that is
bench/executor_bfloat16.py). Exits 77 (ctest's skip) when the model is not exported.
"""
import pathlib
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "models"))
import to_bfloat16  # noqa: E402

MODEL = "bert_s128_b1"
TOLERANCE = 0.05


def run(pet_run: str, model: pathlib.Path, out: pathlib.Path) -> None:
    done = subprocess.run([pet_run, str(model), "--output-dir", str(out), "--seed", "2026"], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"pet-run {model} exited {done.returncode}: {done.stderr[-600:]}")


def output_as_float(path: pathlib.Path) -> np.ndarray:
    tensor = onnx.load_tensor(str(path))
    if tensor.data_type != TensorProto.BFLOAT16:
        return numpy_helper.to_array(tensor).astype(np.float32)
    bits = np.frombuffer(tensor.raw_data, np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32).reshape(tuple(tensor.dims))


def main(argv) -> int:
    pet_run, models, out = argv[1], pathlib.Path(argv[2]), pathlib.Path(argv[3])
    original = models / MODEL / "model.onnx"
    if not original.is_file():
        print(f"{original} is not exported; skipped")
        return 77
    out.mkdir(parents=True, exist_ok=True)
    rewritten = out / "model_bf16.onnx"
    onnx.save(to_bfloat16.convert(onnx.load(str(original))), str(rewritten))
    run(pet_run, original, out / "f32")
    run(pet_run, rewritten, out / "bf16")
    name = onnx.load(str(original)).graph.output[0].name
    if onnx.load_tensor(str(out / "bf16" / f"{name}.pb")).data_type != TensorProto.BFLOAT16:
        print(f"FAILED: the bfloat16 model's output '{name}' is not bfloat16")
        return 1
    want, got = output_as_float(out / "f32" / f"{name}.pb"), output_as_float(out / "bf16" / f"{name}.pb")
    error = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    print(f"{MODEL} in bfloat16: relative L2 {error:.4f} against float32 (limit {TOLERANCE})")
    return 0 if error <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

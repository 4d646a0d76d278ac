#!/usr/bin/env python3
"""Runs each exported model in onnxruntime and compares with the stored torch output.

Needs a python with onnx and onnxruntime (the default `python3` here, not Debian's):
  python3 models/check_with_onnxruntime.py build-models [--only resnet18_b1,bert_s128_b1]
Pass means |ort - torch| <= atol + rtol * |torch| everywhere (rtol 1e-3, atol 1e-4).
"""

import argparse
import glob
import os
import sys
from typing import Dict, List

import numpy as np
import onnx
from onnx import numpy_helper
import onnxruntime as ort

RTOL = 1e-3
ATOL = 1e-4


def load_tensors(folder: str, prefix: str) -> Dict[str, np.ndarray]:
    tensors = {}
    paths = sorted(glob.glob(os.path.join(folder, f"{prefix}_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    for path in paths:
        proto = onnx.TensorProto()
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
        tensors[proto.name] = numpy_helper.to_array(proto)
    return tensors


def check_one(model_dir: str, threads: int) -> bool:
    data_dir = os.path.join(model_dir, "test_data_set_0")
    inputs = load_tensors(data_dir, "input")
    expected = load_tensors(data_dir, "output")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    got = session.run(list(expected), inputs)
    ok = True
    for (name, want), have in zip(expected.items(), got):
        err = np.abs(have.astype(np.float64) - want)
        tolerance = ATOL + RTOL * np.abs(want)
        bad = int(np.count_nonzero(err > tolerance))
        ok = ok and bad == 0 and have.shape == want.shape
        print(f"  {os.path.basename(model_dir)} {name}{list(want.shape)}: "
              f"max |err| {err.max():.3g}, max |torch| {np.abs(want).max():.3g}, "
              f"worst err/tolerance {(err / tolerance).max():.2f}, "
              f"{bad} outside tolerance -> {'ok' if bad == 0 else 'FAIL'}", flush=True)
    return ok


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out", help="the folder export_models.py wrote")
    p.add_argument("--only", default="", help="comma-separated <model>_b<batch> folder names")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    if args.only:
        dirs = [os.path.join(args.out, d) for d in args.only.split(",") if d]
    else:
        dirs = sorted(os.path.dirname(m) for m in glob.glob(os.path.join(args.out, "*/model.onnx")))
    missing = [d for d in dirs if not os.path.isfile(os.path.join(d, "model.onnx"))]
    if missing or not dirs:
        print(f"error: no exported model in {', '.join(missing) or args.out}", file=sys.stderr)
        return 2
    failed = [d for d in dirs if not check_one(d, args.threads)]
    print(f"onnxruntime {ort.__version__}: {len(dirs) - len(failed)}/{len(dirs)} models match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""Exports the benchmark models to ONNX with one seeded input and torch's output per model.

Run with Debian's torch: /usr/bin/python3 models/export_models.py --out build-models
Layout per model and batch (ONNX's own test-data layout):
  OUT/<model>_b<batch>/model.onnx
  OUT/<model>_b<batch>/test_data_set_0/input_<i>.pb, output_<i>.pb   (onnx.TensorProto)
  OUT/<model>_b<batch>/export_stamp.json   (written last; a matching stamp means "up to date")
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Dict, List, Tuple

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn

from zoo import ALL_MODELS, MODELS, InputSpec, ModelSpec, seed_for

# Bump when anything that changes the exported files changes: a model, its init, seeds, inputs,
# export options or the layout. The stamp also records torch's version and the opset.
EXPORT_VERSION = 2
OPSET = 13
BN_CALIBRATION_BATCH = 2
STAMP_FILE = "export_stamp.json"
DATA_DIR = "test_data_set_0"


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", help="output folder (a build folder, never inside git)")
    p.add_argument("--batch", type=int, nargs="+", default=[1], help="batch sizes (default: 1)")
    p.add_argument("--models", default="",
                   help="comma-separated model names (default: the nine evaluation models; the harness's\n"
                        "extra torchvision models are exported when named)")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("--force", action="store_true", help="re-export even when the stamp matches")
    p.add_argument("--check", action="store_true",
                   help="afterwards run check_with_onnxruntime.py with --ort-python")
    p.add_argument("--ort-python", default="python3",
                   help="a python that has onnxruntime (default: python3 on PATH)")
    p.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default: 2)")
    args = p.parse_args(argv)
    if not args.list and not args.out:
        p.error("--out is required unless --list is given")
    return args


def select_models(names: str) -> List[ModelSpec]:
    if not names:
        return list(MODELS.values())
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in ALL_MODELS]
    if unknown:
        sys.exit(f"error: unknown model(s) {', '.join(unknown)}; known: {', '.join(ALL_MODELS)}")
    return [ALL_MODELS[n] for n in wanted]


def print_list() -> None:
    for spec in ALL_MODELS.values():
        shapes = ", ".join(f"{i.name}[n,{','.join(map(str, i.shape))}]" for i in spec.inputs)
        print(f"{spec.name:18s} seed {seed_for(spec.name):10d}  {shapes}\n"
              f"{'':18s} {spec.about}")


def stamp_for(spec: ModelSpec, batch: int) -> Dict[str, object]:
    return {"export_version": EXPORT_VERSION, "model": spec.name, "batch": batch,
            "seed": seed_for(spec.name), "opset": OPSET, "torch": torch.__version__}


def data_files(spec: ModelSpec) -> List[str]:
    return ([f"input_{i}.pb" for i in range(len(spec.inputs))]
            + [f"output_{i}.pb" for i in range(len(spec.output_names))])


def is_up_to_date(folder: str, spec: ModelSpec, batch: int) -> bool:
    try:
        with open(os.path.join(folder, STAMP_FILE)) as f:
            if json.load(f) != stamp_for(spec, batch):
                return False
    except (OSError, ValueError):
        return False
    needed = ["model.onnx"] + [os.path.join(DATA_DIR, n) for n in data_files(spec)]
    return all(os.path.isfile(os.path.join(folder, n)) for n in needed)


def random_input(spec: InputSpec, batch: int, gen: torch.Generator) -> torch.Tensor:
    shape = (batch,) + spec.shape
    if spec.kind == "normal":
        return torch.randn(shape, generator=gen)
    if spec.kind.startswith("tokens:"):
        return torch.randint(0, int(spec.kind.split(":")[1]), shape, generator=gen)
    raise ValueError(f"unknown input kind {spec.kind!r}")


def calibrate_batch_norms(model: nn.Module, spec: ModelSpec, seed: int) -> None:
    """Gives every BatchNorm a random affine part and running statistics from a random batch.

    Freshly built BatchNorms are identities in eval mode (mean 0, var 1, scale 1, shift 0): deep
    nets then produce outputs of extreme magnitude, and a Conv+BN fold that ignores eps or the
    statistics would go unnoticed. One training-mode pass with momentum=None sets the running
    statistics to the batch's own, so activations stay near unit scale.
    """
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    gen = torch.Generator().manual_seed(seed + 1)
    for bn in norms:
        with torch.no_grad():
            bn.weight.copy_(torch.rand(bn.weight.shape, generator=gen) + 0.5)
            bn.bias.copy_(torch.randn(bn.bias.shape, generator=gen) * 0.1)
        bn.reset_running_stats()
        bn.momentum = None
    inputs = [random_input(i, BN_CALIBRATION_BATCH, gen) for i in spec.inputs]
    model.train()
    with torch.no_grad():
        model(*inputs)
    model.eval()


def build_model(spec: ModelSpec) -> Tuple[nn.Module, int]:
    seed = seed_for(spec.name)
    torch.manual_seed(seed)
    model = spec.build()
    calibrate_batch_norms(model, spec, seed)
    return model.eval(), seed


def write_tensor(path: str, array: np.ndarray, name: str) -> None:
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def check_graph_names(model_path: str, spec: ModelSpec) -> None:
    graph = onnx.load(model_path, load_external_data=False).graph
    inputs = [i.name for i in graph.input]
    outputs = [o.name for o in graph.output]
    expected = [i.name for i in spec.inputs]
    if inputs != expected or outputs != spec.output_names:
        raise RuntimeError(f"{spec.name}: graph inputs {inputs} / outputs {outputs}, expected "
                           f"{expected} / {spec.output_names}")


def export_one(spec: ModelSpec, model: nn.Module, seed: int, batch: int, folder: str) -> None:
    input_seed = seed + 1000 * batch
    gen = torch.Generator().manual_seed(input_seed)
    inputs = tuple(random_input(i, batch, gen) for i in spec.inputs)
    print(f"  {spec.name} b{batch}: weight seed {seed}, input seed {input_seed}", flush=True)
    with torch.no_grad():
        outputs = model(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)

    tmp = folder + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, DATA_DIR))
    model_path = os.path.join(tmp, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, inputs, model_path, opset_version=OPSET,
                          do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL,
                          input_names=[i.name for i in spec.inputs],
                          output_names=spec.output_names)
    onnx.checker.check_model(model_path, full_check=True)
    check_graph_names(model_path, spec)

    tensors = ([(f"input_{k}.pb", t, s.name) for k, (t, s) in enumerate(zip(inputs, spec.inputs))]
               + [(f"output_{k}.pb", t, n)
                  for k, (t, n) in enumerate(zip(outputs, spec.output_names))])
    for file_name, tensor, name in tensors:
        write_tensor(os.path.join(tmp, DATA_DIR, file_name), tensor.numpy(), name)
    with open(os.path.join(tmp, STAMP_FILE), "w") as f:
        json.dump(stamp_for(spec, batch), f, indent=1, sort_keys=True)
        f.write("\n")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)


def export_all(args: argparse.Namespace, specs: List[ModelSpec]) -> None:
    os.makedirs(args.out, exist_ok=True)
    total = time.perf_counter()
    for spec in specs:
        pending = [b for b in args.batch
                   if args.force or not is_up_to_date(os.path.join(args.out, f"{spec.name}_b{b}"),
                                                      spec, b)]
        for b in sorted(set(args.batch) - set(pending)):
            print(f"  {spec.name} b{b}: up to date, skipped")
        if not pending:
            continue
        start = time.perf_counter()
        model, seed = build_model(spec)
        for b in pending:
            folder = os.path.join(args.out, f"{spec.name}_b{b}")
            t0 = time.perf_counter()
            export_one(spec, model, seed, b, folder)
            size_mb = os.path.getsize(os.path.join(folder, "model.onnx")) / 2**20
            print(f"  {spec.name} b{b}: exported in {time.perf_counter() - t0:.1f} s, "
                  f"model.onnx {size_mb:.1f} MiB", flush=True)
        print(f"  {spec.name}: {time.perf_counter() - start:.1f} s with build", flush=True)
    print(f"export total {time.perf_counter() - total:.1f} s")


def run_onnxruntime_check(args: argparse.Namespace, specs: List[ModelSpec]) -> int:
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_with_onnxruntime.py")
    folders = [f"{s.name}_b{b}" for s in specs for b in args.batch]
    command = [args.ort_python, script, args.out, "--only", ",".join(folders)]
    print("running:", " ".join(command), flush=True)
    return subprocess.call(command)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    if args.list:
        print_list()
        return 0
    specs = select_models(args.models)
    torch.set_num_threads(args.threads)
    export_all(args, specs)
    return run_onnxruntime_check(args, specs) if args.check else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

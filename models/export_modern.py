#!/usr/bin/env python3
"""Exports a small CNN with an attention block through the installed torch's default ONNX exporter, with one seeded input and torch's output.

Run with the default python3 once a current torch and onnxscript are installed from PyPI:
  python3 models/export_modern.py --out build/models-modern
Layout (ONNX's own test-data layout, as models/export_models.py writes):
  OUT/modern_cnn_b1/model.onnx
  OUT/modern_cnn_b1/test_data_set_0/input_0.pb, output_0.pb   (onnx.TensorProto)
  OUT/modern_cnn_b1/export_info.json   (torch version, exporter, opset, op types; written last)
Weights are random with a fixed seed; nothing is downloaded.
"""

import argparse
import collections
import inspect
import json
import pathlib
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn

SEED = 1414
MODEL_NAME = "modern_cnn"
BATCH = 1
INPUT_SHAPE = (BATCH, 3, 32, 32)
DATA_DIR = "test_data_set_0"
INFO_FILE = "export_info.json"


class ConvBnRelu(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.first = ConvBnRelu(channels, channels)
        self.second = nn.Sequential(nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        return torch.relu(self.second(self.first(x)) + x)


class AttentionBlock(nn.Module):
    """Pre-norm multi-head self-attention (torch's fused scaled_dot_product_attention) and a GELU MLP."""

    def __init__(self, dim: int, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def split_heads(self, x):
        batch, positions, dim = x.shape
        return x.view(batch, positions, self.heads, dim // self.heads).transpose(1, 2)

    def forward(self, tokens):
        q, k, v = (self.split_heads(part) for part in self.qkv(self.norm1(tokens)).chunk(3, dim=-1))
        attended = nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2)
        tokens = tokens + self.proj(attended)
        return tokens + self.mlp(self.norm2(tokens))


class ModernCnn(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = ConvBnRelu(3, 16)
        self.block = ResidualBlock(16)
        self.down = nn.Sequential(nn.MaxPool2d(2), ConvBnRelu(16, 32, stride=2))
        self.attention = AttentionBlock(32)
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.down(self.block(self.stem(x)))
        tokens = x.flatten(2).transpose(1, 2)
        tokens = self.attention(tokens)
        return self.head(tokens.mean(dim=1))


def build_model() -> nn.Module:
    torch.manual_seed(SEED)
    model = ModernCnn()
    # Non-trivial BatchNorm statistics and LayerNorm scales, so their export (or folding) matters.
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 1.5)
            if isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    return model.eval()


def default_exporter_name() -> str:
    """Which exporter torch.onnx.export uses when the caller does not choose (the `dynamo` default)."""
    parameter = inspect.signature(torch.onnx.export).parameters.get("dynamo")
    if parameter is None:
        return "torchscript (torch.onnx.export has no dynamo option)"
    return "dynamo (torch.export)" if parameter.default else "torchscript"


def write_tensor(path: pathlib.Path, array: np.ndarray, name: str) -> None:
    path.write_bytes(numpy_helper.from_array(array, name=name).SerializeToString())


def op_counts(model: onnx.ModelProto) -> "collections.Counter[str]":
    counts = collections.Counter(node.op_type for node in model.graph.node)
    for function in model.functions:  # local functions, if the exporter kept any
        counts.update(f"{function.name}/{node.op_type}" for node in function.node)
    return counts


def export(out_root: pathlib.Path) -> pathlib.Path:
    folder = out_root / f"{MODEL_NAME}_b{BATCH}"
    if folder.exists():
        shutil.rmtree(folder)
    (folder / DATA_DIR).mkdir(parents=True)
    model = build_model()
    generator = torch.Generator().manual_seed(SEED + 1)
    x = torch.randn(INPUT_SHAPE, generator=generator)
    with torch.no_grad():
        expected = model(x)
    model_path = folder / "model.onnx"
    # No exporter option on purpose: the test is about what the default exporter writes.
    torch.onnx.export(model, (x,), str(model_path))
    exported = onnx.load(str(model_path))
    onnx.checker.check_model(exported, full_check=True)
    if len(exported.graph.input) != 1 or len(exported.graph.output) != 1:
        sys.exit(f"export_modern: expected 1 input and 1 output in {model_path}, got "
                 f"{len(exported.graph.input)} and {len(exported.graph.output)}")
    write_tensor(folder / DATA_DIR / "input_0.pb", x.numpy(), exported.graph.input[0].name)
    write_tensor(folder / DATA_DIR / "output_0.pb", expected.numpy(), exported.graph.output[0].name)
    opset = next(entry.version for entry in exported.opset_import if entry.domain in ("", "ai.onnx"))
    counts = op_counts(exported)
    info = {"torch": torch.__version__, "onnx": onnx.__version__, "exporter": default_exporter_name(),
            "opset": opset, "ir_version": exported.ir_version, "seed": SEED,
            "op_types": dict(sorted(counts.items()))}
    (folder / INFO_FILE).write_text(json.dumps(info, indent=1) + "\n")
    print(f"export_modern: {model_path} (torch {torch.__version__}, exporter {info['exporter']}, "
          f"opset {opset}, IR {exported.ir_version})")
    print("export_modern: op types: " + ", ".join(f"{op} x{n}" for op, n in sorted(counts.items())))
    return folder


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True, help="output folder (a build folder, never inside git)")
    args = parser.parse_args(argv)
    export(pathlib.Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""Exports two small models whose interfaces and shape arithmetic use types other than float32.

Run with Debian's torch: /usr/bin/python3 models/export_typed.py --out build/models-typed
  OUT/uint8_image_cnn/model.onnx   a uint8 NCHW image [1,3,32,32], cast to float and normalised
                                   ((x/255 - mean)/std) inside the graph, then convs, relu, pool, linear
  OUT/int32_tokens/model.onnx      int32 token ids [2,8] into an embedding (Gather), a reshape whose
                                   target shape is computed in int32 (Shape -> Cast(int32) -> Gather,
                                   Mul, Concat -> Cast(int64)), then a linear layer
  OUT/<model>/test_data_set_0/input_0.pb, output_0.pb   (onnx.TensorProto: a seeded input, torch's output)

torch exports shape arithmetic in int64. The int32 model's shape path is rewritten to int32 after
export with onnx's Python API, as TensorFlow-converted models compute it: every Shape output is
cast to int32, its Mul/Div/Concat constants become int32 (indices and axes stay int64), torch's
own casts on the path cast to int32, and the Reshape reads the result
cast back to int64 (rewrite_shape_path_to_int32). The rewritten model is checked to compute what
torch computed (onnx's reference evaluator is not in ONNX 1.12, so the check is left to the test).
"""

import argparse
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

OPSET = 13
SEED = 2026
DATA_DIR = "test_data_set_0"
STATIC_SHAPES = {"input": [2, 8], "output": [2, 4, 6]}  # the int32 model's interface


class Uint8ImageCnn(nn.Module):
    """A uint8 image normalised inside the graph, then a small CNN classifier."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, image):
        x = (image.float() / 255.0 - self.mean) / self.std
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


class Int32Tokens(nn.Module):
    """int32 token ids into an embedding; a reshape to [batch, tokens/2, 2*width] from the input's shape."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(50, 12)
        self.fc = nn.Linear(24, 6)

    def forward(self, ids):
        x = self.embedding(ids)
        shape = x.shape  # traced as Shape -> Gather: torch writes the arithmetic below in int64
        x = x.reshape(shape[0], shape[1] // 2, shape[2] * 2)
        return self.fc(x)


def constant_producers(model):
    return {out: node for node in model.graph.node if node.op_type == "Constant" for out in node.output}


def to_int32_constant(node):
    """A Constant node's int64 value rewritten as int32 (a shape index, a factor)."""
    value = numpy_helper.to_array(node.attribute[0].t)
    if value.dtype == np.int64:
        node.attribute[0].t.CopyFrom(numpy_helper.from_array(value.astype(np.int32), node.attribute[0].t.name))


def rewrite_shape_path_to_int32(model):
    """Casts each Shape output to int32, makes the arithmetic on it int32, casts back before Reshape."""
    graph = model.graph
    constants = constant_producers(model)
    int32_values = set()
    nodes = []
    for node in graph.node:
        if node.op_type == "Reshape" and node.input[1] in int32_values:
            back = node.input[1] + "_i64"
            nodes.append(helper.make_node("Cast", [node.input[1]], [back], to=TensorProto.INT64, name=back))
            node.input[1] = back
        elif node.op_type in ("Gather", "Mul", "Div", "Concat", "Unsqueeze", "Squeeze", "Cast") and any(
                name in int32_values for name in node.input):
            if node.op_type == "Cast":  # torch's own casts on the path keep it in int32
                node.attribute[0].i = TensorProto.INT32
            for name in node.input:
                if name in constants and node.op_type in ("Mul", "Div", "Concat"):  # not indices or axes
                    to_int32_constant(constants[name])
            if node.op_type in ("Gather", "Mul", "Div", "Concat", "Unsqueeze", "Squeeze", "Cast"):
                int32_values.update(node.output)
        nodes.append(node)
        if node.op_type == "Shape":
            narrow = node.output[0] + "_i32"
            nodes.append(helper.make_node("Cast", [node.output[0]], [narrow], to=TensorProto.INT32, name=narrow))
            for later in graph.node:
                later.input[:] = [narrow if name == node.output[0] and later is not node else name
                                  for name in later.input]
            int32_values.add(narrow)
    del graph.node[:]
    graph.node.extend(nodes)
    for value in list(graph.input) + list(graph.output):  # static again (pet takes static shapes)
        for dim, size in zip(value.type.tensor_type.shape.dim, STATIC_SHAPES[value.name]):
            dim.Clear()
            dim.dim_value = size
    return model


def export(module, example, folder, rewrite=None, dynamic_axes=None):
    os.makedirs(os.path.join(folder, DATA_DIR), exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        expected = module(example)
        torch.onnx.export(module, (example,), path, opset_version=OPSET, input_names=["input"],
                          output_names=["output"], do_constant_folding=False, dynamic_axes=dynamic_axes)
    model = onnx.load(path)
    if rewrite:
        model = rewrite(model)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    for kind, value in (("input", example), ("output", expected)):
        tensor = numpy_helper.from_array(value.numpy(), kind)
        with open(os.path.join(folder, DATA_DIR, f"{kind}_0.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    print(f"{folder}: {[(i.name, i.type.tensor_type.elem_type) for i in model.graph.input]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True, help="output folder (a build folder, never inside git)")
    args = parser.parse_args()
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    image = torch.randint(0, 256, (1, 3, 32, 32), dtype=torch.uint8, generator=generator)
    export(Uint8ImageCnn().eval(), image, os.path.join(args.out, "uint8_image_cnn"))
    ids = torch.randint(0, 50, (2, 8), dtype=torch.int32, generator=generator)
    # Dynamic axes make torch compute the reshape's target from Shape (a static trace folds it);
    # the rewrite then fixes the input's shape again, so the model has static shapes throughout.
    export(Int32Tokens().eval(), ids, os.path.join(args.out, "int32_tokens"), rewrite_shape_path_to_int32,
           {"input": {0: "batch", 1: "tokens"}})


if __name__ == "__main__":
    main()

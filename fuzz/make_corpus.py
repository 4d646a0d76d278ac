#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus (fuzz/corpus/<target>/): tiny ONNX models (.model: *.onnx is git-ignored), textual IR, draw bytes; seeded, so reruns give the same files."""
import argparse
import json
import random
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 14


def weight(rng, name, shape):
    return numpy_helper.from_array(rng.uniform(-1, 1, size=shape).astype(np.float32), name)


def conv_relu(rng, opset):
    c, k = int(rng.choice([1, 2, 4])), int(rng.choice([1, 3]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[k // 2] * 4),
             helper.make_node("Relu", ["c"], ["y"])]
    inits = [weight(rng, "w", [2, c, k, k]), weight(rng, "b", [2])]
    return helper.make_graph(nodes, "conv_relu", [x], [y], inits), opset


def matmul_add_softmax(rng, opset):
    m, n = int(rng.choice([1, 2])), int(rng.choice([2, 3]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Add", ["t", "b"], ["u"]),
             helper.make_node("Softmax", ["u"], ["y"], axis=-1)]
    return helper.make_graph(nodes, "mlp", [x], [y], [weight(rng, "w", [3, n]), weight(rng, "b", [n])]), opset


def reshape_transpose_concat(rng, opset):
    axis = int(rng.choice([0, 1]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [12, 2] if axis == 0 else [6, 4])
    shape = numpy_helper.from_array(np.array([2, 6], dtype=np.int64), "shape")
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]), helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
             helper.make_node("Concat", ["t", "t"], ["y"], axis=axis)]
    return helper.make_graph(nodes, "shapes", [x], [y], [shape]), opset


def split_pool_mul(rng, opset):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 2, 2])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 4, 4])
    split = numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "split")
    nodes = [helper.make_node("Split", ["x", "split"], ["a", "b"], axis=1),
             helper.make_node("MaxPool", ["a"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Mul", ["b", "s"], ["z"])]
    return helper.make_graph(nodes, "split", [x], [y, z], [split, weight(rng, "s", [3, 1, 1])]), opset


def onnx_models(out):
    rng = np.random.default_rng(SEED)
    builders = [conv_relu, matmul_add_softmax, reshape_transpose_concat, split_pool_mul]
    for index, builder in enumerate(builders):
        for opset in (13, 17):
            graph, version = builder(rng, opset)
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
            model.ir_version = 8
            onnx.checker.check_model(model)
            (out / f"{index}-{builder.__name__}-opset{version}.model").write_bytes(model.SerializeToString())


IR_EXAMPLES = {
    "tiny": """graph "tiny" opset 13 {
  input %x : f32[1,4]
  const %b : f32[4] = [1,2,3,4]
  %y = Add(%x, %b) : f32[1,4]
  %z = Relu(%y) : f32[1,4]
  output %z
}
""",
    "conv": """graph "conv" opset 13 {
  input %x : f32[1,2,5,5]
  const %w : f32[3,2,3,3] = random(7)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,3,5,5]
  %r = Relu(%c) : f32[1,3,5,5]
  %p = MaxPool[dilations=[1,1], kernel_shape=[2,2], pads=[0,0,0,0], strides=[2,2]](%r) : f32[1,3,2,2]
  output %p
}
""",
    "split": """graph "split" opset 13 {
  input %x : f32[2,6]
  %a, %b = Split[axis=1, split=[2,4]](%x) : f32[2,2], f32[2,4]
  %t = Transpose[perm=[1,0]](%b) : f32[4,2]
  %m = MatMul(%a, %t) : f32[2,2]
  output %m
}
""",
}


def ir_texts(out, rules_dir):
    for name, text in IR_EXAMPLES.items():
        (out / f"{name}.ir").write_text(text)
    # A few left sides of the committed rule library: printed IR as pet writes it.
    picker = random.Random(SEED)
    for shape_class in ("conv", "elementwise", "matmul"):
        rules = json.loads((rules_dir / f"library-{shape_class}.json").read_text())["rules"]
        for rule in picker.sample(rules, 3):
            (out / f"rule-{rule['content_hash']}.ir").write_text(rule["lhs"])


def draw_bytes(out):
    picker = random.Random(SEED)
    for index in range(16):
        (out / f"draw-{index:02d}").write_bytes(bytes(picker.randrange(256) for _ in range(picker.choice([16, 48, 96]))))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    root = Path(__file__).resolve().parent
    parser.add_argument("--out", type=Path, default=root / "corpus")
    args = parser.parse_args()
    folders = {name: args.out / name for name in ("fuzz_onnx_import", "fuzz_text_ir", "fuzz_pet_opt")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    onnx_models(folders["fuzz_onnx_import"])
    ir_texts(folders["fuzz_text_ir"], root.parent / "mutant" / "rules")
    draw_bytes(folders["fuzz_pet_opt"])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Rewrites a float32 ONNX model as a bfloat16 one, as a deployment pipeline would hand it over.

  python3 models/to_bfloat16.py MODEL.onnx OUT.onnx

Every float32 initializer, Constant value, graph input, output and value_info becomes bfloat16
(rounded to nearest even), and every Cast to float32 a Cast to bfloat16; integer and bool tensors
stay as they are. The model computes what the original does with each op's result rounded to
bfloat16.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def bfloat16_bits(array: np.ndarray) -> np.ndarray:
    """The bfloat16 nearest each float32 (ties to even), as its 16-bit pattern."""
    bits = array.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def as_bfloat16(tensor: onnx.TensorProto) -> onnx.TensorProto:
    result = onnx.TensorProto()
    result.name = tensor.name
    result.dims.extend(tensor.dims)
    result.data_type = TensorProto.BFLOAT16
    result.raw_data = bfloat16_bits(numpy_helper.to_array(tensor)).tobytes()
    return result


def convert(model: onnx.ModelProto) -> onnx.ModelProto:
    graph = model.graph
    for i, initializer in enumerate(graph.initializer):
        if initializer.data_type == TensorProto.FLOAT:
            graph.initializer[i].CopyFrom(as_bfloat16(initializer))
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.BFLOAT16
    for node in graph.node:
        for attribute in node.attribute:
            if node.op_type == "Cast" and attribute.name == "to" and attribute.i == TensorProto.FLOAT:
                attribute.i = TensorProto.BFLOAT16
            if attribute.HasField("t") and attribute.t.data_type == TensorProto.FLOAT:
                attribute.t.CopyFrom(as_bfloat16(attribute.t))
    return model


def main(argv) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    onnx.save(convert(onnx.load(argv[1])), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

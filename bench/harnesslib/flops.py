"""Counts a model's floating-point operations in its Conv, ConvTranspose, MatMul and Gemm nodes (2 per multiply-add)."""
from typing import Dict, List, Optional

import numpy as np
import onnx
from onnx import shape_inference


def static_shapes(model: onnx.ModelProto) -> Dict[str, List[int]]:
    """Every tensor's shape that ONNX shape inference makes static, initializers included."""
    inferred = shape_inference.infer_shapes(model)
    shapes = {i.name: list(i.dims) for i in inferred.graph.initializer}
    for value in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        dims = value.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[value.name] = [d.dim_value for d in dims]
    return shapes


def attribute(node: onnx.NodeProto, name: str, default):
    for attr in node.attribute:
        if attr.name == name:
            return onnx.helper.get_attribute_value(attr)
    return default


def conv_flops_of(weight: List[int], output: List[int]) -> int:
    """Each output element sums (input channels / group) x kernel elements products."""
    return 2 * int(np.prod(output)) * int(np.prod(weight[1:]))


def product_flops_of(inner: int, output: List[int]) -> int:
    """A matrix product: each output element sums `inner` products."""
    return 2 * int(np.prod(output)) * int(inner)


def conv_flops(node, shapes) -> Optional[int]:
    weight, output = shapes.get(node.input[1]), shapes.get(node.output[0])
    if weight is None or output is None:
        return None
    return conv_flops_of(weight, output)


def conv_transpose_flops(node, shapes) -> Optional[int]:
    # Each input element scatters into (output channels / group) x kernel elements products.
    source, weight = shapes.get(node.input[0]), shapes.get(node.input[1])
    if source is None or weight is None:
        return None
    return 2 * int(np.prod(source)) * int(np.prod(weight[1:]))


def matmul_flops(node, shapes) -> Optional[int]:
    left, output = shapes.get(node.input[0]), shapes.get(node.output[0])
    if left is None or output is None or not left:
        return None
    return product_flops_of(left[-1], output)


def gemm_flops(node, shapes) -> Optional[int]:
    left, output = shapes.get(node.input[0]), shapes.get(node.output[0])
    if left is None or output is None or len(left) != 2:
        return None
    inner = left[0] if attribute(node, "transA", 0) else left[1]
    return product_flops_of(inner, output)


COUNTERS = {"Conv": conv_flops, "ConvTranspose": conv_transpose_flops, "MatMul": matmul_flops, "Gemm": gemm_flops}


def count_flops(model_path: str) -> Dict[str, object]:
    """{'flops': total, 'uncounted': nodes whose shapes inference left open} over the main graph."""
    model = onnx.load(model_path)
    shapes = static_shapes(model)
    total, uncounted = 0, 0
    for node in model.graph.node:
        counter = COUNTERS.get(node.op_type)
        if counter is None:
            continue
        flops = counter(node, shapes)
        if flops is None:
            uncounted += 1
        else:
            total += flops
    return {"flops": total, "uncounted": uncounted}

#!/usr/bin/env python3
"""Lists the ONNX op types, counts and notable attributes of exported models (importer coverage).

  python3 models/onnx_op_summary.py build-models/*_b1/model.onnx
"""

import sys
from collections import Counter, defaultdict
from typing import Dict, List, Set

import onnx
from onnx import helper

# Attributes that change an op's meaning enough that the importer must handle each value.
NOTABLE = {"mode", "auto_pad", "ceil_mode", "count_include_pad", "dilations", "group", "kernel_shape",
           "pads", "strides", "transA", "transB", "axis", "axes", "perm", "keepdims", "alpha",
           "beta", "split"}


def describe(attr: onnx.AttributeProto) -> str:
    value = helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, list):
        value = tuple(value)
    return f"{attr.name}={value}"


def summarize(path: str) -> None:
    model = onnx.load(path, load_external_data=False)
    counts: Counter = Counter()
    variants: Dict[str, Set[str]] = defaultdict(set)
    for node in model.graph.node:
        counts[node.op_type] += 1
        notes = [describe(a) for a in node.attribute if a.name in NOTABLE]
        variants[node.op_type].add(" ".join(sorted(notes)) or "-")
    inputs = ", ".join(f"{i.name}{[d.dim_value for d in i.type.tensor_type.shape.dim]}"
                       for i in model.graph.input)
    print(f"{path}: {len(model.graph.node)} nodes, "
          f"{len(model.graph.initializer)} initializers, inputs {inputs}")
    for op, n in sorted(counts.items()):
        print(f"  {op:20s} {n:4d}   {' | '.join(sorted(variants[op]))}")


def main(paths: List[str]) -> int:
    for path in paths:
        summarize(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

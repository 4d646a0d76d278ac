"""A one-layer BERT-like encoder in ONNX, built node by node as torch exports BERT (LayerNorm decomposed, attention reshaped to heads), for the transformer-optimizer peer's tests."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

SEQUENCE, HIDDEN, HEADS = 8, 16, 2


class Graph:
    """Nodes and initializers appended in order; each helper returns its output's name."""

    def __init__(self, seed: int):
        self.nodes, self.weights, self.rng, self.count = [], [], np.random.default_rng(seed), 0

    def name(self, op: str) -> str:
        self.count += 1
        return f"{op.lower()}{self.count}"

    def constant(self, array) -> str:
        name = self.name("w")
        self.weights.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op: str, *inputs: str, **attributes) -> str:
        output = self.name(op)
        self.nodes.append(helper.make_node(op, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, rows: int, columns: int) -> str:
        weight = (self.rng.standard_normal((rows, columns)) / np.sqrt(rows)).astype(np.float32)
        return self.op("Add", self.op("MatMul", x, self.constant(weight)),
                       self.constant((self.rng.standard_normal(columns) * 0.1).astype(np.float32)))

    def layer_norm(self, x: str) -> str:
        """LayerNorm as torch.onnx writes it at opset 13: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add."""
        centered = self.op("Sub", x, self.op("ReduceMean", x, axes=[-1]))
        variance = self.op("ReduceMean", self.op("Pow", centered, self.constant(np.float32(2))), axes=[-1])
        deviation = self.op("Sqrt", self.op("Add", variance, self.constant(np.float32(1e-12))))
        scaled = self.op("Mul", self.op("Div", centered, deviation), self.constant(np.ones(HIDDEN, np.float32)))
        return self.op("Add", scaled, self.constant(np.zeros(HIDDEN, np.float32)))

    def heads(self, x: str, key: bool = False) -> str:
        split = self.op("Reshape", x, self.constant(np.array([1, SEQUENCE, HEADS, HIDDEN // HEADS], np.int64)))
        return self.op("Transpose", split, perm=[0, 2, 3, 1] if key else [0, 2, 1, 3])

    def attention(self, x: str) -> str:
        query, key, value = (self.linear(x, HIDDEN, HIDDEN) for _ in range(3))
        scores = self.op("Div", self.op("MatMul", self.heads(query), self.heads(key, key=True)),
                         self.constant(np.float32(np.sqrt(HIDDEN // HEADS))))
        context = self.op("MatMul", self.op("Softmax", scores, axis=-1), self.heads(value))
        merged = self.op("Reshape", self.op("Transpose", context, perm=[0, 2, 1, 3]),
                         self.constant(np.array([1, SEQUENCE, HIDDEN], np.int64)))
        return self.linear(merged, HIDDEN, HIDDEN)


def tiny_bert():
    """The ModelProto: x [1, 8, 16] -> one encoder layer (attention, residual, LayerNorm, GELU MLP, residual, LayerNorm) -> y."""
    g = Graph(seed=11)
    first = g.layer_norm(g.op("Add", "x", g.attention("x")))
    hidden = g.linear(first, HIDDEN, 4 * HIDDEN)
    gelu = g.op("Mul", g.op("Mul", hidden, g.op("Add", g.op("Erf", g.op("Div", hidden, g.constant(np.float32(np.sqrt(2))))),
                                                  g.constant(np.float32(1)))), g.constant(np.float32(0.5)))
    out = g.layer_norm(g.op("Add", first, g.linear(gelu, 4 * HIDDEN, HIDDEN)))
    g.nodes.append(helper.make_node("Identity", [out], ["y"]))
    graph = helper.make_graph(g.nodes, "tiny_bert",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, SEQUENCE, HIDDEN])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, SEQUENCE, HIDDEN])], g.weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

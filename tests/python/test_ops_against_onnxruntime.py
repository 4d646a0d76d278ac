"""pet's executor against ONNX Runtime, op by op and element type by element type.

Each case is one ONNX node on seeded random inputs of one element type, the type's extremes put
first (its lowest and highest values, 0, 1 and -1 for integers; the largest finite magnitudes, the
smallest normal, 0 and -0 for floats). Integer and bool outputs must be equal; float outputs within
a tolerance of their type. Where ONNX leaves a result undefined (an integer divided by 0, a float
out of an integer's range in a Cast) the inputs avoid it. A pair ONNX Runtime has no CPU kernel
for is skipped saying so; every pair pet refuses fails, since the list holds only pairs ONNX allows
and pet claims (docs/ELEMENT_TYPES.md). The seed is printed with every failure.
"""

import numpy as np
import pytest

import pet

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

SEED = 2026
SIZE = 64

INTS = {TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8, TensorProto.INT16: np.int16,
        TensorProto.UINT16: np.uint16, TensorProto.INT32: np.int32, TensorProto.UINT32: np.uint32,
        TensorProto.INT64: np.int64, TensorProto.UINT64: np.uint64}
FLOATS = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64}
NUMPY = {**INTS, **FLOATS, TensorProto.BOOL: np.bool_}
SIGNED = [t for t, n in INTS.items() if np.issubdtype(n, np.signedinteger)]
ALL_INTS, ALL_FLOATS = list(INTS), list(FLOATS)
NUMERIC = ALL_INTS + ALL_FLOATS


def name_of(elem: int) -> str:
    return TensorProto.DataType.Name(elem).lower()


def extremes(numpy_type) -> list:
    if np.issubdtype(numpy_type, np.integer):
        info = np.iinfo(numpy_type)
        return sorted({int(info.min), int(info.max), 0, 1, int(max(info.min, -1))})
    info = np.finfo(numpy_type)
    return [float(info.max), float(-info.max), float(info.tiny), 0.0, -0.0, 1.0, -1.0]


def draw(numpy_type, rng, size=SIZE, low=None, high=None, with_extremes=True) -> np.ndarray:
    """Seeded values of the type, its extremes first (unless bounds are given)."""
    if numpy_type == np.bool_:
        return rng.integers(0, 2, size).astype(np.bool_)
    if np.issubdtype(numpy_type, np.integer):
        info = np.iinfo(numpy_type)
        lo, hi = (info.min if low is None else low), (info.max if high is None else high)
        values = rng.integers(lo, hi, size, dtype=numpy_type, endpoint=True)
    else:
        lo, hi = (-10.0 if low is None else low), (10.0 if high is None else high)
        values = rng.uniform(lo, hi, size).astype(numpy_type)
    if with_extremes and low is None and high is None:
        first = np.array(extremes(numpy_type), dtype=numpy_type)
        values[:len(first)] = first
    return values


def single_node(op: str, inputs: list, outputs: list, opset: int = 18, constants=None, **attrs):
    """A model of one node: inputs and outputs as (name, elem type, shape); `constants` ({name: array},
    read after the inputs) are initializers, as pet needs a Clip's bounds or a Tile's repeats."""
    constants = constants or {}
    node = helper.make_node(op, [n for n, _, _ in inputs] + list(constants), [n for n, _, _ in outputs], **attrs)
    initializers = [onnx.numpy_helper.from_array(value, name) for name, value in constants.items()]
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_both(model, feeds: dict):
    """(ONNX Runtime's outputs, pet's outputs) of the model; skips where ONNX Runtime has no kernel."""
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001 - ORT raises its own classes for a missing kernel
        if "NOT_IMPLEMENTED" in str(error) or "Could not find an implementation" in str(error):
            pytest.skip(f"ONNX Runtime has no CPU kernel: {str(error)[:160]}")
        raise
    expected = session.run(None, feeds)
    got = pet.run(model, feeds)
    return expected, list(got.values())


def assert_same(expected, got, context: str) -> None:
    for want, have in zip(expected, got):
        assert want.dtype == have.dtype, f"{context}: ONNX Runtime gives {want.dtype}, pet {have.dtype}"
        assert want.shape == have.shape, f"{context}: ONNX Runtime gives {want.shape}, pet {have.shape}"
        if np.issubdtype(want.dtype, np.floating):
            rtol = 1e-12 if want.dtype == np.float64 else 1e-5
            np.testing.assert_allclose(have, want, rtol=rtol, atol=0, equal_nan=True, err_msg=context)
        else:
            np.testing.assert_array_equal(have, want, err_msg=context)


def case_id(value) -> str:
    return name_of(value) if isinstance(value, int) else str(value)


BINARY = [("Add", NUMERIC), ("Sub", NUMERIC), ("Mul", NUMERIC), ("Div", NUMERIC), ("Max", NUMERIC),
          ("Min", NUMERIC), ("Equal", NUMERIC), ("Less", NUMERIC), ("Greater", NUMERIC),
          ("LessOrEqual", NUMERIC), ("GreaterOrEqual", NUMERIC)]
COMPARISONS = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}


@pytest.mark.parametrize("op,elem", [(op, t) for op, types in BINARY for t in types], ids=case_id)
def test_binary_op(op, elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    a, b = draw(numpy_type, rng), draw(numpy_type, rng)[::-1].copy()
    if op == "Div" and elem in INTS:  # x / 0 and INT_MIN / -1 are undefined for integers
        b[b == 0] = 1
        if elem in SIGNED:
            b[(a == np.iinfo(numpy_type).min) & (b == -1)] = 1
    if op == "Equal":
        b[:8] = a[:8]
    out = TensorProto.BOOL if op in COMPARISONS else elem
    model = single_node(op, [("a", elem, [SIZE]), ("b", elem, [SIZE])], [("y", out, [SIZE])])
    with np.errstate(all="ignore"):
        expected, got = run_both(model, {"a": a, "b": b})
    assert_same(expected, got, f"{op} over {name_of(elem)} (seed {SEED})")


@pytest.mark.parametrize("elem", ALL_INTS, ids=case_id)
@pytest.mark.parametrize("fmod", [0, 1])
def test_integer_mod_takes_the_sign_onnx_says(elem, fmod):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    a, b = draw(numpy_type, rng), draw(numpy_type, rng)[::-1].copy()
    b[b == 0] = 1
    if elem in SIGNED:
        b[b == -1] = 1  # INT_MIN % -1 traps in C
    model = single_node("Mod", [("a", elem, [SIZE]), ("b", elem, [SIZE])], [("y", elem, [SIZE])], fmod=fmod)
    expected, got = run_both(model, {"a": a, "b": b})
    assert_same(expected, got, f"Mod fmod={fmod} over {name_of(elem)} (seed {SEED})")


UNARY = [("Abs", NUMERIC), ("Neg", SIGNED + ALL_FLOATS), ("Sign", NUMERIC), ("Relu", SIGNED + ALL_FLOATS),
         ("Exp", ALL_FLOATS), ("Log", ALL_FLOATS), ("Sqrt", ALL_FLOATS), ("Floor", ALL_FLOATS),
         ("Ceil", ALL_FLOATS), ("Round", ALL_FLOATS), ("Sigmoid", ALL_FLOATS), ("Tanh", ALL_FLOATS),
         ("Sin", ALL_FLOATS), ("Cos", ALL_FLOATS), ("Erf", ALL_FLOATS), ("Reciprocal", ALL_FLOATS),
         ("IsNaN", ALL_FLOATS), ("IsInf", ALL_FLOATS)]
POSITIVE_ONLY = {"Log", "Sqrt"}
SMALL_ONLY = {"Exp", "Sigmoid", "Tanh", "Sin", "Cos", "Erf", "Reciprocal"}


@pytest.mark.parametrize("op,elem", [(op, t) for op, types in UNARY for t in types], ids=case_id)
def test_unary_op(op, elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    if op in POSITIVE_ONLY:
        x = draw(numpy_type, rng, low=0.01, high=100.0)
    elif op in SMALL_ONLY:  # libm and Eigen differ beyond these in the last bits of huge arguments
        x = draw(numpy_type, rng, low=-20.0, high=20.0)
    else:
        x = draw(numpy_type, rng)
    if op in ("IsNaN", "IsInf"):
        x[:4] = np.array([np.nan, np.inf, -np.inf, 1.0], dtype=numpy_type)
    out = TensorProto.BOOL if op in ("IsNaN", "IsInf") else elem
    model = single_node(op, [("x", elem, [SIZE])], [("y", out, [SIZE])])
    with np.errstate(all="ignore"):
        expected, got = run_both(model, {"x": x})
    if op in SMALL_ONLY or op in POSITIVE_ONLY:
        # Transcendental: libm and ONNX Runtime's vectorized approximations differ in the last bits;
        # its Sigmoid is a rational approximation, off by up to 6e-8 absolute in float and 4e-8
        # relative in double near -20, where pet's is exact to the ulp (1 / (1 + e^-x)).
        float32 = elem == TensorProto.FLOAT
        for want, have in zip(expected, got):
            assert want.dtype == have.dtype
            np.testing.assert_allclose(have, want, rtol=2e-6 if float32 else 1e-13, atol=1e-7 if float32 else 1e-15,
                                       err_msg=f"{op} over {name_of(elem)} (seed {SEED})")
        return
    assert_same(expected, got, f"{op} over {name_of(elem)} (seed {SEED})")


@pytest.mark.parametrize("elem", NUMERIC, ids=case_id)
def test_clip_saturates_to_bounds_of_the_type(elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    x = draw(numpy_type, rng)
    low, high = np.array(3, numpy_type), np.array(100, numpy_type)
    model = single_node("Clip", [("x", elem, [SIZE])], [("y", elem, [SIZE])], constants={"lo": low, "hi": high})
    expected, got = run_both(model, {"x": x})
    assert_same(expected, got, f"Clip over {name_of(elem)} (seed {SEED})")


@pytest.mark.parametrize("elem", NUMERIC + [TensorProto.BOOL], ids=case_id)
def test_where_picks_elements_of_every_type(elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    condition = draw(np.bool_, rng)
    a, b = draw(numpy_type, rng), draw(numpy_type, rng)
    model = single_node("Where", [("c", TensorProto.BOOL, [SIZE]), ("a", elem, [SIZE]), ("b", elem, [SIZE])],
                        [("y", elem, [SIZE])])
    expected, got = run_both(model, {"c": condition, "a": a, "b": b})
    assert_same(expected, got, f"Where over {name_of(elem)} (seed {SEED})")


CAST_TYPES = NUMERIC + [TensorProto.BOOL]


def cast_source(from_elem, to_elem, rng) -> np.ndarray:
    """Values whose cast ONNX defines: a float goes to an integer only from within its range."""
    numpy_type = NUMPY[from_elem]
    if from_elem in FLOATS and to_elem in INTS:
        info = np.iinfo(NUMPY[to_elem])
        low, high = max(float(info.min), -1e6), min(float(info.max), 1e6)
        return draw(numpy_type, rng, low=low, high=high)
    return draw(numpy_type, rng)


@pytest.mark.parametrize("from_elem,to_elem", [(a, b) for a in CAST_TYPES for b in CAST_TYPES], ids=case_id)
def test_cast_between_every_pair(from_elem, to_elem):
    rng = np.random.default_rng(SEED)
    x = cast_source(from_elem, to_elem, rng)
    model = single_node("Cast", [("x", from_elem, [SIZE])], [("y", to_elem, [SIZE])], to=to_elem)
    with np.errstate(all="ignore"):
        expected, got = run_both(model, {"x": x})
    assert_same(expected, got, f"Cast {name_of(from_elem)} -> {name_of(to_elem)} (seed {SEED})")


MOVEMENT = NUMERIC + [TensorProto.BOOL]


@pytest.mark.parametrize("elem", MOVEMENT, ids=case_id)
def test_data_movement_ops_move_every_type(elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    x = draw(numpy_type, rng, size=24).reshape(2, 3, 4)
    other = draw(numpy_type, rng, size=24).reshape(2, 3, 4)
    cases = [
        ("Transpose", {"perm": [2, 0, 1]}, [x], {}, [4, 2, 3]),
        ("Concat", {"axis": 1}, [x, other], {}, [2, 6, 4]),
        ("Tile", {}, [x], {"repeats": np.array([1, 2, 1], np.int64)}, [2, 6, 4]),
        ("Gather", {"axis": 2}, [x], {"indices": np.array([3, 0, 3], np.int32)}, [2, 3, 3]),
        ("Slice", {}, [x], {"starts": np.array([1], np.int32), "ends": np.array([4], np.int32),
                            "axes": np.array([2], np.int32)}, [2, 3, 3]),
    ]
    for op, attrs, feeds, constants, shape in cases:
        inputs = [(f"in{i}", elem, list(feed.shape)) for i, feed in enumerate(feeds)]
        model = single_node(op, inputs, [("y", elem, shape)], constants=constants, **attrs)
        expected, got = run_both(model, {name: value for (name, _, _), value in zip(inputs, feeds)})
        assert_same(expected, got, f"{op} over {name_of(elem)} (seed {SEED})")


WIDE = [TensorProto.INT32, TensorProto.INT64, TensorProto.UINT32, TensorProto.UINT64]
# ONNX's type lists (opset 18): ReduceMax/Min take 8-bit integers but not 16-bit ones.
REDUCTIONS = [("ReduceSum", WIDE + ALL_FLOATS),
              ("ReduceMax", WIDE + [TensorProto.INT8, TensorProto.UINT8] + ALL_FLOATS),
              ("ReduceMin", WIDE + [TensorProto.INT8, TensorProto.UINT8] + ALL_FLOATS),
              ("ArgMax", NUMERIC), ("ArgMin", NUMERIC)]


@pytest.mark.parametrize("op,elem", [(op, t) for op, types in REDUCTIONS for t in types], ids=case_id)
def test_reductions_over_each_type(op, elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    if op == "ReduceSum":  # a sum past the type's range is undefined (ONNX Runtime adds integers in double)
        x = draw(numpy_type, rng, size=48, low=0 if elem in (TensorProto.UINT32, TensorProto.UINT64) else -1000,
                 high=1000).reshape(4, 12)
    else:
        x = draw(numpy_type, rng, size=48).reshape(4, 12)
    if op.startswith("Arg"):
        model = single_node(op, [("x", elem, [4, 12])], [("y", TensorProto.INT64, [4, 1])], axis=1)
    else:
        model = single_node(op, [("x", elem, [4, 12])], [("y", elem, [4, 1])], constants={"axes": np.array([1], np.int64)})
    with np.errstate(all="ignore"):
        expected, got = run_both(model, {"x": x})
    if op == "ReduceSum" and elem in FLOATS:  # summation order differs
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-5 if elem == TensorProto.FLOAT else 1e-12)
        return
    assert_same(expected, got, f"{op} over {name_of(elem)} (seed {SEED})")


@pytest.mark.parametrize("elem", [TensorProto.INT32, TensorProto.INT64, TensorProto.UINT32, TensorProto.UINT64,
                                  TensorProto.DOUBLE], ids=case_id)
def test_matmul_over_each_type(elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    a, b = draw(numpy_type, rng, size=12).reshape(3, 4), draw(numpy_type, rng, size=20).reshape(4, 5)
    model = single_node("MatMul", [("a", elem, [3, 4]), ("b", elem, [4, 5])], [("y", elem, [3, 5])])
    with np.errstate(all="ignore"):
        expected, got = run_both(model, {"a": a, "b": b})
    if elem == TensorProto.DOUBLE:
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
        return
    assert_same(expected, got, f"MatMul over {name_of(elem)} (seed {SEED})")


@pytest.mark.parametrize("elem", [TensorProto.UINT8, TensorProto.INT8, TensorProto.DOUBLE], ids=case_id)
def test_maxpool_over_each_type(elem):
    numpy_type = NUMPY[elem]
    rng = np.random.default_rng(SEED)
    x = draw(numpy_type, rng, size=1 * 2 * 6 * 6).reshape(1, 2, 6, 6)
    model = single_node("MaxPool", [("x", elem, [1, 2, 6, 6])], [("y", elem, [1, 2, 3, 3])], kernel_shape=[2, 2],
                        strides=[2, 2])
    expected, got = run_both(model, {"x": x})
    assert_same(expected, got, f"MaxPool over {name_of(elem)} (seed {SEED})")

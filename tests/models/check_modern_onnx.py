#!/usr/bin/env python3
"""Checks pet on opset 18-21 and float16 models against onnxruntime, before and after pet-opt.

  python3 tests/models/check_modern_onnx.py PET_OPT PET_RUN OUT_DIR

Builds small models with the forms opsets 18-21 introduced (Reduce* axes as an input, Split
num_outputs with an uneven last piece, Pad axes, Resize axes and half_pixel_symmetric, scatter
reduction max, ReduceMax axes input) and float16 models (conv + relu at opsets 17 and 21, a cast
to float16 inside a float32 model). For each: pet-run's outputs must match onnxruntime's on the
original; pet-opt --target h100 (no measuring) writes the model back, which must pass
onnx.checker.check_model(full_check=True), keep the original's inputs and outputs (names and
element types), and give onnxruntime's outputs again. Tolerances: rtol 1e-3 / atol 1e-4 for
float32, 1e-2 relative to the output's magnitude for float16. Exits 1 on any failure.
"""
import pathlib
import subprocess
import sys

import numpy
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

SEED = 2026
IR_FOR_OPSET = {17: 8, 18: 8, 19: 9, 20: 9, 21: 10}


def model(name, opset, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_FOR_OPSET[opset])
    onnx.checker.check_model(built, full_check=True)
    return built


def weights(shape, seed, dtype=numpy.float32):
    return (numpy.random.default_rng(seed).standard_normal(shape) * 0.3).astype(dtype)


def ints(name, values):
    return numpy_helper.from_array(numpy.array(values, dtype=numpy.int64), name)


def reduce_split_pad_opset18():
    """Conv, Relu, Pad with axes, ReduceMean with an axes input, Split into 3 uneven outputs."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Pad", ["r", "pads", "", "pad_axes"], ["p"]),
        helper.make_node("ReduceMean", ["p", "mean_axes"], ["m"], keepdims=1),
        helper.make_node("Split", ["m"], ["y0", "y1", "y2"], axis=1, num_outputs=3),
    ]
    inits = [numpy_helper.from_array(weights((8, 4, 3, 3), 1), "w"), ints("pads", [1, 2, 1, 0]),
             ints("pad_axes", [2, 3]), ints("mean_axes", [3])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, s, 8, 1]) for n, s in (("y0", 3), ("y1", 3), ("y2", 2))]
    return model("reduce_split_pad_opset18", 18, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                 outs, inits)


def resize_opset19():
    """Resize of two axes given by the axes attribute, half_pixel_symmetric coordinates."""
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", axes=[2, 3],
                              coordinate_transformation_mode="half_pixel_symmetric")]
    inits = [numpy_helper.from_array(numpy.array([1.7, 0.6], dtype=numpy.float32), "scales")]
    return model("resize_opset19", 19, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 7])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8, 4])], inits)


def scatter_max_opset21():
    """ScatterElements with reduction max, then ReduceMax over an axes input."""
    nodes = [
        helper.make_node("ScatterElements", ["x", "indices", "u"], ["s"], axis=1, reduction="max"),
        helper.make_node("ReduceMax", ["s", "axes"], ["y"], keepdims=0),
    ]
    inits = [ints("indices", [[0, 2, 2], [1, 1, 3], [3, 0, 0], [2, 2, 1]]), ints("axes", [0])]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5]),
           helper.make_tensor_value_info("u", TensorProto.FLOAT, [4, 3])]
    return model("scatter_max_opset21", 21, nodes, ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])],
                 inits)


def conv_relu_float16(opset):
    """A float16 conv + relu: float16 input, weights, bias and output."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    inits = [numpy_helper.from_array(weights((6, 3, 3, 3), 2, numpy.float16), "w"),
             numpy_helper.from_array(weights((6,), 3, numpy.float16), "b")]
    return model(f"conv_relu_float16_opset{opset}", opset, nodes,
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 8, 8])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 6, 8, 8])], inits)


def cast_to_float16_opset18():
    """A float32 model that rounds through float16 in the middle."""
    nodes = [helper.make_node("Mul", ["x", "scale"], ["m"]),
             helper.make_node("Cast", ["m"], ["h"], to=TensorProto.FLOAT16),
             helper.make_node("Cast", ["h"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Sub", ["f", "m"], ["y"])]
    inits = [numpy_helper.from_array(numpy.array(3.3, dtype=numpy.float32), "scale")]
    return model("cast_to_float16_opset18", 18, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64])], inits)


def float16_interface_passthrough():
    """A float16 model whose input is also a graph output (written back as float16, no Identity)."""
    nodes = [helper.make_node("Mul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    inits = [numpy_helper.from_array(weights((4, 6), 4, numpy.float16), "w")]
    out = [helper.make_tensor_value_info(name, TensorProto.FLOAT16, [4, 6]) for name in ("y", "x")]
    return model("float16_interface_passthrough", 18, nodes,
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4, 6])], out, inits)


CASES = [reduce_split_pad_opset18, resize_opset19, scatter_max_opset21, lambda: conv_relu_float16(17),
         lambda: conv_relu_float16(21), cast_to_float16_opset18,
         float16_interface_passthrough]


def signature(proto):
    return ([(v.name, v.type.tensor_type.elem_type) for v in proto.graph.input],
            [(v.name, v.type.tensor_type.elem_type) for v in proto.graph.output])


def feeds_for(path):
    rng = numpy.random.default_rng(SEED)
    feeds = {}
    for spec in onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_inputs():
        dtype = numpy.float16 if spec.type == "tensor(float16)" else numpy.float32
        feeds[spec.name] = rng.standard_normal(spec.shape).astype(dtype)
    return feeds


def run_ort(path, feeds):
    sess = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


def run_pet(pet_run, path, feeds, out_dir):
    inputs = []
    for name, value in feeds.items():
        file = out_dir / f"{path.stem}.{name}.pb"
        file.write_bytes(numpy_helper.from_array(value, name).SerializeToString())
        inputs += ["--input", f"{name}={file}"]
    result_dir = out_dir / f"{path.stem}.pet-run"
    result_dir.mkdir(exist_ok=True)
    run = subprocess.run([pet_run, str(path), *inputs, "--output-dir", str(result_dir)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"pet-run exited {run.returncode}: {run.stderr.strip()}")
    return {f.stem: numpy_helper.to_array(onnx.load_tensor(str(f))) for f in result_dir.glob("*.pb")}


def difference(want, got):
    """The worst error over the outputs, and whether each is within its element type's tolerance."""
    worst, ok = 0.0, True
    for name, expected in want.items():
        actual = got[name].astype(numpy.float64)
        expected = expected.astype(numpy.float64)
        if actual.shape != expected.shape:
            return float("inf"), False
        error = numpy.abs(actual - expected)
        worst = max(worst, float(error.max(initial=0.0)))
        if want[name].dtype == numpy.float16:
            scale = max(1.0, float(numpy.sqrt(numpy.mean(expected ** 2)))) if expected.size else 1.0
            ok = ok and bool(numpy.all(error <= 1e-2 * scale + 1e-2 * numpy.abs(expected)))
        else:
            ok = ok and bool(numpy.allclose(actual, expected, rtol=1e-3, atol=1e-4))
    return worst, ok


def check(build, pet_opt, pet_run, out_dir):
    original = build()
    name = original.graph.name
    source = out_dir / f"{name}.onnx"
    optimized = out_dir / f"{name}.opt.onnx"
    onnx.save(original, str(source))
    feeds = feeds_for(source)
    want = run_ort(source, feeds)
    pet_error, pet_ok = difference(want, run_pet(pet_run, source, feeds, out_dir))
    if not pet_ok:
        return False, f"{name}: pet-run differs from onnxruntime on the original (max abs error {pet_error:.3g})"
    run = subprocess.run([pet_opt, "--target", "h100", str(source), "-o", str(optimized),
                          "--report", str(out_dir / f"{name}.opt.json")], capture_output=True, text=True)
    if run.returncode != 0:
        return False, f"{name}: pet-opt exited {run.returncode}: {run.stderr.strip()}"
    written = onnx.load(str(optimized))
    onnx.checker.check_model(written, full_check=True)
    if signature(written) != signature(original):
        return False, f"{name}: written signature {signature(written)} differs from {signature(original)}"
    opt_error, opt_ok = difference(want, run_ort(optimized, feeds))
    opset = written.opset_import[0].version
    line = f"{name}: opset {opset}, pet-run error {pet_error:.3g}, written model error {opt_error:.3g}"
    return opt_ok, line + ("" if opt_ok else " (outside tolerance)")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pet_opt, pet_run, out_dir = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for build in CASES:
        try:
            ok, line = check(build, pet_opt, pet_run, out_dir)
        except Exception as error:  # one broken case must not hide the others
            ok, line = False, f"{getattr(build, '__name__', 'case')}: {type(error).__name__}: {error}"
        print(("ok   " if ok else "FAIL ") + line)
        failures += not ok
    print(f"{len(CASES) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

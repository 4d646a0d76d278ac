"""Times every variant of one harness cell in one runtime, interleaved, and checks their outputs against the input's.

Run as a script, one cell per process (so one runtime and its thread pools are alive at a time, and a
variant that crashes the runtime costs one cell):  python3 measure.py REQUEST.json RESULT.json
A request names the runtime (ort-cpu or openvino-cpu), threads, repeats, warm-up rounds, the seed of
the random inputs and the variants' files, the first being the input model (the reference); or
{"kind": "peak", "runtime": R, "threads": N, "size": 2048, "repeats": K} for the CPU's peak in that
runtime (the faster of a size x size sgemm and a 3x3 conv).
"""
import json
import os
import re
import sys
import tempfile
import time
from typing import Dict, List

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harnesslib.stats import median, rotation, spread  # noqa: E402

RELATIVE_TOLERANCE = 1e-3  # float32 reorderings of long sums (fused or merged kernels) stay far inside these
ABSOLUTE_TOLERANCE = 1e-4  # times max(1, the reference output's largest magnitude)
INTEGER_INPUT_RANGE = 2    # integer inputs (token and segment ids) are drawn in [0, 2): valid for any vocabulary


def random_inputs(model_path: str, seed: int) -> Dict[str, np.ndarray]:
    """Seeded inputs for the model's graph inputs: float N(0, 1), integers in [0, INTEGER_INPUT_RANGE)."""
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    generator = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        if np.issubdtype(dtype, np.floating):
            feeds[value.name] = generator.standard_normal(shape).astype(dtype)
        else:
            feeds[value.name] = generator.integers(0, INTEGER_INPUT_RANGE, size=shape).astype(dtype)
    return feeds


class OrtRunner:
    """One ONNX Runtime session at the deployed settings: all graph optimizations, N intra-op threads."""

    def __init__(self, path: str, threads: int, feeds: Dict[str, np.ndarray]):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        if threads > 1:
            # Idle sessions' spinning workers would take the cores from the one being timed.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])
        names = [i.name for i in self.session.get_inputs()]
        self.feeds = {name: feeds[name] for name in names}

    def run(self) -> List[np.ndarray]:
        return self.session.run(None, self.feeds)


class OpenVinoRunner:
    """One OpenVINO CPU compiled model: latency hint, one stream, N inference threads, pet's extension loaded.

    `exact` asks for float32 arithmetic: on CPUs with bf16 units OpenVINO otherwise computes in bf16,
    which the timing should see (it is how the model is deployed) but an output check should not.
    """

    def __init__(self, path: str, threads: int, feeds: Dict[str, np.ndarray], core, exact: bool = False):
        import openvino as ov
        config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1}
        if exact:
            config["INFERENCE_PRECISION_HINT"] = "f32"
        self.compiled = core.compile_model(path, "CPU", config)
        self.request = self.compiled.create_infer_request()
        for port in self.compiled.inputs:
            self.request.set_tensor(port, ov.Tensor(feeds[port.get_any_name()]))

    def run(self) -> List[np.ndarray]:
        self.request.infer()
        return [self.request.get_output_tensor(i).data.copy() for i in range(len(self.compiled.outputs))]


def openvino_core(extension: str):
    import openvino as ov
    core = ov.Core()
    if extension and os.path.isfile(extension):
        core.add_extension(extension)
    return core


LOCATION_LINE = re.compile(r"^(Exception from|Check '|FrontEnd API failed|Summary:)")


def first_line(error: BaseException) -> str:
    """The message of a runtime's exception without its source locations, on one line."""
    lines = [line.strip(" -") for line in str(error).splitlines() if line.strip()]
    meaningful = [line for line in lines if not LOCATION_LINE.match(line)] or lines or [type(error).__name__]
    return " ".join(meaningful)[:240]


def compare(reference: List[np.ndarray], outputs: List[np.ndarray]) -> Dict[str, object]:
    """Whether `outputs` match `reference` within float32 tolerances, with the largest error."""
    if len(reference) != len(outputs):
        return {"check": f"CHANGED ({len(outputs)} outputs, expected {len(reference)})", "max_abs_error": None}
    worst, passed = 0.0, True
    for ref, out in zip(reference, outputs):
        ref, out = np.asarray(ref), np.asarray(out)
        if ref.shape != out.shape:
            return {"check": f"CHANGED (shape {list(out.shape)}, expected {list(ref.shape)})", "max_abs_error": None}
        if not np.issubdtype(ref.dtype, np.floating):
            passed &= bool(np.array_equal(ref, out))
            continue
        ref64, out64 = ref.astype(np.float64), out.astype(np.float64)
        finite = np.isfinite(ref64)
        passed &= bool(np.array_equal(finite, np.isfinite(out64)))
        if not finite.any():
            continue
        scale = max(1.0, float(np.max(np.abs(ref64[finite]))))
        error = np.abs(out64[finite] - ref64[finite])
        worst = max(worst, float(np.max(error)))
        passed &= bool(np.all(error <= ABSOLUTE_TOLERANCE * scale + RELATIVE_TOLERANCE * np.abs(ref64[finite])))
    return {"check": "ok" if passed else f"CHANGED (max abs error {worst:.3g})", "max_abs_error": worst}


def opener(request: dict, feeds: Dict[str, np.ndarray]):
    """A function opening a variant's file in the cell's runtime, exact (float32) or as deployed."""
    if request["runtime"] == "openvino-cpu":
        core = openvino_core(request.get("extension", ""))
        return lambda path, exact: OpenVinoRunner(path, request["threads"], feeds, core, exact)
    return lambda path, exact: OrtRunner(path, request["threads"], feeds)


def check_outputs(request: dict, open_runner) -> Dict[str, dict]:
    """Runs every variant once, exact, and compares its outputs with the input model's (the first variant)."""
    results, reference = {}, None
    for index, variant in enumerate(request["variants"]):
        try:
            outputs = open_runner(variant["path"], True).run()
        except Exception as error:  # a runtime refusing a model is a result, not a crash
            results[variant["name"]] = {"check": f"not runnable: {first_line(error)}", "times_ms": []}
            continue
        if index == 0:
            reference = outputs
            results[variant["name"]] = {"check": "ok", "max_abs_error": 0.0, "times_ms": []}
        elif reference is None:
            results[variant["name"]] = {"check": "no reference (the input model did not run)", "times_ms": []}
        else:
            results[variant["name"]] = dict(compare(reference, outputs), times_ms=[])
    return results


def open_runners(request: dict, open_runner, results: Dict[str, dict]) -> Dict[str, object]:
    """The timing runners (as deployed) of the variants that ran in the check."""
    runners = {}
    for variant in request["variants"]:
        if results[variant["name"]]["check"].startswith(("not runnable", "no reference")):
            continue
        try:
            runners[variant["name"]] = open_runner(variant["path"], False)
        except Exception as error:
            results[variant["name"]]["check"] = f"not runnable: {first_line(error)}"
    return runners


def time_interleaved(request: dict, runners: Dict[str, object], results: Dict[str, dict]) -> None:
    """Warm-up rounds, then `repeats` rounds timing every runnable variant once, each round starting one later."""
    names = [v["name"] for v in request["variants"] if v["name"] in runners]
    for _ in range(request["warmup"]):
        for name in names:
            runners[name].run()
    for round_index in range(request["repeats"]):
        for k in rotation(len(names), round_index):
            start = time.perf_counter()
            runners[names[k]].run()
            results[names[k]]["times_ms"].append((time.perf_counter() - start) * 1000)
    for name in names:
        times = results[name]["times_ms"]
        results[name].update(median_ms=median(times), spread_ms=spread(times))


def measure_cell(request: dict) -> Dict[str, dict]:
    feeds = random_inputs(request["variants"][0]["path"], request["seed"])
    open_runner = opener(request, feeds)
    results = check_outputs(request, open_runner)
    runners = open_runners(request, open_runner, results)
    time_interleaved(request, runners, results)
    return results


def matmul_model(size: int) -> onnx.ModelProto:
    """Y = A x B with A an input and B a constant, both size x size float32."""
    weight = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])], "sgemm",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size, size])],
        [onnx.numpy_helper.from_array(weight, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


# The conv of the peak: 3x3, 256 to 256 channels on a 56x56 map (ResNet's middle stages' shape); a
# runtime's direct or blocked conv kernels can beat its MatMul, and the floor must not be beaten.
CONV_CHANNELS, CONV_SIZE = 256, 56


def conv_model() -> onnx.ModelProto:
    """Y = Conv3x3(X, W), X [1,256,56,56] an input and W a constant."""
    weight = np.random.default_rng(0).standard_normal((CONV_CHANNELS, CONV_CHANNELS, 3, 3)).astype(np.float32) * 0.05
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, CONV_CHANNELS, CONV_SIZE, CONV_SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CONV_CHANNELS, CONV_SIZE, CONV_SIZE])],
        [onnx.numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def median_seconds(request: dict, model: onnx.ModelProto, feeds: dict) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "peak.onnx")
        onnx.save(model, path)
        runner = opener(request, feeds)(path, False)
        for _ in range(2):
            runner.run()
        times = []
        for _ in range(max(5, request["repeats"])):
            start = time.perf_counter()
            runner.run()
            times.append(time.perf_counter() - start)
    return median(times)


def measure_peak(request: dict) -> dict:
    """The CPU's rate in the runtime as deployed at N threads: the faster of a size x size sgemm
    (2 size^3 FLOPs) and a 3x3 conv (conv_model), each over its median time.

    As deployed: OpenVINO on a CPU with bf16 units computes in bf16, so its peak is bf16's.
    """
    size, threads = request["size"], request["threads"]
    rng = np.random.default_rng(request.get("seed", 0))
    matmul_s = median_seconds(request, matmul_model(size), {"a": rng.standard_normal((size, size)).astype(np.float32)})
    conv_feed = {"x": rng.standard_normal((1, CONV_CHANNELS, CONV_SIZE, CONV_SIZE)).astype(np.float32)}
    conv_s = median_seconds(request, conv_model(), conv_feed)
    matmul_gflops = 2 * size ** 3 / matmul_s / 1e9
    conv_gflops = 2 * CONV_CHANNELS * CONV_CHANNELS * 9 * CONV_SIZE * CONV_SIZE / conv_s / 1e9
    return {"runtime": request["runtime"], "threads": threads, "size": size, "median_ms": matmul_s * 1000,
            "matmul_gflops": matmul_gflops, "conv_gflops": conv_gflops, "gflops": max(matmul_gflops, conv_gflops)}


def main(argv) -> int:
    if len(argv) != 2:
        print("usage: measure.py REQUEST.json RESULT.json", file=sys.stderr)
        return 2
    with open(argv[0]) as handle:
        request = json.load(handle)
    result = measure_peak(request) if request.get("kind") == "peak" else measure_cell(request)
    with open(argv[1], "w") as handle:
        json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""pet's ONNX Runtime CPU worker (timing and single runs): one JSON request per stdin line, one JSON reply per stdout line."""

import base64
import ctypes
import json
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

VERSION = "onnxruntime " + ort.__version__


class ModelError(Exception):
    """A model ONNX Runtime rejected: `index` is its position in the request."""

    def __init__(self, index, message):
        super().__init__(message)
        self.index = index


def make_session(path, request, profile_prefix):
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(request["threads"])
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    if options.intra_op_num_threads > 1:
        # Every session keeps its own thread pool, whose workers spin after each run; with the
        # several sessions of one interleaved request alive at once, idle sessions' spinning
        # workers would take the cores from the one running (ResNet-18 b1, 2 threads, 5 sessions
        # alive, processes alternated 3 times, medians of 10: 55.5-65.7 ms spinning, 21.2-24.6 ms not).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if request.get("per_node", False):
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])


# ONNX Runtime's input type strings ("tensor(float)") -> numpy dtypes.
FLOAT_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16}
INT_TYPES = {
    "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32, "tensor(int64)": np.int64,
    "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16, "tensor(uint32)": np.uint32, "tensor(uint64)": np.uint64,
}
# numpy has no bfloat16: such tensors are numpy uint16 arrays of the raw bits, given to ONNX Runtime
# as OrtValues of this ONNX element type (TensorProto.BFLOAT16).
BFLOAT16 = "tensor(bfloat16)"
ONNX_BFLOAT16 = 16


def bfloat16_value(bits):
    return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(np.ascontiguousarray(bits, dtype="<u2"), ONNX_BFLOAT16)


def make_inputs(session, rng):
    """Floats uniform in [-1, 1), integers 0, booleans true."""
    feeds = {}
    for arg in session.get_inputs():
        shape = [int(d) for d in arg.shape]
        if arg.type in FLOAT_TYPES:
            feeds[arg.name] = rng.uniform(-1.0, 1.0, size=shape).astype(FLOAT_TYPES[arg.type])
        elif arg.type == BFLOAT16:  # the upper halves of float32s (truncated, which timing does not mind)
            values = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
            feeds[arg.name] = bfloat16_value((values.view(np.uint32) >> 16).astype(np.uint16))
        elif arg.type in INT_TYPES:
            feeds[arg.name] = np.zeros(shape, dtype=INT_TYPES[arg.type])
        elif arg.type == "tensor(bool)":
            feeds[arg.name] = np.ones(shape, dtype=np.bool_)
        else:
            raise ValueError(f"input '{arg.name}' has type {arg.type}, which the timing worker cannot fill")
    return feeds


def takes_bfloat16(session):
    return any(arg.type == BFLOAT16 for arg in session.get_inputs() + session.get_outputs())


def runner(session, feeds):
    """A call that runs the session once on feeds: session.run, or, for a model with bfloat16 inputs
    or outputs (which session.run cannot turn into numpy arrays), run_with_ort_values on OrtValues
    made once, which returns OrtValues."""
    if not takes_bfloat16(session):
        return lambda: session.run(None, feeds)
    values = {name: value if isinstance(value, ort.OrtValue) else ort.OrtValue.ortvalue_from_numpy(value)
              for name, value in feeds.items()}
    return lambda: session.run_with_ort_values(None, values)


def node_times(profile_path, warmup):
    """Median kernel time per node over the timed runs, nodes in first-execution order."""
    with open(profile_path) as f:
        events = json.load(f)
    nodes = {}  # name -> {"op", "kernel", "durs"}; dicts keep insertion (first-execution) order
    for event in events:
        name = event.get("name", "")
        if event.get("cat") != "Node" or not name.endswith("_kernel_time"):
            continue
        args = event.get("args", {})
        node = nodes.setdefault(name[: -len("_kernel_time")],
                                {"op": args.get("op_name", ""), "kernel": args.get("provider", ""), "durs": []})
        node["durs"].append(float(event.get("dur", 0)))
    return [{"name": name, "op": node["op"], "kernel": node["kernel"],
             "us": statistics.median(node["durs"][warmup:]) if len(node["durs"]) > warmup else 0.0}
            for name, node in nodes.items()]


def run_one(index, run):
    try:
        start = time.perf_counter_ns()
        run()
        return (time.perf_counter_ns() - start) / 1000.0
    except Exception as error:  # onnxruntime raises its own exception types
        raise ModelError(index, str(error)) from error


def load_all(request, workdir):
    sessions, runs = [], []
    rng = np.random.default_rng(int(request.get("seed", 2026)))
    for index, path in enumerate(request["models"]):
        try:
            session = make_session(path, request, f"{workdir}/model{index}")
            runs.append(runner(session, make_inputs(session, rng)))
        except Exception as error:
            raise ModelError(index, str(error)) from error
        sessions.append(session)
    return sessions, runs


def time_models(request):
    workdir = tempfile.mkdtemp(prefix="pet-ort-profile-")
    try:
        sessions, runners = load_all(request, workdir)
        warmup, runs = int(request.get("warmup", 3)), int(request.get("runs", 10))
        for _ in range(warmup):
            for index, run in enumerate(runners):
                run_one(index, run)
        runs_us = [[] for _ in sessions]
        for _ in range(runs):
            for index, run in enumerate(runners):
                runs_us[index].append(run_one(index, run))
        timings = []
        for index, session in enumerate(sessions):
            nodes = node_times(session.end_profiling(), warmup) if request.get("per_node", False) else []
            timings.append({"runs_us": runs_us[index], "nodes": nodes})
        return {"ok": True, "version": VERSION, "timings": timings}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# Tensors on the wire: numpy dtype name, shape, base64 of the raw little-endian bytes; "bfloat16"
# carries each element's 16 bits (numpy has none).
WIRE_DTYPES = {"float32": np.dtype("<f4"), "float64": np.dtype("<f8"), "float16": np.dtype("<f2"),
               "int8": np.dtype("i1"), "uint8": np.dtype("u1"), "int16": np.dtype("<i2"), "uint16": np.dtype("<u2"),
               "int32": np.dtype("<i4"), "uint32": np.dtype("<u4"), "int64": np.dtype("<i8"),
               "uint64": np.dtype("<u8"), "bool": np.dtype(np.bool_)}


def tensor_from_wire(wire):
    """A numpy array, or an OrtValue for a bfloat16 tensor."""
    data = base64.b64decode(wire["data"], validate=True)
    shape = [int(d) for d in wire["shape"]]
    if wire["dtype"] == "bfloat16":
        return bfloat16_value(np.frombuffer(data, dtype="<u2").reshape(shape))
    return np.frombuffer(data, dtype=WIRE_DTYPES[wire["dtype"]]).reshape(shape)


def wire(dtype_name, shape, data):
    return {"dtype": dtype_name, "shape": [int(d) for d in shape], "data": base64.b64encode(data).decode("ascii")}


def tensor_to_wire(output):
    """A numpy array or an OrtValue (a bfloat16 one's bytes are read where ONNX Runtime holds them)."""
    if isinstance(output, ort.OrtValue):
        if output.data_type() == BFLOAT16:
            size = output.tensor_size_in_bytes()
            return wire("bfloat16", output.shape(), ctypes.string_at(output.data_ptr(), size) if size else b"")
        output = output.numpy()
    array = np.asarray(output)
    for name, dtype in WIRE_DTYPES.items():
        if array.dtype == dtype or (array.dtype.kind == dtype.kind and array.dtype.itemsize == dtype.itemsize):
            return wire(name, array.shape, np.ascontiguousarray(array, dtype=dtype).tobytes())
    raise ValueError(f"output of dtype {array.dtype} cannot be sent back to pet")


def run_model(request):
    """Runs one model once on the given inputs, in the session's input order; outputs in its output order."""
    run = request["run"]
    try:
        session = make_session(run["model"], {"threads": run.get("threads", 1)}, None)
        names = [arg.name for arg in session.get_inputs()]
        if len(names) != len(run["inputs"]):
            raise ValueError(f"the model has {len(names)} inputs, {len(run['inputs'])} were given")
        feeds = {name: tensor_from_wire(wire) for name, wire in zip(names, run["inputs"])}
        outputs = runner(session, feeds)()
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed run request: {error!r}") from error
    except Exception as error:  # onnxruntime raises its own exception types
        raise ModelError(0, str(error)) from error
    return {"ok": True, "outputs": [tensor_to_wire(output) for output in outputs]}


def answer(line):
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise ValueError("a request must be a JSON object")
    except ValueError as error:
        return {"ok": False, "index": -1, "error": f"malformed request: {error}"}
    if request.get("version", False):
        return {"ok": True, "version": VERSION}
    try:
        return run_model(request) if "run" in request else time_models(request)
    except ModelError as error:
        return {"ok": False, "index": error.index, "error": str(error)}
    except (KeyError, TypeError, ValueError) as error:
        return {"ok": False, "index": -1, "error": f"malformed request: {error!r}"}
    except Exception as error:  # e.g. an unreadable profile: the C++ side reports it as pet's bug
        return {"ok": False, "index": -1, "error": f"{type(error).__name__}: {error}"}


def main():
    ort.set_default_logger_severity(3)
    out = sys.stdout
    sys.stdout = sys.stderr  # anything a library prints must not corrupt the reply stream
    for line in sys.stdin:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line)) + "\n")
        out.flush()


if __name__ == "__main__":
    main()

"""pet's ONNX Runtime CPU worker (timing and single runs): one JSON request per stdin line, one JSON reply per stdout line."""

import base64
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


def make_inputs(session, rng):
    feeds = {}
    for arg in session.get_inputs():
        shape = [int(d) for d in arg.shape]
        if arg.type in FLOAT_TYPES:
            feeds[arg.name] = rng.uniform(-1.0, 1.0, size=shape).astype(FLOAT_TYPES[arg.type])
        elif arg.type in INT_TYPES:
            feeds[arg.name] = np.zeros(shape, dtype=INT_TYPES[arg.type])
        elif arg.type == "tensor(bool)":
            feeds[arg.name] = np.ones(shape, dtype=np.bool_)
        else:
            raise ValueError(f"input '{arg.name}' has type {arg.type}, which the timing worker cannot fill")
    return feeds


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


def run_one(index, session, feeds):
    try:
        start = time.perf_counter_ns()
        session.run(None, feeds)
        return (time.perf_counter_ns() - start) / 1000.0
    except Exception as error:  # onnxruntime raises its own exception types
        raise ModelError(index, str(error)) from error


def load_all(request, workdir):
    sessions, feeds = [], []
    rng = np.random.default_rng(int(request.get("seed", 2026)))
    for index, path in enumerate(request["models"]):
        try:
            session = make_session(path, request, f"{workdir}/model{index}")
            feeds.append(make_inputs(session, rng))
        except Exception as error:
            raise ModelError(index, str(error)) from error
        sessions.append(session)
    return sessions, feeds


def time_models(request):
    workdir = tempfile.mkdtemp(prefix="pet-ort-profile-")
    try:
        sessions, feeds = load_all(request, workdir)
        warmup, runs = int(request.get("warmup", 3)), int(request.get("runs", 10))
        for _ in range(warmup):
            for index, session in enumerate(sessions):
                run_one(index, session, feeds[index])
        runs_us = [[] for _ in sessions]
        for _ in range(runs):
            for index, session in enumerate(sessions):
                runs_us[index].append(run_one(index, session, feeds[index]))
        timings = []
        for index, session in enumerate(sessions):
            nodes = node_times(session.end_profiling(), warmup) if request.get("per_node", False) else []
            timings.append({"runs_us": runs_us[index], "nodes": nodes})
        return {"ok": True, "version": VERSION, "timings": timings}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# Tensors on the wire: numpy dtype name, shape, base64 of the raw little-endian bytes.
WIRE_DTYPES = {"float32": np.dtype("<f4"), "int64": np.dtype("<i8"), "bool": np.dtype(np.bool_),
               "float16": np.dtype("<f2")}


def tensor_from_wire(wire):
    data = base64.b64decode(wire["data"], validate=True)
    return np.frombuffer(data, dtype=WIRE_DTYPES[wire["dtype"]]).reshape([int(d) for d in wire["shape"]])


def tensor_to_wire(array):
    array = np.asarray(array)
    for name, dtype in WIRE_DTYPES.items():
        if array.dtype == dtype or (array.dtype.kind == dtype.kind and array.dtype.itemsize == dtype.itemsize):
            data = np.ascontiguousarray(array, dtype=dtype).tobytes()
            return {"dtype": name, "shape": list(array.shape), "data": base64.b64encode(data).decode("ascii")}
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
        outputs = session.run(None, feeds)
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

"""Makes one peer tool's version of a model (onnxsim, onnxslim, onnxoptimizer, ONNX Runtime's offline ENABLE_ALL and its transformer optimizer).

Run as a script, one tool per process, so that a tool that crashes or hangs costs the harness one
flagged cell and not the run:  python3 peers.py TOOL IN.onnx OUT.onnx
Exit status 0 with OUT written; 3 when the tool is not installed; 4 when it does not apply to the
model (the reason on stderr); 1 when it failed (message on stderr).
"""
import collections
import importlib.util
import sys

MODULES = {"onnxsim": "onnxsim", "onnxslim": "onnxslim", "onnxoptimizer": "onnxoptimizer", "ort-offline": "onnxruntime",
           "ort-transformers": "onnxruntime"}
NOT_INSTALLED = 3
NOT_APPLICABLE = 4


class NotApplicable(Exception):
    """The tool does not apply to this model: the reason."""


def is_available(tool: str) -> bool:
    return importlib.util.find_spec(MODULES[tool]) is not None


def version_of(tool: str) -> str:
    """The installed version of the tool's Python package, or 'not installed'."""
    if not is_available(tool):
        return "not installed"
    from importlib import metadata
    package = MODULES[tool] if tool.startswith("ort-") else tool
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def run_onnxsim(source: str, target: str) -> None:
    import onnx
    from onnxsim import simplify
    model, _ = simplify(onnx.load(source))
    onnx.save(model, target)


def run_onnxslim(source: str, target: str) -> None:
    import onnx
    import onnxslim
    onnx.save(onnxslim.slim(onnx.load(source)), target)


def run_onnxoptimizer(source: str, target: str) -> None:
    import onnx
    import onnxoptimizer
    onnx.save(onnxoptimizer.optimize(onnx.load(source)), target)  # its default fuse/eliminate passes


def run_ort_offline(source: str, target: str) -> None:
    # ORT_ENABLE_ALL saved by ONNX Runtime itself: its fused ops (domain com.microsoft) and NCHWc
    # layout are specific to this CPU and to ONNX Runtime.
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = target
    # A model with its weights beside it (torch's current exporter) gets its own weights file beside
    # the target: the source's relative path would not resolve from the target's folder.
    import onnx
    if any(i.data_location == onnx.TensorProto.EXTERNAL for i in onnx.load(source, load_external_data=False).graph.initializer):
        from pathlib import Path
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", Path(target).name + ".data")
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])


def int64_constants(graph) -> dict:
    """name -> list of ints, of the graph's int64 initializers and Constant nodes (Reshape's shapes).
    Initializers kept in an external data file (large ones, read without their data) are left out."""
    from onnx import TensorProto, numpy_helper
    found = {i.name: numpy_helper.to_array(i).tolist() for i in graph.initializer
             if i.data_type == TensorProto.INT64 and i.data_location != TensorProto.EXTERNAL}
    for node in graph.node:
        for attribute in node.attribute:
            if node.op_type == "Constant" and attribute.name == "value" and attribute.t.data_type == TensorProto.INT64:
                found[node.output[0]] = numpy_helper.to_array(attribute.t).tolist()
    return found


def attention_shape(model) -> tuple:
    """(heads, hidden size) of a transformer's self-attention: the most frequent constant Reshape to
    [batch, sequence, heads, head size] in a graph with a Softmax; (0, 0), which the optimizer reads
    as "detect them", where the heads are split otherwise (torch's nn.MultiheadAttention: [S, B*N, d]);
    NotApplicable without a Softmax."""
    graph = model.graph
    if not any(n.op_type == "Softmax" for n in graph.node):
        raise NotApplicable("not a transformer: no self-attention (no Softmax) in its graph")
    constants = int64_constants(graph)
    splits = collections.Counter(tuple(constants[n.input[1]]) for n in graph.node
                                 if n.op_type == "Reshape" and len(constants.get(n.input[1], [])) == 4
                                 and min(constants[n.input[1]][2:]) > 0)
    if not splits:
        return 0, 0
    (_, _, heads, head_size), _ = splits.most_common(1)[0]
    return heads, heads * head_size


def run_ort_transformers(source: str, target: str) -> None:
    # ONNX Runtime's transformer optimizer (onnxruntime.transformers.optimizer) with BERT's fusions:
    # attention, SkipLayerNormalization, BiasGelu; its com.microsoft ops run in ONNX Runtime only.
    # opt_level 0: its Python fusions alone; ONNX Runtime's own graph optimizations run when the
    # session loads the file, as for every variant (its opt_level 1 pre-pass imports torch).
    import onnx
    from onnxruntime.transformers.optimizer import optimize_model
    heads, hidden = attention_shape(onnx.load(source, load_external_data=False))
    optimized = optimize_model(source, model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0)
    optimized.save_model_to_file(target)


RUNNERS = {"onnxsim": run_onnxsim, "onnxslim": run_onnxslim, "onnxoptimizer": run_onnxoptimizer,
           "ort-offline": run_ort_offline, "ort-transformers": run_ort_transformers}


def main(argv) -> int:
    if len(argv) != 3 or argv[0] not in RUNNERS:
        print(f"usage: peers.py {{{','.join(RUNNERS)}}} IN.onnx OUT.onnx", file=sys.stderr)
        return 2
    tool, source, target = argv
    if not is_available(tool):
        print(f"{tool}: not installed (python3 -m pip install {MODULES[tool]})", file=sys.stderr)
        return NOT_INSTALLED
    try:
        RUNNERS[tool](source, target)
    except NotApplicable as reason:
        print(f"{tool}: {reason}", file=sys.stderr)
        return NOT_APPLICABLE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

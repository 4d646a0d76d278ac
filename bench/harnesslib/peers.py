"""Makes one peer tool's version of a model (onnxsim, onnxslim, onnxoptimizer, ONNX Runtime's offline ENABLE_ALL).

Run as a script, one tool per process, so that a tool that crashes or hangs costs the harness one
flagged cell and not the run:  python3 peers.py TOOL IN.onnx OUT.onnx
Exit status 0 with OUT written; 3 when the tool is not installed; 1 when it failed (message on stderr).
"""
import importlib.util
import sys

MODULES = {"onnxsim": "onnxsim", "onnxslim": "onnxslim", "onnxoptimizer": "onnxoptimizer", "ort-offline": "onnxruntime"}
NOT_INSTALLED = 3


def is_available(tool: str) -> bool:
    return importlib.util.find_spec(MODULES[tool]) is not None


def version_of(tool: str) -> str:
    """The installed version of the tool's Python package, or 'not installed'."""
    if not is_available(tool):
        return "not installed"
    from importlib import metadata
    package = {"ort-offline": "onnxruntime"}.get(tool, tool)
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
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])


RUNNERS = {"onnxsim": run_onnxsim, "onnxslim": run_onnxslim, "onnxoptimizer": run_onnxoptimizer,
           "ort-offline": run_ort_offline}


def main(argv) -> int:
    if len(argv) != 3 or argv[0] not in RUNNERS:
        print(f"usage: peers.py {{{','.join(RUNNERS)}}} IN.onnx OUT.onnx", file=sys.stderr)
        return 2
    tool, source, target = argv
    if not is_available(tool):
        print(f"{tool}: not installed (python3 -m pip install {MODULES[tool]})", file=sys.stderr)
        return NOT_INSTALLED
    RUNNERS[tool](source, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

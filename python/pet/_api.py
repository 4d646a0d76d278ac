"""pet's Python API: optimize, check, run and targets over the C++ library (pet._pet)."""

import dataclasses
import functools
import inspect
import json
import os
import sys
import tempfile
import textwrap
import typing

from . import _cli, _flags, _models, _native, _pet
from ._errors import CheckFailed, UserError

# The device specs pet ships (search/cost/devices/*.json, embedded in the library), priced by the
# analytic roofline; tests/python/test_targets.py holds this list to those files.
ANALYTIC_DEVICES = ("a100", "v100")


@dataclasses.dataclass(frozen=True, repr=False)
class Result:
    """What pet.optimize returns: the optimized model, checked, and pet-opt's report of it."""

    report: typing.Optional[dict]
    """pet-opt's JSON report (--report) as a dict; its "output" is None, and so is its "model" for a
    model given in memory. None with ``passes=``, which writes no report."""
    summary: str
    """What pet-opt prints: the transformations, the measured latencies, the checks."""
    model_bytes: bytes
    """The optimized model as pet wrote and checked it, byte for byte what pet-opt writes."""

    @functools.cached_property
    def model(self):
        """The optimized model, an onnx.ModelProto (every weight inside), parsed from model_bytes at
        first use: a result only saved never holds the model twice."""
        import onnx

        return onnx.load_model_from_string(self.model_bytes)

    def __repr__(self):
        size = f"{len(self.model_bytes) / 2**20:.1f} MiB"
        if self.report is None:
            return f"pet.Result(passes only, model {size})"
        return (f"pet.Result(speedup={self.speedup:.3f}x ({self.report['speedup_source']}), chosen={self.chosen!r}, "
                f"{len(self.transformations)} transformations, nodes {self.report['nodes_before']} -> "
                f"{self.report['nodes_after']}, model {size})")

    @property
    def transformations(self) -> list:
        """The applied transformations with their evidence, as the report lists them."""
        return self.report["transformations"] if self.report else []

    @property
    def chosen(self) -> typing.Optional[str]:
        """Which program was written, as the report's "chosen" says: a measured target's end-to-end
        choice ("input", "cleaned", "program 2", ...), else "program 1" (the search's best) or
        "cleaned"; None with ``passes=``, which writes no report."""
        return self.report["chosen"] if self.report else None

    @property
    def speedup(self) -> float:
        """The input's latency over the written model's, as the report's "speedup" says: measured (or
        replayed) end to end in the target runtime where it was timed, else the cost model's estimate
        ("speedup_source" says which); 1.0 with ``passes=``."""
        return self.report["speedup"] if self.report else 1.0

    def save(self, path):
        """Writes the optimized model to ``path``, the bytes pet wrote and checked."""
        with open(os.fspath(path), "wb") as file:
            file.write(self.model_bytes)


class _TerminalLine:
    """The search's progress on one terminal line, overwritten, as pet-opt shows it."""

    def __init__(self, stream):
        self.stream = stream
        self.shown = False

    def __call__(self, line):
        self.stream.write("\r\033[K" + line)
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


class _NotebookLine(_TerminalLine):
    """The progress in a Jupyter notebook's output, one line overwritten: a carriage return and the
    line padded to the last one's length (a notebook's output shows no terminal escapes)."""

    def __init__(self, stream):
        super().__init__(stream)
        self.width = 0

    def __call__(self, line):
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _in_notebook(stream):
    """Whether `stream` is a Jupyter kernel's output stream (ipykernel's OutStream)."""
    return type(stream).__module__.startswith("ipykernel.")


def _progress_callback(progress):
    if progress is False:
        return None
    if progress is None:
        if sys.stderr is None:
            return None
        if sys.stderr.isatty():
            return _TerminalLine(sys.stderr)
        return _NotebookLine(sys.stderr) if _in_notebook(sys.stderr) else None
    if not callable(progress):
        raise TypeError(f"progress must be a callable taking one line of text, None or False, not {progress!r}")
    return progress


def _read_report(path, model, in_memory):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as file:
        report = json.load(file)
    report["model"] = None if in_memory else model
    report["output"] = None
    return report


def _optimize_in_process(path, flags, folder, callback):
    """pet-opt's run in this process (the package without its pet-opt binary): (status, summary,
    failure message), as _native.optimize_into gives them."""
    return _pet.optimize_into(path, flags, folder, callback)


def optimize(model, **options) -> Result:
    # The signature and the keywords' documentation are set below from pet-opt's flag table.
    progress = options.pop("progress", None)
    _SIGNATURE.bind(model, **options)  # a TypeError names a keyword that is not pet-opt's
    import onnx  # noqa: F401  Result.model needs it: without onnx the call fails here, before the search

    flags = _flags.to_flags(options)
    callback = _progress_callback(progress)
    native = _cli.native_pet_opt()
    with tempfile.TemporaryDirectory(prefix="pet-") as folder:
        path = _models.model_path(model, folder)
        try:
            if native:
                status, summary, failure = _native.optimize_into(native, path, flags, folder, callback)
            else:
                status, summary, failure = _optimize_in_process(path, flags, folder, callback)
        finally:
            if isinstance(callback, _TerminalLine):
                callback.close()
        in_memory = not isinstance(model, (str, os.PathLike))
        report = _read_report(os.path.join(folder, "model.opt.json"), path, in_memory)
        if status != 0:
            raise CheckFailed(failure.strip(), report)
        with open(os.path.join(folder, "model.opt.onnx"), "rb") as file:
            written = file.read()
    return Result(report=report, summary=summary, model_bytes=written)


def _optimize_signature():
    parameters = [inspect.Parameter("model", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for keyword in _flags.KEYWORDS:
        parameters.append(
            inspect.Parameter(
                keyword.name, inspect.Parameter.KEYWORD_ONLY, default=keyword.default, annotation=keyword.annotation
            )
        )
    parameters.append(
        inspect.Parameter(
            "progress",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=typing.Union[typing.Callable[[str], None], None, bool],
        )
    )
    return inspect.Signature(parameters, return_annotation=Result)


def _optimize_doc():
    lines = [
        "Optimizes an ONNX model for the runtime it will run in, as pet-opt does, and returns it checked.",
        "",
        "model: an onnx.ModelProto, the path of an .onnx (or textual IR .pet) file, or a model's bytes.",
        "The keywords are pet-opt's flags (pet-opt --help), '-' written '_'; one left out or given as",
        "None takes the flag's default, and a bad value is a pet.UserError with pet-opt's message.",
        "",
    ]
    for keyword in _flags.KEYWORDS:
        spelled = keyword.flag + (f" {keyword.value}" if keyword.value else "")
        lines += textwrap.wrap(f"{keyword.name} ({spelled}): {keyword.help}", width=100, subsequent_indent="    ",
                               break_on_hyphens=False)
    lines += [
        "progress: called with each line of the search's progress; None shows it on a terminal or in a",
        "    Jupyter notebook (sys.stderr), False shows nothing. Ctrl-C interrupts the run within moments.",
        "",
        "Returns a pet.Result: .model (onnx.ModelProto), .report (dict), .speedup, .chosen,",
        ".transformations, .summary, .model_bytes, .save(path).",
        "Raises pet.UserError (the model or a keyword is at fault), pet.CheckFailed (the written",
        "model failed the final check: a bug in pet) or pet.InternalError; KeyboardInterrupt on Ctrl-C.",
    ]
    return "\n".join(lines)


_SIGNATURE = _optimize_signature()
optimize.__signature__ = _SIGNATURE
optimize.__doc__ = _optimize_doc()


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """pet.check's answer: whether every draw passed, the worst error, and each draw as the
    report's differential_check has it (seed, per-output errors, warnings)."""

    passed: bool
    max_abs_error: float
    draws: list

    def __bool__(self):
        return self.passed


def _shape_flags(input_shape):
    return [] if input_shape is None else _flags._pairs("input_shape", input_shape)


def _import(model, folder, input_shape):
    return _pet.import_model(_models.model_path(model, folder), _shape_flags(input_shape))


def check(original, optimized, draws: int = 3, *, seed: typing.Optional[int] = None, input_shape=None,
          tolerance: typing.Optional[typing.Mapping[str, float]] = None) -> CheckResult:
    """Compares two models on seeded random inputs as pet-opt's final check does: both run on pet's
    CPU reference executor on draws seed, seed + 1, ... (default seed: pet-opt's), floats in [-1, 1).

    original, optimized: onnx.ModelProto, path or bytes, with the same inputs and outputs.
    input_shape: static shapes for symbolic input dims, {"x": (1, 3, 224, 224)} (--input-shape).
    tolerance: {"absolute": 1e-4, "relative": 1e-3} by default (an element passes when
    |a - b| <= absolute * rms(output) + relative * |a|).
    A failed comparison is a CheckResult with passed False, not an exception; models whose inputs
    or outputs differ are a pet.UserError.
    """
    if not isinstance(draws, int) or isinstance(draws, bool) or draws < 1:
        raise UserError(f"draws must be an integer of at least 1, not {draws!r}")
    limits = dict(_pet.default_tolerance, **(tolerance or {}))
    with tempfile.TemporaryDirectory(prefix="pet-") as folder:
        os.makedirs(os.path.join(folder, "a"))
        os.makedirs(os.path.join(folder, "b"))
        first = _import(original, os.path.join(folder, "a"), input_shape)
        second = _import(optimized, os.path.join(folder, "b"), input_shape)
    seed = _pet.default_seed if seed is None else seed
    results = _pet.check(first, second, draws, seed, float(limits["absolute"]), float(limits["relative"]))
    return CheckResult(
        passed=all(draw["passed"] for draw in results),
        max_abs_error=max(draw["max_abs_error"] for draw in results),
        draws=results,
    )


# pet's element types (core/dtype.h) as numpy dtypes, and the array kinds each input takes: floats
# for the float types, integers for the integer ones (cast where their values fit).
_NUMPY_TYPES = {
    "f32": ("float32", "f"), "f64": ("float64", "f"), "bf16": ("bfloat16", "f"), "bool": ("bool", "b"),
    "i8": ("int8", "iu"), "u8": ("uint8", "iu"), "i16": ("int16", "iu"), "u16": ("uint16", "iu"),
    "i32": ("int32", "iu"), "u32": ("uint32", "iu"), "i64": ("int64", "iu"), "u64": ("uint64", "iu"),
}


def _numpy_type(dtype, what):
    """The numpy dtype of pet's `dtype`; bfloat16 is ml_dtypes' (numpy has none), refused without it."""
    import numpy as np

    if dtype != "bf16":
        return np.dtype(_NUMPY_TYPES[dtype][0])
    try:
        import ml_dtypes
    except ImportError:
        raise UserError(f"{what} is bfloat16, which numpy holds only with the ml_dtypes package; "
                        "pip install ml-dtypes") from None
    return np.dtype(ml_dtypes.bfloat16)


def _require_fits(name, array, numpy_type):
    import numpy as np

    if array.dtype == numpy_type or array.size == 0:
        return
    limits = np.iinfo(numpy_type)
    low, high = array.min(), array.max()
    if low < limits.min or high > limits.max:
        raise UserError(f"input '{name}' holds values from {low} to {high}, outside {numpy_type}'s range "
                        f"{limits.min}..{limits.max}; pass a {numpy_type} array")


def _as_input(name, dtype, value):
    import numpy as np

    array = np.asarray(value)
    numpy_type = _numpy_type(dtype, f"input '{name}'")
    kinds = _NUMPY_TYPES[dtype][1]
    if array.dtype != numpy_type and array.dtype.kind not in kinds:
        raise UserError(f"input '{name}' is an array of {array.dtype}, but the model takes {dtype}; pass a "
                        f"{numpy_type} array")
    if kinds == "iu":
        _require_fits(name, array, numpy_type)
    array = np.ascontiguousarray(array, dtype=numpy_type)
    return (dtype, list(array.shape), array.tobytes())


def run(model, inputs=None, *, input_shape=None, seed: typing.Optional[int] = None) -> dict:
    """Runs a model on pet's CPU reference executor (pet-run) and returns its outputs.

    model: onnx.ModelProto, path or bytes. inputs: numpy arrays (or what numpy.asarray takes) as a
    dict by input name or a list in the model's input order, each cast to its input's element type:
    floats to a float input's (float32, float64, or bfloat16 through the ml_dtypes package),
    integers to an integer input's where their values fit (uint8, int32, ...), bools to bool.
    Inputs not given are seeded random draws as pet-run makes them (floats in [-1, 1), 8- and 16-bit
    integers over their whole range, wider ones 0 or 1; seed: pet-run's default). input_shape:
    static shapes for symbolic dims.
    Returns {output name: numpy array of the output's element type} in the model's output order
    (bfloat16 outputs need ml_dtypes). A bad model or input is a pet.UserError.
    """
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="pet-") as folder:
        graph = _import(model, folder, input_shape)
    names = [name for name, _, _ in graph.inputs]
    if inputs is None:
        inputs = {}
    elif not isinstance(inputs, typing.Mapping):
        if isinstance(inputs, np.ndarray) or not isinstance(inputs, typing.Sequence):
            raise TypeError("inputs must be a dict of input names to arrays, or a list of arrays in input order")
        if len(inputs) != len(names):
            raise UserError(f"inputs has {len(inputs)} arrays for a model of {len(names)} inputs "
                            f"({', '.join(names)}); give one per input, or a dict by name")
        inputs = dict(zip(names, inputs))
    dtypes = {name: dtype for name, dtype, _ in graph.inputs}
    output_types = [_numpy_type(dtype, f"output '{name}'") for name, dtype, _ in graph.outputs]
    wire = {}
    for name, value in inputs.items():
        if name not in dtypes:
            raise UserError(f"inputs names '{name}', which is not an input of the model (its inputs: "
                            f"{', '.join(names)})")
        wire[name] = _as_input(name, dtypes[name], value)
    outputs = _pet.run(graph, wire, _pet.default_seed if seed is None else seed)
    result = {}
    for (name, _, _), numpy_type, (_, dims, data) in zip(graph.outputs, output_types, outputs):
        result[name] = np.frombuffer(data, dtype=numpy_type).reshape(dims).copy()
    return result


def targets() -> list:
    """What pet can optimize for on this machine: each measured target (timed in its runtime here)
    with its runtime's version, or why it is unavailable and what to install; then the analytic
    GPU targets timed on a GPU machine (their profile DB replayed here); then the analytic GPU
    devices (priced by a roofline model, never timed).

    Returns [{"name", "kind": "measured" | "replayed" | "estimated", "available", "version", "why"}].
    """
    found = []
    for name in _pet.measured_targets():
        try:
            found.append({"name": name, "kind": "measured", "available": True, "version": _pet.runtime_version(name),
                          "why": ""})
        except UserError as error:
            found.append({"name": name, "kind": "measured", "available": False, "version": None, "why": str(error)})
    for name in _pet.gpu_targets():
        found.append({"name": name, "kind": "replayed", "available": True, "version": None,
                      "why": f"timed on a GPU machine (pet-gpu measure), replayed from bench/profiles/{name}.json; "
                             "live=True times on this machine's card where it is one (pet-gpu worker)"})
    for name in ANALYTIC_DEVICES:
        found.append({"name": name, "kind": "estimated", "available": True, "version": None,
                      "why": "priced by the analytic roofline from pet's device spec"})
    return found

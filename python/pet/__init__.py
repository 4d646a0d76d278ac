"""pet: a superoptimizer for ONNX models (PET, OSDI'21), from Python.

    import onnx, pet
    result = pet.optimize(onnx.load("model.onnx"), target="ort-cpu")
    onnx.save(result.model, "model.opt.onnx")
    print(result.speedup, result.chosen, len(result.transformations))

optimize takes pet-opt's flags as keywords (help(pet.optimize)); check compares two models as
pet-opt's final check does; run runs a model on pet's CPU reference executor; targets lists what
this machine can optimize for. docs/PYTHON.md has the whole API.
"""

import os as _os
import sys as _sys

# ONNX Runtime is timed in a worker process of this interpreter (kernels/runtime/ort_runtime.cpp),
# so that `pip install pet[onnxruntime]` into this environment is what ort-cpu needs.
_os.environ.setdefault("PET_PYTHON", _sys.executable)
# An installed package carries the files pet reads at run time (the ONNX Runtime worker, the rule
# library, the repository's profile DB) in its data folder; a build tree's module reads the sources.
_DATA = _os.path.join(_os.path.dirname(__file__), "data")
if _os.path.isdir(_DATA):
    _os.environ.setdefault("PET_DATA_DIR", _DATA)
# pet opens OpenBLAS itself at first use (core/gemm.cpp); a wheel carries its own copy
# (scripts/build-wheel.sh), which PET_OPENBLAS names. A build tree's module loads the system's.
_BLAS = _os.path.join(_os.path.dirname(__file__), "blas", "libopenblas.so.0")
if _os.path.isfile(_BLAS):
    _os.environ.setdefault("PET_OPENBLAS", _BLAS)

from ._errors import CheckFailed, Error, InternalError, UserError  # noqa: E402
from ._version import __version__  # noqa: E402
from ._api import CheckResult, Result, check, optimize, run, targets  # noqa: E402

__all__ = [
    "CheckFailed",
    "CheckResult",
    "Error",
    "InternalError",
    "Result",
    "UserError",
    "__version__",
    "check",
    "optimize",
    "run",
    "targets",
]

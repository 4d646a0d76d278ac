"""Shared fixtures of the pet package's tests: small ONNX models made here, pet-opt's binary to compare
with, and a cache folder of the test run's own (no test touches the user's ~/.cache/pet).

Run against a build (PYTHONPATH=build/python, PET_OPT=build/tools/pet-opt; ctest does) or against
the installed package (pip install .; pet-opt from PATH)."""

import os
import pathlib
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

# Before pet is imported or runs: measured targets write their profile DB under XDG_CACHE_HOME.
_CACHE = tempfile.mkdtemp(prefix="pet-pytest-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
os.environ.pop("PET_PROFILE_DB", None)
os.environ.pop("PET_PROOF_CACHE", None)

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


def conv_bn_relu(seed=5, opset=13):
    """x f32[1,2,6,6] -> Conv 3x3 -> BatchNormalization -> Identity -> Relu: pet folds the BN and drops
    the Identity (tests/tools/tools_test.cpp's model, made with onnx.helper)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    weights = [
        numpy_helper.from_array(rng.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(np.array([1, 2, -1, 0.5], np.float32), "gamma"),
        numpy_helper.from_array(np.array([0, 1, 2, 3], np.float32), "beta"),
        numpy_helper.from_array(np.array([0.1, 0.2, 0.3, 0.4], np.float32), "mean"),
        numpy_helper.from_array(np.array([1, 0.5, 0.25, 2], np.float32), "var"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["b"], name="bn", epsilon=1e-3),
        helper.make_node("Identity", ["b"], ["d"], name="identity"),
        helper.make_node("Relu", ["d"], ["y"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes,
        "convbn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
        initializer=weights,
    )
    # IR version 8: the newest that the ONNX library pet links (Debian's) checks.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    onnx.checker.check_model(model)
    return model


@pytest.fixture
def model():
    return conv_bn_relu()


@pytest.fixture
def model_file(tmp_path, model):
    import onnx

    path = tmp_path / "convbn.onnx"
    onnx.save_model(model, str(path))
    return path


def _pet_opt_binary():
    given = os.environ.get("PET_OPT")
    if given:
        return given
    for candidate in (SOURCE_DIR / "build" / "tools" / "pet-opt", SOURCE_DIR / "build-py" / "tools" / "pet-opt"):
        if candidate.exists():
            return str(candidate)
    return None


@pytest.fixture(scope="session")
def pet_opt():
    """Runs pet-opt's executable (PET_OPT, else the checkout's build): (status, stdout, stderr)."""
    binary = _pet_opt_binary()
    if binary is None:
        pytest.skip("no pet-opt executable: set PET_OPT to build/tools/pet-opt")

    def run(*args):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=600)
        return done.returncode, done.stdout, done.stderr

    return run


def has_onnxruntime():
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(params=["native", "in-process"])
def optimize_path(request, monkeypatch):
    """pet.optimize both ways it runs: through the pet-opt binary beside the module (a package built
    with it) and in Python's process (one without it)."""
    from pet import _cli

    if request.param == "native" and _cli.native_pet_opt() is None:
        pytest.skip("the package folder has no bin/pet-opt")
    if request.param == "in-process":
        monkeypatch.setattr(_cli, "native_pet_opt", lambda: None)
    return request.param

"""The console scripts run the C++ mains, and docs/PYTHON.md's example runs as written."""

import os
import re
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, has_onnxruntime


def _script(name, *args):
    """The console script `name` as pip installs it: pet._cli's function run with these arguments."""
    code = f"from pet._cli import {name}; {name}()"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=600)


def test_pet_opt_script_prints_pet_opts_help():
    from pet import _pet

    done = _script("pet_opt", "--help")
    assert done.returncode == 0 and done.stdout == _pet.pet_opt_help()


def test_pet_opt_script_optimizes_and_exits_as_pet_opt(tmp_path, model_file):
    done = _script("pet_opt", model_file, "--target", "h100", "-o", tmp_path / "out.onnx")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.onnx").exists() and (tmp_path / "out.json").exists()
    bad = _script("pet_opt", model_file, "--beam", "0")
    assert bad.returncode == 2 and bad.stderr == "pet-opt: error: --beam '0' must be an integer from 1 to 1024\n"


def test_pet_opt_script_runs_the_binary_beside_the_module(tmp_path, model_file, pet_opt):
    import json

    from pet import _cli

    assert _cli.native_pet_opt() is not None, "the package folder has no bin/pet-opt (python/CMakeLists.txt)"
    args = [model_file, "--target", "h100", "--report-times"]
    done = _script("pet_opt", *args, "-o", tmp_path / "script.onnx")
    assert done.returncode == 0, done.stderr
    status, _, err = pet_opt(*args, "-o", tmp_path / "tool.onnx")
    assert status == 0, err
    # Before: the script ran pet_opt_main in Python's process, with Python's malloc (glibc's); after:
    # the binary, whose report names the allocator it links, as the built tool's does.
    script_report = json.loads((tmp_path / "script.json").read_text())
    tool_report = json.loads((tmp_path / "tool.json").read_text())
    assert script_report["allocator"] == tool_report["allocator"]
    assert (tmp_path / "script.onnx").read_bytes() == (tmp_path / "tool.onnx").read_bytes()


def test_pet_run_script_runs_the_model(model_file):
    done = _script("pet_run", model_file)
    assert done.returncode == 0, done.stderr
    assert "output 'y': f32[1,4,6,6]" in done.stdout


@pytest.mark.skipif(not has_onnxruntime(), reason="the example optimizes for ort-cpu")
def test_the_example_in_docs_python_md_runs(tmp_path, model):
    import onnx

    text = (SOURCE_DIR / "docs" / "PYTHON.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    onnx.save_model(model, str(tmp_path / "model.onnx"))
    import pet

    # The package this test imported, wherever the example runs from.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(pet.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "model.opt.onnx").exists()

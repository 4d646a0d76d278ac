"""Every error docs/PYTHON.md names: the exception type, and pet's own message (the one pet-opt prints
after "pet-opt: error: ")."""

import os
import stat

import numpy as np
import onnx
import pytest

import pet
from conftest import conv_bn_relu


def _cli_message(pet_opt, *args):
    status, _, err = pet_opt(*args)
    assert status == 2, err
    prefix = "pet-opt: error: "
    assert err.startswith(prefix), err
    return err[len(prefix):].rstrip("\n")


@pytest.mark.usefixtures("optimize_path")
@pytest.mark.parametrize(
    "keywords, flags",
    [
        ({"beam": 0}, ["--beam", "0"]),
        ({"beam": 2.5}, ["--beam", "2.5"]),
        ({"mode": "fast"}, ["--mode", "fast"]),
        ({"time_limit": float("inf")}, ["--time-limit", "inf"]),
        ({"target": "tpu-v9"}, ["--target", "tpu-v9"]),
        ({"calibration": "guess"}, ["--calibration", "guess"]),
        ({"input_shape": "x"}, ["--input-shape", "x"]),
        ({"passes": ["no-such-pass"]}, ["--passes", "no-such-pass"]),
    ],
)
def test_a_bad_keyword_value_is_a_user_error_with_pet_opts_message(model_file, pet_opt, keywords, flags):
    expected = _cli_message(pet_opt, model_file, *flags)
    with pytest.raises(pet.UserError) as raised:
        pet.optimize(model_file, **keywords)
    assert str(raised.value) == expected


@pytest.mark.usefixtures("optimize_path")
def test_a_missing_file_is_a_user_error_with_pet_opts_message(tmp_path, pet_opt):
    missing = tmp_path / "missing.onnx"
    expected = _cli_message(pet_opt, missing, "--target", "h100")
    with pytest.raises(pet.UserError) as raised:
        pet.optimize(missing, target="h100")
    assert str(raised.value) == expected


@pytest.mark.usefixtures("optimize_path")
def test_bytes_that_are_not_a_model_are_a_user_error():
    with pytest.raises(pet.UserError, match="model.onnx"):
        pet.optimize(b"not a model", target="h100")


@pytest.mark.usefixtures("optimize_path")
def test_a_model_that_onnx_refuses_is_a_user_error_naming_the_node():
    model = conv_bn_relu()
    model.graph.node[0].op_type = "NoSuchOp"
    with pytest.raises(pet.UserError, match="NoSuchOp"):
        pet.optimize(model, target="h100")


def test_an_unknown_keyword_or_model_type_is_a_type_error(model):
    with pytest.raises(TypeError, match="bem"):
        pet.optimize(model, bem=4)
    with pytest.raises(TypeError, match="model must be an onnx.ModelProto, a path or the bytes"):
        pet.optimize(42)
    with pytest.raises(TypeError, match="replay must be True or False"):
        pet.optimize(model, replay="yes")
    with pytest.raises(TypeError, match="progress must be a callable"):
        pet.optimize(model, progress=3)


@pytest.mark.usefixtures("optimize_path")
def test_a_measured_target_whose_runtime_is_missing_says_how_to_install_it(tmp_path, model, monkeypatch):
    python = tmp_path / "python-without-onnxruntime"
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PET_PYTHON", str(python))
    with pytest.raises(pet.UserError, match="ONNX Runtime is not available") as raised:
        pet.optimize(model, target="ort-cpu", threads=1)
    assert f"{python} -m pip install onnxruntime" in str(raised.value)


def test_internal_errors_and_check_failures_are_their_own_types():
    assert issubclass(pet.CheckFailed, pet.InternalError)
    assert issubclass(pet.UserError, pet.Error) and issubclass(pet.InternalError, pet.Error)
    assert not issubclass(pet.UserError, pet.InternalError)


def test_run_refuses_bad_inputs_with_user_errors(model):
    with pytest.raises(pet.UserError, match="'z', which is not an input of the model"):
        pet.run(model, {"z": np.zeros((1, 2, 6, 6), np.float32)})
    with pytest.raises(pet.UserError, match="input 'x' is an array of int64, but the model takes f32"):
        pet.run(model, {"x": np.zeros((1, 2, 6, 6), np.int64)})
    with pytest.raises(pet.UserError, match="'x'"):
        pet.run(model, {"x": np.zeros((1, 2, 5, 5), np.float32)})
    with pytest.raises(pet.UserError, match="inputs has 2 arrays for a model of 1 inputs"):
        pet.run(model, [np.zeros((1, 2, 6, 6), np.float32)] * 2)


def test_check_refuses_models_of_other_inputs(model):
    other = conv_bn_relu()
    other.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 8
    other.graph.input[0].type.tensor_type.shape.dim[3].dim_value = 8
    other.graph.output[0].type.tensor_type.shape.dim[2].dim_value = 8
    other.graph.output[0].type.tensor_type.shape.dim[3].dim_value = 8
    with pytest.raises(pet.UserError):
        pet.check(model, other)
    with pytest.raises(pet.UserError, match="draws must be an integer of at least 1"):
        pet.check(model, model, draws=0)

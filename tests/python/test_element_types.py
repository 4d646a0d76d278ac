"""pet.run and pet.check with numpy arrays of the element types beyond float32, int64 and bool."""

import numpy as np
import pytest

import pet


def cast_to_themselves(*types):
    """One input per (name, TensorProto type, shape), each cast to its own type as the output name_out."""
    import onnx
    from onnx import helper

    nodes = [helper.make_node("Cast", [name], [name + "_out"], to=elem) for name, elem, _ in types]
    inputs = [helper.make_tensor_value_info(name, elem, shape) for name, elem, shape in types]
    outputs = [helper.make_tensor_value_info(name + "_out", elem, shape) for name, elem, shape in types]
    graph = helper.make_graph(nodes, "cast_to_themselves", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture
def three_types():
    from onnx import TensorProto

    return cast_to_themselves(("pixels", TensorProto.UINT8, [2, 3]), ("ids", TensorProto.INT32, [4]),
                              ("wide", TensorProto.DOUBLE, [3]))


def test_run_takes_and_returns_uint8_int32_and_float64_arrays(three_types):
    pixels = np.array([[0, 1, 127], [128, 254, 255]], np.uint8)
    ids = np.array([-2**31, -1, 0, 2**31 - 1], np.int32)
    wide = np.array([1e-300, np.pi, -1e300], np.float64)
    outputs = pet.run(three_types, {"pixels": pixels, "ids": ids, "wide": wide})
    assert [(name, array.dtype) for name, array in outputs.items()] == [
        ("pixels_out", np.uint8), ("ids_out", np.int32), ("wide_out", np.float64)]
    np.testing.assert_array_equal(outputs["pixels_out"], pixels)
    np.testing.assert_array_equal(outputs["ids_out"], ids)
    np.testing.assert_array_equal(outputs["wide_out"], wide)


def test_run_casts_integers_that_fit_and_refuses_those_that_do_not(three_types):
    fitted = pet.run(three_types, {"pixels": [[0, 1, 2], [3, 4, 255]], "ids": [1, 2, 3, 4]})
    assert fitted["pixels_out"].dtype == np.uint8 and fitted["pixels_out"][1, 2] == 255
    with pytest.raises(pet.UserError) as error:
        pet.run(three_types, {"pixels": [[0, 1, 2], [3, 4, 256]]})
    assert str(error.value) == ("input 'pixels' holds values from 0 to 256, outside uint8's range 0..255; pass a "
                                "uint8 array")
    with pytest.raises(pet.UserError) as error:
        pet.run(three_types, {"ids": np.zeros(4, np.float32)})
    assert str(error.value) == "input 'ids' is an array of float32, but the model takes i32; pass a int32 array"


def test_run_draws_uint8_inputs_over_their_whole_range():
    from onnx import TensorProto

    model = cast_to_themselves(("image", TensorProto.UINT8, [4096]))
    image = pet.run(model)["image_out"]
    assert image.dtype == np.uint8 and image.min() == 0 and image.max() == 255
    np.testing.assert_array_equal(image, pet.run(model)["image_out"])


def test_run_carries_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from onnx import TensorProto

    model = cast_to_themselves(("x", TensorProto.BFLOAT16, [3]))
    x = np.array([1.5, -2.25, 3.0], ml_dtypes.bfloat16)
    y = pet.run(model, {"x": x})["x_out"]
    assert y.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32))
    from_floats = pet.run(model, {"x": np.array([1.5, -2.25, 3.0], np.float32)})["x_out"]
    np.testing.assert_array_equal(from_floats.astype(np.float32), x.astype(np.float32))


def test_check_names_the_element_type_of_each_output(three_types):
    verdict = pet.check(three_types, three_types, draws=1)
    assert verdict.passed
    assert [output["dtype"] for output in verdict.draws[0]["outputs"]] == ["u8", "i32", "f64"]


def test_run_refuses_bfloat16_clearly_without_ml_dtypes(monkeypatch):
    from onnx import TensorProto

    monkeypatch.setitem(__import__("sys").modules, "ml_dtypes", None)  # import ml_dtypes raises ImportError
    with pytest.raises(pet.UserError) as error:
        pet.run(cast_to_themselves(("x", TensorProto.BFLOAT16, [3])))
    assert str(error.value) == ("output 'x_out' is bfloat16, which numpy holds only with the ml_dtypes package; "
                                "pip install ml-dtypes")

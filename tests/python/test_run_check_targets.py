"""pet.run against ONNX Runtime, pet.check's verdicts, pet.targets and the package's version."""

import pathlib
import re

import numpy as np
import pytest

import pet
from conftest import SOURCE_DIR, conv_bn_relu, has_onnxruntime


@pytest.mark.skipif(not has_onnxruntime(), reason="onnxruntime is not installed for this python")
def test_run_matches_onnxruntime(model):
    import onnxruntime

    x = np.random.default_rng(3).uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0]
    by_name = pet.run(model, {"x": x})
    assert list(by_name) == ["y"] and by_name["y"].dtype == np.float32 and by_name["y"].shape == (1, 4, 6, 6)
    np.testing.assert_allclose(by_name["y"], expected, atol=1e-5)
    np.testing.assert_allclose(pet.run(model, [x])["y"], expected, atol=1e-5)
    np.testing.assert_allclose(pet.run(model, {"x": x.astype(np.float64)})["y"], expected, atol=1e-5)


def test_run_draws_inputs_it_is_not_given_from_the_seed(model):
    first, again = pet.run(model)["y"], pet.run(model)["y"]
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, pet.run(model, seed=1)["y"])


def test_check_passes_an_optimized_model_and_fails_a_changed_one(model):
    optimized = pet.optimize(model, target="h100").model
    verdict = pet.check(model, optimized)
    assert verdict.passed and bool(verdict)
    assert [draw["seed"] for draw in verdict.draws] == [2026, 2027, 2028]
    assert verdict.max_abs_error < 1e-4
    changed = conv_bn_relu(seed=6)
    wrong = pet.check(model, changed, draws=1, seed=9)
    assert not wrong.passed and wrong.draws[0]["seed"] == 9
    assert "differ" in wrong.draws[0]["failure_reason"] or wrong.draws[0]["failure_reason"]
    assert pet.check(model, model).draws[0]["same_graph"]


def test_targets_lists_the_measured_runtimes_with_versions_and_the_devices():
    found = {target["name"]: target for target in pet.targets()}
    assert list(found)[:2] == ["ort-cpu", "openvino-cpu"]
    if has_onnxruntime():
        import onnxruntime

        assert found["ort-cpu"]["available"]
        assert found["ort-cpu"]["version"] == f"onnxruntime {onnxruntime.__version__}"
    for target in found.values():
        assert target["available"] or "install" in target["why"] or "rebuild" in target["why"]
    assert [name for name, target in found.items() if target["kind"] == "replayed"] == ["h100", "h200"]
    assert [name for name, target in found.items() if target["kind"] == "estimated"] == ["a100", "v100"]


def test_the_device_list_is_the_device_specs_pet_ships():
    from pet import _api

    specs = {path.stem for path in SOURCE_DIR.glob("search/**/devices/*.json")} - {"cpu"}
    assert specs, "the device specs moved: update this test"
    assert set(_api.ANALYTIC_DEVICES) | set(_api._pet.gpu_targets()) == specs


def test_the_version_is_pyprojects():
    text = (SOURCE_DIR / "python" / "pet" / "_version.py").read_text()
    assert re.search(r'__version__ = "([^"]+)"', text).group(1) == pet.__version__

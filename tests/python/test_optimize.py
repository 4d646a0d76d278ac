"""pet.optimize: models in memory, on disk, as bytes and with external data; the same model and report as
pet-opt on the same flags; keywords from pet-opt's flag table; progress and Ctrl-C."""

import json
import os
import pathlib
import signal

import numpy as np
import onnx
import pytest

import pet
from conftest import has_onnxruntime

FAST = {"target": "h100", "beam": 4}

# Every test here runs pet.optimize both ways: through the pet-opt binary and in Python's process.
pytestmark = pytest.mark.usefixtures("optimize_path")


def test_a_model_in_memory_comes_back_optimized_and_checked(model):
    result = pet.optimize(model, **FAST)
    assert isinstance(result.model, onnx.ModelProto)
    assert [node.op_type for node in result.model.graph.node] == ["Conv", "Relu"]  # BN folded, Identity gone
    assert result.report["nodes_before"] == 4 and result.report["nodes_after"] == 1  # Relu fused into the Conv
    assert result.report["model"] is None and result.report["output"] is None
    assert result.report["differential_check"]["passed"]
    assert all(draw["passed"] for draw in result.report["written_check"]["draws"])
    # h100's DB holds nothing yet: the speedup and the choice are the cost model's estimates.
    assert result.speedup == result.report["speedup"] == result.report["totals"]["speedup"] > 0
    assert result.report["speedup_source"] == "estimated"
    assert result.report["target"]["selection"]["source"] == "estimated", "h100's empty DB: the choice by estimate"
    assert result.chosen == result.report["chosen"]
    assert isinstance(result.transformations, list)
    assert "Conv" not in result.summary or "nodes 4 -> 2" in result.summary
    x = np.random.default_rng(1).uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(pet.run(result.model, {"x": x})["y"], pet.run(model, {"x": x})["y"], atol=1e-4)


def test_the_result_parses_its_model_at_first_use_and_prints_in_one_line(model):
    result = pet.optimize(model, **FAST)
    # Before: the model was parsed at once (held twice beside model_bytes) and the repr printed the
    # whole report. After: parsed when asked for, once; the repr says what the call did.
    assert "model" not in vars(result)
    assert result.model is result.model and onnx.load_model_from_string(result.model_bytes) == result.model
    assert repr(result) == (f"pet.Result(speedup={result.speedup:.3f}x (estimated), chosen={result.chosen!r}, "
                            f"{len(result.transformations)} transformations, nodes 4 -> 1, model 0.0 MiB)")
    passes = pet.optimize(model, passes=["fold-batchnorm"])
    assert repr(passes) == "pet.Result(passes only, model 0.0 MiB)"


def test_a_path_a_pathlike_and_bytes_give_the_same_model(model, model_file):
    from_memory = pet.optimize(model, **FAST).model_bytes
    assert pet.optimize(str(model_file), **FAST).model_bytes == from_memory
    assert pet.optimize(pathlib.Path(model_file), **FAST).model_bytes == from_memory
    assert pet.optimize(model.SerializeToString(), **FAST).model_bytes == from_memory
    assert pet.optimize(model_file, **FAST).report["model"] == str(model_file)


def test_a_model_with_external_data(tmp_path, model):
    folder = tmp_path / "external"
    folder.mkdir()
    path = folder / "convbn.onnx"
    stored = onnx.ModelProto()
    stored.CopyFrom(model)  # save_model moves the data of the proto it saves out to the file
    onnx.save_model(stored, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="convbn.data", size_threshold=0)
    assert (folder / "convbn.data").exists()
    expected = pet.optimize(model, **FAST).model_bytes
    assert pet.optimize(path, **FAST).model_bytes == expected, "the path: pet reads the data beside it"
    assert pet.optimize(onnx.load(str(path)), **FAST).model_bytes == expected, "loaded: the data is in memory"
    unloaded = onnx.load(str(path), load_external_data=False)
    with pytest.raises(pet.UserError, match="keeps its data in an external file \\('convbn.data'\\)"):
        pet.optimize(unloaded, **FAST)


def _without_paths(report):
    return {key: value for key, value in report.items() if key not in ("model", "output")}


def test_the_same_model_and_report_as_pet_opt_on_the_same_flags(tmp_path, model_file, pet_opt):
    flags = ["--target", "h100", "--beam", "4", "--seed", "7", "--mode", "pet"]
    output = tmp_path / "cli.onnx"
    status, _, err = pet_opt(model_file, *flags, "-o", output)
    assert status == 0, err
    result = pet.optimize(str(model_file), target="h100", beam=4, seed=7, mode="pet")
    assert result.model_bytes == output.read_bytes()
    cli_report = json.loads((tmp_path / "cli.json").read_text())
    assert _without_paths(result.report) == _without_paths(cli_report)
    assert result.report["model"] == cli_report["model"]


@pytest.mark.skipif(not has_onnxruntime(), reason="onnxruntime is not installed for this python")
def test_a_replay_of_a_measured_db_equals_pet_opts(tmp_path, model_file, pet_opt):
    db = tmp_path / "profile-db.json"
    measured = ["--target", "ort-cpu", "--threads", "1", "--select-runs", "3", "--profile-db", db]
    status, out, err = pet_opt(model_file, *measured, "-o", tmp_path / "measured.onnx")
    assert status == 0, err
    status, _, err = pet_opt(model_file, *measured, "--replay", "-o", tmp_path / "cli.onnx")
    assert status == 0, err
    db_before = db.read_bytes()
    result = pet.optimize(model_file, target="ort-cpu", threads=1, select_runs=3, profile_db=db, replay=True)
    assert db.read_bytes() == db_before, "a replay never writes the DB"
    assert result.model_bytes == (tmp_path / "cli.onnx").read_bytes()
    cli_report = json.loads((tmp_path / "cli.json").read_text())
    assert _without_paths(result.report) == _without_paths(cli_report)
    assert result.report["target"]["selection"]["source"] == "replayed"
    assert result.chosen == result.report["chosen"] == cli_report["target"]["selection"]["chosen"]
    assert result.report["speedup_source"] == "replayed"
    selection = result.report["target"]["selection"]
    medians = {candidate["label"]: candidate["median_us"] for candidate in selection["candidates"]}
    assert result.speedup == result.report["speedup"] == medians["input"] / medians[result.chosen]


def test_keywords_and_defaults_come_from_pet_opts_flag_table():
    import inspect

    from pet import _pet

    parameters = inspect.signature(pet.optimize).parameters
    flags = {entry["name"]: entry for entry in _pet.opt_flags()}
    cli_only = {"--output", "--report", "--emit-ir", "--help"}
    expected = [name.lstrip("-").replace("-", "_") for name in flags if name not in cli_only]
    assert list(parameters) == ["model", *expected, "progress"]
    assert parameters["beam"].default == int(flags["--beam"]["default"]) == 8
    assert parameters["time_limit"].default == float(flags["--time-limit"]["default"])
    assert parameters["target"].default == flags["--target"]["default"] == "ort-cpu"
    assert parameters["mode"].default == "pet"
    assert parameters["threads"].default is None and parameters["replay"].default is False
    for name in flags:
        if name not in cli_only:
            assert name in _pet.pet_opt_help()
    doc = " ".join(pet.optimize.__doc__.split())  # the lines wrapped
    assert "time_limit (--time-limit SECONDS): wall clock for the search (default 100;" in doc
    assert "beam (--beam N): programs kept per search round, N >= 1 (default 8)" in doc


def test_help_prints_the_keywords():
    import pydoc

    text = pydoc.render_doc(pet.optimize, renderer=pydoc.plaintext)
    assert "beam: Optional[int] = 8" in text or "beam: int | None = 8" in text
    assert "time_limit (--time-limit SECONDS)" in text


def test_progress_lines_reach_the_callback(model):
    lines = []
    pet.optimize(model, **FAST, progress=lines.append)
    assert lines and all(isinstance(line, str) for line in lines)
    assert any("subprograms" in line for line in lines), lines


def test_a_notebooks_output_shows_the_progress_on_one_line(model, monkeypatch):
    import io
    import sys

    class OutStream(io.StringIO):  # what a Jupyter kernel's sys.stderr is: not a terminal
        pass

    OutStream.__module__ = "ipykernel.iostream"
    stream = OutStream()
    monkeypatch.setattr(sys, "stderr", stream)
    pet.optimize(model, **FAST)
    # Before: nothing (not a terminal). After: each line after a carriage return, no terminal
    # escapes, the last one blanked out at the end.
    text = stream.getvalue()
    assert text.startswith("\r") and "subprograms" in text and "\033" not in text, repr(text)
    assert text.rstrip("\r").endswith(" ") and text.endswith("\r"), repr(text)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # another stream that is no terminal: quiet
    pet.optimize(model, **FAST)
    assert sys.stderr.getvalue() == ""


def test_an_error_in_the_progress_callback_is_raised_as_it_is(model):
    class Stop(Exception):
        pass

    def progress(line):
        raise Stop(line)

    with pytest.raises(Stop):
        pet.optimize(model, **FAST, progress=progress)


def test_ctrl_c_interrupts_the_search_with_keyboard_interrupt(model):
    seen = []

    def progress(line):
        seen.append(line)
        if len(seen) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        pet.optimize(model, **FAST, progress=progress)
    assert len(seen) == 1, "the search stopped at the Ctrl-C"
    assert pet.optimize(model, **FAST).report["nodes_after"] == 1, "and the next call runs as usual"


def _slow_model(path):
    """Thirty 3x3 convs of distinct widths on 128x128 images (each its own subprogram to mutate), as
    textual IR: the mutant generator alone takes about 20 s on them (two cores), and the search's
    first progress line comes after it."""
    lines = ['graph "slow" opset 13 {', "  input %x0 : f32[1,32,128,128]"]
    width = 32
    for i in range(30):
        wider = 32 + 16 * (i + 1)
        lines.append(f"  const %w{i} : f32[{wider},{width},3,3] = random({i + 1})")
        lines.append(f"  %c{i} = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x{i}, %w{i})"
                     f" : f32[1,{wider},128,128]")
        lines.append(f"  %x{i + 1} = Relu(%c{i}) : f32[1,{wider},128,128]")
        width = wider
    lines += ["  output %x30", "}"]
    path.write_text("\n".join(lines) + "\n")
    return path


_INTERRUPTED_RUN = """
import os, sys, time
import pet
from pet import _cli
if sys.argv[2] == "in-process":
    _cli.native_pet_opt = lambda: None
print("started", flush=True)
start = time.monotonic()
try:
    pet.optimize(sys.argv[1], target="h100", progress=False)
except KeyboardInterrupt:
    print("KeyboardInterrupt after", round(time.monotonic() - start, 2), "s", flush=True)
    children = [entry for entry in os.listdir("/proc") if entry.isdigit()
                and open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1] == str(os.getpid())]
    print("children left:", children, flush=True)
    sys.exit(0)
print("finished before the Ctrl-C", flush=True)
sys.exit(1)
"""


def test_ctrl_c_interrupts_a_long_run_at_once_and_leaves_nothing(tmp_path, optimize_path):
    # Before: Ctrl-C waited for the search's first progress line, after the whole mutant generation
    # (about 20 s here). After: the run asks before every candidate it examines and stops at once.
    import subprocess
    import sys
    import time

    model = _slow_model(tmp_path / "slow.pet")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    child = subprocess.Popen([sys.executable, "-c", _INTERRUPTED_RUN, str(model), optimize_path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    assert child.stdout.readline() == "started\n"
    time.sleep(1.5)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = child.communicate(timeout=60)
    stopped_in = time.monotonic() - sent
    assert child.returncode == 0 and out.startswith("KeyboardInterrupt after"), (out, err)
    assert stopped_in < 5, f"stopped {stopped_in:.1f} s after the Ctrl-C"
    assert out.splitlines()[1] == "children left: []", "pet-opt's process stopped and reaped"
    assert list(scratch.iterdir()) == [], "the run's folder (its model and report) is gone"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["slow.pet", "tmp"]


def test_passes_alone_return_the_model_without_a_report(model):
    result = pet.optimize(model, passes=["fold-batchnorm", "remove-identities"])
    assert result.report is None
    assert [node.op_type for node in result.model.graph.node] == ["Conv", "Relu"]


def test_the_data_folder_pet_reads_at_run_time_is_the_one_pet_data_dir_names(tmp_path, model, monkeypatch):
    # An installed wheel points PET_DATA_DIR at its own data folder; here a copy of the three files.
    root = pathlib.Path(__file__).resolve().parents[2]
    data = tmp_path / "data"
    (data / "mutant").mkdir(parents=True)
    import shutil

    shutil.copytree(root / "mutant" / "rules", data / "mutant" / "rules", ignore=shutil.ignore_patterns("*.cpp", "*.h"))
    (data / "bench" / "profiles").mkdir(parents=True)
    shutil.copy(root / "bench" / "profiles" / "h100.json", data / "bench" / "profiles")
    monkeypatch.setenv("PET_DATA_DIR", str(data))
    assert pet.optimize(model, **FAST).report["nodes_after"] == 1
    monkeypatch.setenv("PET_DATA_DIR", str(tmp_path / "empty"))
    with pytest.raises(pet.UserError, match=str(tmp_path / "empty")):
        pet.optimize(model, **FAST)

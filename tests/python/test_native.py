"""pet.optimize through the pet-opt binary: the search in the tool's own process with its allocator, and
pet-opt's exit statuses, messages and signals made pet's exceptions (stand-in binaries for the rare ones)."""

import json
import os
import subprocess
import time

import pytest

import pet
from pet import _cli, _native, _pet

from conftest import _pet_opt_binary


def _stand_in(tmp_path, script):
    """A shell script in pet-opt's place, run as _native runs the binary."""
    path = tmp_path / "pet-opt"
    path.write_text("#!/bin/bash\n" + script + "\n")
    path.chmod(0o755)
    return str(path)


def _run(binary, tmp_path, progress=None):
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    return _native.optimize_into(binary, str(tmp_path / "model.onnx"), ["--target", "h100"], str(folder), progress)


def test_the_search_runs_in_the_tools_process_with_its_allocator(tmp_path, model, model_file, pet_opt, monkeypatch):
    if _cli.native_pet_opt() is None:
        pytest.skip("the package folder has no bin/pet-opt")

    def in_process(*args):
        raise AssertionError("pet.optimize ran in Python's process")

    monkeypatch.setattr(_pet, "optimize_into", in_process)  # holds also where both allocators are glibc's
    status, _, err = pet_opt(model_file, "--target", "h100", "--report-times", "-o", tmp_path / "tool.onnx")
    assert status == 0, err
    tool = json.loads((tmp_path / "tool.json").read_text())
    # Before: pet.optimize searched in Python's process, with Python's malloc (glibc's); after: in the
    # binary, whose report names the allocator it links, as the built tool's does.
    result = pet.optimize(model, target="h100", report_times=True)
    assert result.report["allocator"] == tool["allocator"]
    assert result.model_bytes == (tmp_path / "tool.onnx").read_bytes()


@pytest.mark.parametrize("script, error, message", [
    ("echo 'a warning first' >&2; echo \"pet-opt: error: --beam '0' must be an integer from 1 to 1024\" >&2; exit 2",
     pet.UserError, "--beam '0' must be an integer from 1 to 1024"),
    ("printf 'pet-opt: internal error: check failed at x.cpp:3\\nThis is a bug in pet; please report it with the "
     "model.\\n' >&2; exit 1", pet.InternalError, "check failed at x.cpp:3"),
])
def test_the_tools_error_channels_are_raised_as_pets_errors_with_its_messages(tmp_path, script, error, message):
    with pytest.raises(error) as raised:
        _run(_stand_in(tmp_path, script), tmp_path)
    assert str(raised.value) == message, "the tool's prefix and closing line dropped"
    assert not isinstance(raised.value, pet.CheckFailed)


def test_a_failed_check_returns_status_1_with_the_tools_message(tmp_path):
    binary = _stand_in(tmp_path, "echo 'pet-opt: the written model failed the final check' >&2; exit 1")
    status, summary, failure = _run(binary, tmp_path)
    assert (status, summary) == (1, "") and failure == "pet-opt: the written model failed the final check\n"


def test_a_tool_ended_by_a_signal_is_an_internal_error(tmp_path):
    binary = _stand_in(tmp_path, "echo 'half a line' >&2; kill -SEGV $$")
    with pytest.raises(pet.InternalError, match="pet-opt ended by signal SIGSEGV; .*half a line"):
        _run(binary, tmp_path)


def test_a_cancelled_tool_is_a_keyboard_interrupt(tmp_path):
    binary = _stand_in(tmp_path, "echo 'pet-opt: cancelled; nothing was written' >&2; exit 130")
    with pytest.raises(KeyboardInterrupt):
        _run(binary, tmp_path)


def test_progress_lines_come_from_the_pipe_and_an_error_in_the_callback_stops_the_tool(tmp_path):
    pid_file = tmp_path / "pid"
    binary = _stand_in(tmp_path, f'echo $$ > {pid_file}; echo "round 1" >&$PET_PROGRESS_FD; '
                                 f'echo "round 2" >&$PET_PROGRESS_FD; exec sleep 60')

    class Stop(Exception):
        pass

    lines = []

    def progress(line):
        lines.append(line)
        if len(lines) == 2:
            raise Stop

    start = time.monotonic()
    with pytest.raises(Stop):
        _run(binary, tmp_path, progress)
    assert lines == ["round 1", "round 2"]
    assert time.monotonic() - start < 5, "stopped at once, not after the tool's 60 s"
    assert not os.path.exists(f"/proc/{pid_file.read_text().strip()}"), "the tool's process is gone"


def test_a_tool_that_ignores_the_stop_is_killed_after_the_grace(tmp_path, monkeypatch):
    monkeypatch.setattr(_native, "STOP_GRACE_SECONDS", 0.5)
    binary = _stand_in(tmp_path, "trap '' TERM; echo ready >&$PET_PROGRESS_FD; exec sleep 60")

    def progress(line):
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _run(binary, tmp_path, progress)
    assert time.monotonic() - start < 5


def _pet_opt_with_progress_fd(model_file, output, value):
    """pet-opt on the model with PET_PROGRESS_FD set to `value` (None: unset)."""
    binary = _pet_opt_binary()
    if binary is None:
        pytest.skip("no pet-opt executable: set PET_OPT to build/tools/pet-opt")
    env = {k: v for k, v in os.environ.items() if k != "PET_PROGRESS_FD"}
    if value is not None:
        env["PET_PROGRESS_FD"] = value
    return subprocess.run([binary, str(model_file), "--target", "h100", "-o", str(output)], env=env,
                          capture_output=True, text=True, timeout=600)


def test_pet_opt_refuses_a_progress_descriptor_that_is_not_open(model_file, tmp_path):
    done = _pet_opt_with_progress_fd(model_file, tmp_path / "out.onnx", "987")
    assert done.returncode == 2
    assert done.stderr.startswith("pet-opt: error: PET_PROGRESS_FD is '987', which is not an open file descriptor")
    assert not (tmp_path / "out.onnx").exists()


def test_pet_opt_writes_its_progress_lines_to_stderr_with_descriptor_2(model_file, tmp_path):
    # Before: where stderr is not a terminal (a log) pet-opt showed no progress; after: PET_PROGRESS_FD=2
    # puts each line there, a line each.
    done = _pet_opt_with_progress_fd(model_file, tmp_path / "out.onnx", "2")
    assert done.returncode == 0, done.stderr
    assert any("subprograms" in line for line in done.stderr.splitlines()), done.stderr
    assert "\033[K" not in done.stderr, done.stderr
    quiet = _pet_opt_with_progress_fd(model_file, tmp_path / "quiet.onnx", None)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr

"""pet.optimize through the pet-opt binary the package carries: the run in a process of its own, with
the tool's malloc, its progress read line by line from a pipe, its exit status made pet's exceptions."""

import os
import signal
import subprocess

from ._errors import InternalError, UserError

# How long pet-opt, asked to stop (SIGTERM: it cancels, removes what it staged and ends its runtime
# workers), may take before it is killed.
STOP_GRACE_SECONDS = 10.0

# What tools/run_guarded.cpp prints before a user error's and an internal error's message.
_USER_ERROR = "pet-opt: error: "
_INTERNAL_ERROR = "pet-opt: internal error: "
_BUG_LINE = "\nThis is a bug in pet; please report it with the model."


def optimize_into(binary, model, flags, folder, progress):
    """``binary`` (pet-opt) on ``model`` with ``flags``, writing model.opt.onnx and model.opt.json into
    ``folder``; ``progress`` (or None) gets each line of the search's progress on the calling thread.

    Returns (status, summary, failure) as pet._pet.optimize_into does: status 0 written and checked,
    1 a final check failed (only the report written), what pet-opt printed on stdout and on stderr.
    Raises UserError and InternalError with pet-opt's messages; KeyboardInterrupt where pet-opt was
    cancelled. An exception on this thread (Ctrl-C, the progress callback's own) stops pet-opt and
    is raised as it is."""
    args = [binary, model, *flags, "-o", os.path.join(folder, "model.opt.onnx"),
            "--report", os.path.join(folder, "model.opt.json")]
    out_path, err_path = os.path.join(folder, "pet-opt.out"), os.path.join(folder, "pet-opt.err")
    child, lines = _start(args, out_path, err_path)
    try:
        with lines:
            for line in lines:
                if progress is not None:
                    progress(line.rstrip("\n"))
        status = child.wait()
    except BaseException:
        stop(child)
        raise
    summary, failure = _read_text(out_path), _read_text(err_path)
    return _outcome(status, summary, failure)


def _start(args, out_path, err_path):
    """pet-opt started in a session of its own (a terminal's Ctrl-C reaches Python, which stops it),
    its stdout and stderr into files and its progress into a pipe whose reading end is returned."""
    read_end, write_end = os.pipe()
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err, pass_fds=(write_end,),
                                     env=dict(os.environ, PET_PROGRESS_FD=str(write_end)), start_new_session=True)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)  # pet-opt holds the only writing end: its exit ends the reading
    return child, os.fdopen(read_end, "r", encoding="utf-8", errors="replace")


def stop(child):
    """Asks pet-opt to stop (it cancels and cleans up) and waits; kills it after STOP_GRACE_SECONDS
    or at a second Ctrl-C."""
    try:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
            child.wait(timeout=STOP_GRACE_SECONDS)
    except BaseException:
        child.kill()
        child.wait()


def _read_text(path):
    with open(path, encoding="utf-8", errors="replace") as file:
        return file.read()


def _message_after(text, prefix):
    return text[text.rindex(prefix) + len(prefix):].rstrip("\n")


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _outcome(status, summary, failure):
    if status == 2 and _USER_ERROR in failure:
        raise UserError(_message_after(failure, _USER_ERROR))
    if status == 1 and _INTERNAL_ERROR in failure:
        message = _message_after(failure, _INTERNAL_ERROR)
        raise InternalError(message[:-len(_BUG_LINE)] if message.endswith(_BUG_LINE) else message)
    if status in (0, 1):
        return status, summary, failure
    if status == 130:  # cancelled by a signal another process sent it
        raise KeyboardInterrupt
    if status < 0:
        raise InternalError(f"pet-opt ended by signal {_signal_name(-status)}; what it printed on stderr: "
                            f"{failure.strip() or '(nothing)'}")
    raise InternalError(f"pet-opt ended with exit status {status}; what it printed on stderr: "
                        f"{failure.strip() or '(nothing)'}")

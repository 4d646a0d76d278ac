"""The console scripts pip installs: pet-opt and pet-run, the same C++ mains as the built tools."""

import os
import signal
import sys

from . import _pet


def _main(tool_main):
    # As a C++ tool: Ctrl-C ends the process at once, and a write past the file size limit fails
    # with EFBIG, which pet reports (tools/pet_opt_main.cpp).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.stdout.flush()
    sys.exit(tool_main(sys.argv[1:]))


def native_pet_opt():
    """The pet-opt binary installed beside the module (pet/bin/pet-opt), or None where there is none."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "pet-opt")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def pet_opt():
    # The binary, where the package has one, replaces this process: it searches with the malloc it
    # links (jemalloc, about twice as fast as Python's glibc malloc: docs/PYTHON.md) and reads the
    # settings `import pet` made (PET_PYTHON, PET_DATA_DIR, PET_OPENBLAS) from the environment.
    native = native_pet_opt()
    if native:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(native, ["pet-opt", *sys.argv[1:]])
    _main(_pet.pet_opt_main)


def pet_run():
    _main(_pet.pet_run_main)

"""The console scripts pip installs: pet-opt and pet-run, the same C++ mains as the built tools."""

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


def pet_opt():
    _main(_pet.pet_opt_main)


def pet_run():
    _main(_pet.pet_run_main)

"""pet's errors as Python exceptions: the C++ library's two channels, and a failed final check."""


class Error(Exception):
    """Any error pet raises."""


class UserError(Error, ValueError):
    """The model or an argument is at fault; the message is pet's, as its command-line tools print it
    after "error: ": what is wrong, where (file, node, op, opset) and what to do."""


class InternalError(Error, RuntimeError):
    """A bug in pet (an internal check that failed, reported with its file and line), or a runtime
    pet measures in that failed; please report it with the model."""


class CheckFailed(InternalError):
    """The optimized model did not match the original on the final differential check, so pet
    returned nothing (pet-opt exits 1 and writes only the report). ``report`` is that report."""

    def __init__(self, message, report):
        super().__init__(message)
        self.report = report

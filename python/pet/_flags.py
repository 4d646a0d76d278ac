"""pet.optimize's keywords, made from pet-opt's flag table (tools/opt_flags.cpp) so that both have
one list of names, help texts and defaults: ``--time-limit SECONDS`` becomes ``time_limit: float``
with the default the table states, and a keyword given becomes that flag again for the same
parser. Only the table's metavariables decide a keyword's type."""

import dataclasses
import os
import typing

from . import _pet

# Flags that name pet-opt's files or print its help: the Python API returns the model and the
# report in memory instead.
_CLI_ONLY = ("--output", "--report", "--emit-ir", "--help")

# The table's metavariables and the Python type each takes; a switch (no value) is a bool, a
# NAME=VALUE flag repeats (a dict), a P,Q,... flag is a list, a FILE or DIR is a path, anything
# else is text.
_INTEGERS = ("N", "K")
_NUMBERS = ("X", "S", "SECONDS")


@dataclasses.dataclass(frozen=True)
class Keyword:
    name: str  # time_limit
    flag: str  # --time-limit
    value: str  # the metavariable: SECONDS
    kind: str  # switch | int | float | pairs | list | path | text
    default: typing.Any  # the table's default in the keyword's type, or None where it states none
    help: str  # the flag's help, its default filled in

    @property
    def annotation(self):
        return {
            "switch": bool,
            "int": typing.Optional[int],
            "float": typing.Optional[float],
            "pairs": typing.Optional[typing.Union[typing.Mapping[str, typing.Any], str, typing.Sequence[str]]],
            "list": typing.Optional[typing.Union[str, typing.Sequence[str]]],
            "path": typing.Optional[typing.Union[str, os.PathLike]],
            "text": typing.Optional[str],
        }[self.kind]

    def to_flags(self, value):
        """The pet-opt arguments for ``value`` (none for None or False). The value is written as
        text for pet's parser, which checks it and says what is wrong in its own words."""
        if value is None:
            return []
        if self.kind == "switch":
            if not isinstance(value, bool):
                raise TypeError(f"{self.name} must be True or False, not {value!r}")
            return [self.flag] if value else []
        if self.kind == "pairs":
            return [f"{self.flag}={pair}" for pair in _pairs(self.name, value)]
        if self.kind == "list" and not isinstance(value, (str, bytes, os.PathLike)):
            return [f"{self.flag}={','.join(str(item) for item in value)}"]
        if self.kind == "float" and isinstance(value, float):
            return [f"{self.flag}={value!r}"]
        return [f"{self.flag}={os.fspath(value) if isinstance(value, os.PathLike) else value}"]


def _pairs(name, value):
    """NAME=DIMS texts from {"x": (1, 3, 224, 224)}, {"x": "1x3x224x224"}, "x=1x3x224x224" or a list."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, typing.Mapping):
        return [f"{key}={dims if isinstance(dims, str) else 'x'.join(str(d) for d in dims)}" for key, dims in value.items()]
    if isinstance(value, typing.Sequence):
        return [str(item) for item in value]
    raise TypeError(f"{name} must be a dict of input names to dims, or NAME=DIMS text, not {value!r}")


def _kind(value):
    if not value:
        return "switch"
    if value in _INTEGERS:
        return "int"
    if value in _NUMBERS:
        return "float"
    if "=" in value:
        return "pairs"
    if value.endswith(",..."):
        return "list"
    return "path" if "FILE" in value or "DIR" in value else "text"


def _typed_default(kind, text):
    if kind == "switch":
        return False
    if text is None:
        return None
    try:
        return {"int": int, "float": float, "path": str, "text": str}.get(kind, lambda _: None)(text)
    except ValueError:
        return None


def _keyword(entry):
    kind = _kind(entry["value"])
    text = entry["default"]
    help_text = " ".join(line.strip() for line in entry["help"]).replace("{default}", text or "")
    return Keyword(
        name=entry["name"].lstrip("-").replace("-", "_"),
        flag=entry["name"],
        value=entry["value"],
        kind=kind,
        default=_typed_default(kind, text),
        help=help_text,
    )


KEYWORDS = tuple(_keyword(entry) for entry in _pet.opt_flags() if entry["name"] not in _CLI_ONLY)
BY_NAME = {keyword.name: keyword for keyword in KEYWORDS}


def to_flags(options):
    """pet-opt's arguments for the keywords given (their names already checked)."""
    flags = []
    for name, value in options.items():
        flags += BY_NAME[name].to_flags(value)
    return flags

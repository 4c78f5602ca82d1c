"""Loading specs: a file (YAML or JSON), standard input, or text, into a validated Spec."""

from __future__ import annotations

from attncli.spec.model import Spec
from attncli.spec.parse import load
from attncli.spec.source import parse, read_text


def load_spec(path: str, allow_outside: bool = False) -> Spec:
    """The Spec in the file at `path` (`-` for standard input); SpecError if it is malformed.

    Files the spec names are read from its folder or below it, unless `allow_outside`."""
    name, text = read_text(path)
    return load(parse(name, text), allow_outside)


def loads_spec(text: str, name: str = "<string>", allow_outside: bool = False) -> Spec:
    """The Spec written in `text` (YAML or JSON); files it names are read from `name`'s folder
    (the current folder for `<string>`)."""
    return load(parse(name, text), allow_outside)


__all__ = ["Spec", "load_spec", "loads_spec"]

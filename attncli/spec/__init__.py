"""Loading specs: a file (YAML or JSON), standard input, or text, into a validated Spec."""

from __future__ import annotations

from attncli.spec.model import Spec
from attncli.spec.parse import load
from attncli.spec.source import parse, read_text


def load_spec(path: str) -> Spec:
    """The Spec in the file at `path` (`-` for standard input); SpecError if it is malformed."""
    name, text = read_text(path)
    return load(parse(name, text))


def loads_spec(text: str, name: str = "<string>") -> Spec:
    """The Spec written in `text` (YAML or JSON)."""
    return load(parse(name, text))


__all__ = ["Spec", "load_spec", "loads_spec"]

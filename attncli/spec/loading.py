"""Loading a spec: a file (YAML or JSON), standard input, or text, into a validated Spec."""

from __future__ import annotations

import os

from attncli.spec import arguments
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_spec_bytes
from attncli.spec.model import Spec
from attncli.spec.parse import load
from attncli.spec.source import parse, read_text
from attncli.spec.spec_text import too_large


def load_spec(path: str | os.PathLike[str], allow_outside: bool = False,
              max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec in the file at `path`, as the command line reads it (its refusals name
    `--max-cells`); the library's attncli.load_spec (attncli/library.py) says the rest."""
    path = arguments.file_name(path, "load_spec", "path")
    max_cells = arguments.cell_limit(max_cells, "load_spec")
    name, text = read_text(path if isinstance(path, str) else file_name(path), max_cells)
    return load(parse(name, text, max_cells), allow_outside, max_cells)


def loads_spec(text: str, name: str | os.PathLike[str] = "<string>", allow_outside: bool = False,
               max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec written in `text`, as the command line reads it; see attncli.loads_spec."""
    text = arguments.spec_text(text, "loads_spec")
    name = arguments.file_name(name, "loads_spec", "name")
    max_cells = arguments.cell_limit(max_cells, "loads_spec")
    name = name if isinstance(name, str) else file_name(name)
    check_size(name, text, max_spec_bytes(max_cells))
    # a lone surrogate (a file name's byte kept by surrogateescape) is refused by parse at its
    # place, as the byte it stands for is in a file
    return load(parse(name, text, max_cells), allow_outside, max_cells)



def check_size(name: str, text: str, limit: int) -> None:
    """A text of more bytes (in UTF-8) than a spec file may have under the limit is refused as
    that file would be, before it is parsed."""
    if len(text) > limit:  # a character takes a byte at least: no need to count them
        raise too_large(name, None, limit)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise too_large(name, size, limit)


def file_name(path: os.PathLike[str]) -> str:
    """A path object's file name as attn's own functions take it: a file named `-` is written
    `./-`, which is no request for standard input."""
    name = os.fsdecode(path)  # a path of bytes as Python's own functions decode one
    return os.path.join(os.curdir, name) if name == "-" else name

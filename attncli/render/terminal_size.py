"""The sizes the environment gives a terminal ($COLUMNS, $LINES, and Jupyter's), read so that
no value of them can stop attn, and the environment a Rich console is given, in which every such
size is one attn has read (Rich would read the raw text itself, with int())."""

from __future__ import annotations

import os
from collections.abc import Mapping

from attncli.render import MAX_WIDTH

SIZES = ("COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES")


def environ_size(name: str, environ: Mapping[str, str] | None = None) -> int | None:
    """$`name` as a number of columns or lines, held to MAX_WIDTH (a terminal program's 10⁹ is
    laid out at 1,000, as --width is); None when it is no number, as COLUMNS=abc is not (² and ①
    are digits to str.isdigit() but no decimal ones). int() refuses more than 4,300 digits (640
    under PYTHONINTMAXSTRDIGITS=640), leading zeros counted: they are dropped, and a number
    longer than the cap is the cap, before int() sees it."""
    text = (os.environ if environ is None else environ).get(name, "").strip()
    if not text.isdecimal():
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_WIDTH)):
        return MAX_WIDTH
    return min(int(digits), MAX_WIDTH)


def console_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a Rich console reads: the sizes as attn reads them (`environ_size`), one
    that is no number left out. Rich takes str.isdigit() for a number and calls int() on it:
    COLUMNS=² or a COLUMNS of 5,000 digits was an internal error in every rich and SVG view."""
    environ = os.environ if environ is None else environ
    kept = {name: value for name, value in environ.items() if name not in SIZES}
    for name in SIZES:
        size = environ_size(name, environ)
        if size is not None:
            kept[name] = str(size)
    return kept

"""`%%attn`, a cell magic for IPython and Jupyter (`%load_ext attncli`): the cell is an attn
block (an inline spec, or `spec: PATH` from the current folder, and the choices of `attn
export`), and the cell's result is its walkthrough as Markdown, the same text `attn export
--markdown --md-flavor katex` writes, which Jupyter renders with its math.

Loading the extension imports nothing from attn but this module: NumPy and the rest come with
the first cell that runs.
"""

from __future__ import annotations

import codecs
import os
import sys
from contextlib import suppress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attncli.errors import AttnError

MAGIC = "%%attn"
CELL = "<cell>"  # an error's place: `<cell>:LINE:COLUMN`, the line counted from `%%attn`
# The command line's line when not even its own can be made (cli/running.py OUT_OF_MEMORY_LINE)
NOT_ENOUGH_MEMORY = "attn: not enough memory"


def attn(line: str, cell: str) -> Any:
    """The walkthrough of the cell's block, displayed as Markdown; on a bad block, anything on
    the `%%attn` line, or memory refused, one line on standard error (in $ATTN_LANG's language)
    and nothing displayed."""
    try:
        from IPython.display import Markdown

        from attncli.errors import NO_MEMORY, NO_ROOM_TO_LOAD, AttnError
        from attncli.i18n import first_known, translate
        from attncli.i18n.visible import visible

        lang = first_known(os.environ.get("ATTN_LANG"))
        # made now: once memory is refused, making the line may be refused too
        no_memory = "attn: " + translate(NO_MEMORY, lang)
    except MemoryError:  # refused already (the catalogue's first use): the fixed line
        with suppress(MemoryError):
            say(NOT_ENOUGH_MEMORY)
        return None
    try:
        from attncli.fill.block import read_block, walkthrough_text

        nothing_on(line)
        request = read_block("\n" + cell, CELL, None, "katex")
        text = walkthrough_text(request, "markdown")
    except AttnError as error:
        # shown as the command line shows an error: what it quotes from the cell (a file name,
        # the %%attn line) may hold an escape sequence, a BEL or a CR, printed as `\x1b`
        say(visible(str(with_library_limit(error).in_language(lang))))
        return None
    except (MemoryError, ImportError) as error:  # as the command line says it, no traceback
        if isinstance(error, ImportError) and NO_ROOM_TO_LOAD not in str(error):
            raise
        with suppress(MemoryError):
            say(no_memory)
        return None
    return Markdown(text)  # type: ignore[no-untyped-call]


def say(line: str) -> None:
    """`line` on standard error; where its codec writes no text whole (PYTHONIOENCODING=idna
    or undefined in a terminal's IPython), in UTF-8 through its buffer: the line came out as
    Python's dump of an unraisable UnicodeError, or not at all. Where standard error is full
    or closed, nobody is told, as on the command line (the OSError was IPython's traceback)."""
    err = sys.stderr
    if err is None:  # closed: nobody to tell
        return
    text = line + "\n"
    try:
        encoding, errors = err.encoding or "utf-8", err.errors or "strict"
        shown = codecs.getincrementalencoder(encoding)(errors).encode(text) == text.encode(
            encoding, errors)  # idna holds a line's end until the stream is closed
    except (UnicodeError, AttributeError):
        shown = False
    except LookupError:  # a codec Python does not know: as it is
        shown = True
    if shown:
        with suppress(OSError, ValueError):  # full (2>/dev/full) or closed: as the command line
            print(line, file=err)
        return
    with suppress(AttributeError, OSError, ValueError):
        err.buffer.write(text.encode("utf-8", "backslashreplace"))
        err.buffer.flush()


def with_library_limit(error: AttnError) -> AttnError:
    """`error`, where it names the command line's --max-cells, which the magic does not take,
    naming the library's `max_cells` and the calls that take it: a cell keeps to the default
    limit, and a larger spec is worked out by attncli.build in the notebook."""
    from attncli.i18n import Msg, renamed

    message = renamed(error.message, {"--max-cells": "max_cells"})
    if message != error.message:
        error.message = Msg.of("{problem} ({magic} keeps to the default limit; attncli.load_spec "
                               "and attncli.build take {keyword})", problem=message, magic=MAGIC,
                               keyword="max_cells")
    return error


def nothing_on(line: str) -> None:
    """SpecError at `<cell>:1:COLUMN` for anything written after `%%attn`: the cell is the whole
    block, choices included (`lang: ru`), and an option there (`--lang ru`, `-o x.md`) was
    dropped without a word."""
    from attncli.errors import Location, SpecError
    from attncli.i18n import Msg
    from attncli.i18n.quoting import clipped

    found = line.strip()
    if not found:
        return
    column = len(MAGIC) + 2 + len(line) - len(line.lstrip())  # after `%%attn` and its space
    raise SpecError(clipped(Msg.of(
        "{magic} takes nothing on its line, found {found}; the cell holds the whole block, "
        "its choices as keys (lang: ru, precision: 3)",
        magic=MAGIC, found=found)), Location(CELL, "", 1, column))


def register(ipython: Any) -> None:
    ipython.register_magic_function(attn, magic_kind="cell", magic_name="attn")

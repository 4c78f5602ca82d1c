"""`%%attn`, a cell magic for IPython and Jupyter (`%load_ext attncli`): the cell is an attn
block (an inline spec, or `spec: PATH` from the current folder, and the choices of `attn
export`), and the cell's result is its walkthrough as Markdown, the same text `attn export
--markdown --md-flavor katex` writes, which Jupyter renders with its math.

Loading the extension imports nothing from attn but this module: NumPy and the rest come with
the first cell that runs.
"""

from __future__ import annotations

import os
import sys
from typing import Any

CELL = "<cell>"  # an error's place: `<cell>:LINE:COLUMN`, the line counted from `%%attn`


def attn(line: str, cell: str) -> Any:
    """The walkthrough of the cell's block, displayed as Markdown; on a bad block, one line on
    standard error (in $ATTN_LANG's language) and nothing displayed."""
    from IPython.display import Markdown

    from attncli.errors import AttnError
    from attncli.fill.block import read_block, walkthrough_text
    from attncli.i18n import first_known

    del line  # everything is in the cell, as in an attn block
    try:
        request = read_block("\n" + cell, CELL, None, "katex")
        text = walkthrough_text(request, "markdown")
    except AttnError as error:
        print(str(error.in_language(first_known(os.environ.get("ATTN_LANG")))),
              file=sys.stderr)
        return None
    return Markdown(text)  # type: ignore[no-untyped-call]


def register(ipython: Any) -> None:
    ipython.register_magic_function(attn, magic_kind="cell", magic_name="attn")

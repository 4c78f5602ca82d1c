"""attn's own marks inside text being rendered: where a word parameter of a sentence stands
(md_prose.Marked), where a fragment's id goes (html.py), the `--full` switch of a Markdown sentence
(markdown.py), a space that wrapping keeps (wrap.py).

Each mark is a noncharacter of U+FDD0-U+FDEF. `visible` (attncli/i18n/visible.py) writes those as
escapes in every text that comes from the input (a token's label, a title, a description) before
any renderer sees it, so no user's text can hold a mark, be read as one or be rewritten by one: a
token may hold any private-use character (U+E000-U+F8FF) and prints as written. A mark left in a
document by mistake is escaped by visible_document, so it shows instead of hiding."""

from __future__ import annotations

MARK, END = "\ufdd0", "\ufdd1"  # around the index of a marked word: MARK 3 END
BOUND = "\ufdd2"  # a space inside a unit of bind_units while prose is wrapped
SLOT = "\ufdd3"  # stands for an HTML block's id until the block is written
SWITCH = "\ufdd4"  # stands for the switch that shows every number (`--full`)

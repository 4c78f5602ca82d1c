"""Token names too wide for any line (`p` × 250: no point a page may break at), shown in every
format a page or a picture lays out (LaTeX, Beamer, Typst, HTML, the SVGs) as their first and
last characters around `…` (model/latex_text.py shown_name), so one name reads the same
everywhere and the numbering of steps/labels.py (`p…p₁`, `p…p₂`) keeps two such names apart.
JSON and XLSX are data: they keep every name whole.

A label is shortened where a format lays it out (a matrix's column widths, a heatmap's
margins); everything else a name goes into (`k_name`, `S[name, name]`, “name” attends to …,
a heading, an aria-label) is text the format has escaped, where `Names.replacer` puts the
short form in place of each long name's escaped form: no place is left out. A streamed document
is replaced in only where a format writes text (`Names.stream`'s `where`: an HTML page's text
and attribute values, a Typst string literal), never in attn's own script, style or helpers,
which a token may spell out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from attncli.model import Walkthrough
from attncli.model.latex_text import shown_name
from attncli.records import record


def long_names(walkthrough: Walkthrough) -> tuple[str, ...]:
    """Every row and column label too wide to show whole (shown_name), longest first."""
    labels: set[str] = set()
    for step in walkthrough.steps:
        for matrix in step.matrices:
            labels.update(matrix.rows, matrix.columns)  # each label measured once, not per step
    return Names.of_labels(labels).names


@record
class Names:
    """The long names of a walkthrough (long_names), longest first: one containing another is
    replaced whole first."""

    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, walkthrough: Walkthrough) -> Names:
        return cls(long_names(walkthrough))

    @classmethod
    def of_labels(cls, labels: Iterable[str]) -> Names:
        """The labels too wide to show whole (shown_name), longest first."""
        return cls(tuple(sorted({label for label in labels if shown_name(label) != label},
                                key=lambda label: (-len(label), label))))

    def shown(self, text: str) -> str:
        """`text` with each long name as every other place shows it (shown_name)."""
        return self.replacer((_as_is,))(text) if self.names else text

    def replacer(self, escapes: Iterable[Callable[[str], str]]) -> Callable[[str], str]:
        """What writes a format's text (`escapes`: how it writes a name, as a string literal,
        an attribute, an element's text) with each long name written so replaced by its short
        form written alike: one pass over the text, whatever the number of names."""
        return _replacer(self.names, tuple(escapes))

    def stream(self, chunks: Iterable[str], escapes: Iterable[Callable[[str], str]],
               where: Callable[[str, Callable[[str], str]], str]) -> Iterator[str]:
        """Each chunk of a streamed document with its long names replaced (replacer) in the
        pieces of text `where(chunk, replace)` applies `replace` to: a name never spans two
        chunks."""
        if not self.names:
            yield from chunks
            return
        replace = self.replacer(escapes)
        for chunk in chunks:
            yield where(chunk, replace)


def _as_is(text: str) -> str:
    return text


@lru_cache(maxsize=8)  # a LaTeX document's every sentence asks for the same one
def _replacer(names: tuple[str, ...],
              escapes: tuple[Callable[[str], str], ...]) -> Callable[[str], str]:
    table: dict[str, str] = {}
    for name in names:
        short = shown_name(name)
        for escape in escapes:
            table.setdefault(escape(name), escape(short))
    return _Replacer(table) if table else _as_is


class _Replacer:
    """Each key of `table` in a text replaced by its value, left to right, the longest key at
    each place first (a name that holds another is replaced whole), as a pattern of every key
    would; found by their first HEAD characters, so that the pattern compiled is small: one of
    4,096 names of 1,000 characters was 4 MB, compiled in seconds."""

    HEAD = 8

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table
        self.head = min(self.HEAD, *map(len, table))
        lengths: dict[str, set[int]] = {}
        for key in table:
            lengths.setdefault(key[:self.head], set()).add(len(key))
        self.lengths = {head: sorted(found, reverse=True) for head, found in lengths.items()}
        self.heads = re.compile("|".join(map(re.escape, sorted(lengths))))

    def __call__(self, text: str) -> str:
        pieces: list[str] = []
        done = at = 0  # text[:done] is in pieces; no key starts between done and at
        while (found := self.heads.search(text, at)) is not None:
            at = found.start()
            for length in self.lengths[found.group()]:
                key = text[at:at + length]
                if key in self.table:
                    pieces += [text[done:at], self.table[key]]
                    done = at = at + length
                    break
            else:
                at += 1
        return "".join([*pieces, text[done:]])


WHOLE = Names()  # no name shortened: the terminal's view, where a long name wraps

"""Token names too wide for any line (`p` × 250: no point a page may break at), shown in every
format a page or a picture lays out (LaTeX, Beamer, Typst, HTML, the SVGs) as their first and
last characters around `…` (model/latex_text.py shown_name), so one name reads the same
everywhere and the numbering of steps/labels.py (`p…p₁`, `p…p₂`) keeps two such names apart.
JSON and XLSX are data: they keep every name whole.

A label is shortened where a format lays it out (a matrix's column widths, a heatmap's
margins); everything else a name goes into (`k_name`, `S[name, name]`, “name” attends to …,
a heading, an aria-label) is text the format has escaped, where `Names.written` puts the short
form in place of each long name's escaped form: no place is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from attncli.model import Walkthrough
from attncli.model.latex_text import shown_name
from attncli.records import record


def long_names(walkthrough: Walkthrough) -> tuple[str, ...]:
    """Every row and column label too wide to show whole (shown_name), longest first."""
    labels: set[str] = set()
    for step in walkthrough.steps:
        for matrix in step.matrices:
            labels.update(matrix.rows, matrix.columns)  # each label measured once, not per step
    return tuple(sorted((label for label in labels if shown_name(label) != label),
                        key=lambda label: (-len(label), label)))


@record
class Names:
    """The long names of a walkthrough (long_names), longest first: one containing another is
    replaced whole first."""

    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, walkthrough: Walkthrough) -> Names:
        return cls(long_names(walkthrough))

    def shown(self, text: str) -> str:
        """`text` with each long name as every other place shows it (shown_name)."""
        for name in self.names:
            if name in text:
                text = text.replace(name, shown_name(name))
        return text

    def written(self, out: str, escapes: Iterable[Callable[[str], str]]) -> str:
        """`out`, a format's text, with each long name as one of `escapes` writes it (a string
        literal, an attribute, an element's text) replaced by its short form written alike."""
        for name in self.names:
            for escape in escapes:
                found = escape(name)
                if found in out:
                    out = out.replace(found, escape(shown_name(name)))
        return out

    def stream(self, chunks: Iterable[str],
               escapes: Iterable[Callable[[str], str]]) -> Iterator[str]:
        """`written` for each chunk of a streamed document: a name never spans two chunks."""
        escapes = tuple(escapes)
        if not self.names:
            yield from chunks
            return
        for chunk in chunks:
            yield self.written(chunk, escapes)


WHOLE = Names()  # no name shortened: the terminal's view, where a long name wraps

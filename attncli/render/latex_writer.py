"""What every LaTeX piece is written with (attncli/render/latex_parts.py and the heatmap's
latex_heatmap.py): the language, the escaping, numbers as text and as math, the page's measure;
and the shape of a piece, a heading and its chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg, Symbol
from attncli.records import record
from attncli.render import RenderOptions
from attncli.render.common import translator
from attncli.render.latex_lines import breakable_cell
from attncli.render.latex_matrix import Page
from attncli.render.long_names import Names
from attncli.render.notation import latex as notation_latex
from attncli.render.notation import message
from attncli.render.paper import on_paper
from attncli.render.tex import escape_text

CYRILLIC_LANGS = frozenset({"ru"})

Chunk = Sequence[str]


@dataclass
class Part:
    """A heading (LaTeX text) and its chunks; `kind` is title, step, reading or drift."""

    kind: str
    heading: str
    chunks: list[Chunk] = field(default_factory=list)


@record
class Writer:
    """What every piece needs: the language, escaping, numbers as text and as math."""

    lang: str
    number: NumberFormat
    page: Page
    full: bool
    # token names wider than a line may hold unbroken (model/latex_text.py WIDEST_WORD),
    # longest first: shortened in attn's own sentences as escape_text shortens them elsewhere
    long_names: tuple[str, ...] = ()

    @property
    def cyrillic(self) -> bool:
        return self.lang in CYRILLIC_LANGS

    def esc(self, text: str) -> str:
        return escape_text(self.shown(text), "latex", self.cyrillic)

    @property
    def line(self) -> float:
        """The room of a line in points at 10 pt, a little less than the page's measure."""
        return self.page.width * 0.96 * 10 / self.page.font

    def say(self, msg: Msg | str) -> str:
        """A catalog sentence, its notation as math; a cell it names (`S′[name, name]`) too
        wide for a line may break after its comma."""
        if isinstance(msg, str):
            return message(self.shown(msg), self.lang, self.esc, self.number)
        said = on_paper(msg)
        params = tuple((name, breakable_cell(value, self.line) if isinstance(value, Symbol)
                        else value) for name, value in said.params)
        return message(replace(said, params=params), self.lang, self.esc, self.number)

    def prose(self, text: str) -> str:
        """Text attn wrote (a heading, a fact) with its notation as math."""
        return notation_latex(self.shown(text), self.esc, self.lang)

    def shown(self, text: str) -> str:
        """`text` with each long token name as every other place shows it (shown_name, as
        text_math writes a label): a sentence (`k_name`, `“name” attends most to …`) is split
        into text and math before it is escaped, so a name is shortened whole, first; the
        sentence's own words are never shortened."""
        return Names(self.long_names).shown(text)

    def t(self, msg: Msg) -> str:
        return translator(RenderOptions(lang=self.lang, full_switch=""), self.number)(msg)

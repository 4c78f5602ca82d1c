"""What the renderers share: the words of the header and step headings, number formatting,
and splitting a wide matrix into column blocks that fit the screen."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

from attncli.arithmetic.elision import FULL_SWITCH
from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg, Symbol, translate
from attncli.i18n.typography import typeset
from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Header,
    Matrix,
    Num,
    Product,
    Quotient,
    Step,
    Sum,
    Tanh,
    Terms,
    Value,
    Vec,
    Walkthrough,
)
from attncli.render import RenderOptions, shortened
from attncli.render.paper import on_paper

Translate = Callable[[Msg], str]


def number_format(walkthrough: Walkthrough, options: RenderOptions) -> NumberFormat:
    precision = walkthrough.precision if options.precision is None else options.precision
    decimal = walkthrough.decimal if options.decimal is None else options.decimal
    return NumberFormat.with_mark(precision, decimal)


def translator(options: RenderOptions, number: NumberFormat) -> Translate:
    """Messages in the options' language; `{switch}` says how to ask for every number there
    (an empty `full_switch`: a document, where the sentence is said without it).
    The sentences said again and again (`(64 terms)` after every long sum) are kept."""
    said: dict[Msg, str] = {}

    def t(msg: Msg) -> str:
        try:
            text = said.get(msg)
        except TypeError:  # a parameter that is no key (a list): said once, not kept
            return translate(switched(msg), options.lang, number)
        return text if text is not None else keep(msg)

    def switched(msg: Msg) -> Msg:
        if isinstance(msg, Msg) and not options.full_switch:  # a document: no switch to name
            return on_paper(msg)
        if isinstance(msg, Msg) and options.full_switch != FULL_SWITCH and any(
                name == "switch" for name, _ in msg.params):
            return replace(msg, params=tuple((name, options.full_switch if name == "switch"
                                              else value) for name, value in msg.params))
        return msg

    def keep(msg: Msg) -> str:
        text = translate(switched(msg), options.lang, number)
        if len(said) >= 1024:
            said.clear()
        said[msg] = text
        return text

    return t


def title(header: Header, lang: str, t: Translate) -> str:
    """The spec's title in `lang`, set as a catalog sentence is (typeset: no line of a Polish
    or Russian title ends with a one-letter word), or attn's own."""
    for key in (lang, "", "en"):
        if key in header.title:
            return typeset(header.title[key], lang)
    return t(Msg.of("Attention step by step"))


def description(header: Header, lang: str) -> str | None:
    """The paragraph under the title, set as the title is."""
    for key in (lang, "", "en"):
        if key in header.description:
            return typeset(header.description[key], lang)
    return None


def header_facts(header: Header, t: Translate) -> list[str]:
    """Short facts about the example: sizes, mask, scale."""
    if header.n_queries == header.n_keys:
        sizes = [t(Msg.plural_of("{count} token", "{count} tokens", header.n_queries))]
    else:
        sizes = [t(Msg.plural_of("{count} query", "{count} queries", header.n_queries)),
                 t(Msg.plural_of("{count} key", "{count} keys", header.n_keys))]
    sizes.append(f"d_model = {header.d_model}")
    if header.uniform_heads:  # else each head's d_k and d_v are among the facts
        sizes += [f"d_k = {header.d_k}", f"d_v = {header.d_v}"]
    if header.n_heads > 1:
        sizes.append(t(Msg.plural_of("{count} head", "{count} heads", header.n_heads)))
    return [
        ", ".join(sizes),
        t(Msg.of("mask: {mask}", mask=header.mask)) + " · " +
        t(Msg.of("scale: {scale}", scale=header.scale)),
        *(t(fact) for fact in header.facts),
    ]


def formula_text(formula: Formula, t: Translate) -> str:
    """A step's formula as plain text, its unit (if any) in the reader's language."""
    return formula.text if formula.unit is None else f"{formula.text} {t(formula.unit)}"


def formula_latex(formula: Formula, t: Translate) -> str:
    """A step's formula as LaTeX math, its unit (if any) upright text in the reader's
    language: `\\text` takes a Cyrillic letter in pdflatex, KaTeX and MathJax alike."""
    if formula.unit is None:
        return formula.latex
    return rf"{formula.latex}\,\text{{{t(formula.unit)}}}"


def machine_unit(msg: Msg) -> str:
    """A unit as a program reads it (JSON): the English symbol, `B`, in every language."""
    return msg.msgid


def step_heading(number: int, step: Step, t: Translate) -> str:
    if step.head is None:
        return f"{number}. {t(step.title)}"
    # the dash as each language sets it between a title and its head (Polish: an en dash)
    return f"{number}. " + t(Msg.of("{title} — head {index}", title=step.title, index=step.head))


def matrix_caption(matrix: Matrix) -> str:
    rows, columns = matrix.shape
    return f"{matrix.symbol.text}  ({rows} × {columns})"


def shown_matrices(step: Step, full: bool) -> tuple[tuple[Matrix, ...], Msg | None]:
    """The step's matrices to show as tables, and a sentence for the identity projections left
    out (`W_Q, W_K and W_V are the 2 × 2 identity matrix I`), unless `full` shows every one."""
    identities = [m for m in step.matrices if m.identity and not full]
    if not identities:
        return step.matrices, None
    names = [Symbol(m.symbol.text, m.symbol.latex) for m in identities]
    listed: Msg | str = names[0]
    for name in names[1:-1]:
        listed = Msg.of("{first}, {second}", first=listed, second=name)
    if len(names) > 1:
        listed = Msg.of("{first} and {last}", first=listed, last=names[-1])
    sentence = Msg.plural_of(
        "{names} is the {size} × {size} identity matrix I ({switch} shows it).",
        "{names} are the {size} × {size} identity matrix I ({switch} shows them).",
        len(names), names=listed, size=identities[0].shape[0], switch=FULL_SWITCH)
    return tuple(m for m in step.matrices if not m.identity), sentence


def language_heading(lang: str) -> str:
    """The heading of one language's part of a bilingual document: `## PL`."""
    return f"## {lang.upper()}"


def language_sections(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str],
                      stream: Callable[[Walkthrough, RenderOptions], Iterable[str]],
                      heading: Callable[[str], str]) -> Iterator[str]:
    """The walkthrough once per language, each under its heading, a blank line between them."""
    for k, lang in enumerate(langs):
        yield ("\n" if k else "") + f"{heading(lang)}\n\n"
        yield from stream(walkthrough, replace(options, lang=lang))


def column_blocks(widths: list[int], available: int) -> list[range]:
    """Consecutive column ranges whose widths (each with its gap) fit in `available`."""
    blocks: list[range] = []
    start, used = 0, 0
    for j, width in enumerate(widths):
        if j > start and used + width > available:
            blocks.append(range(start, j))
            start, used = j, 0
        used += width
    blocks.append(range(start, len(widths)))
    return blocks


# --- written-out cells (model.Expansion) as one line of text ---

def exact_as_written(expansion: Expansion, full: bool) -> bool:
    """Whether the line may say `=`: its printed numbers give its printed result, and none of
    them is left out."""
    return expansion.exact and not shortened.leaves_out(expansion.expression, full)


def _signed(text: str, minus: str, lead: bool) -> str:
    """A number in a calculation: bracketed when negative, unless it leads."""
    return f"({text})" if not lead and text.startswith(minus) else text


def expr_text(expr: Expr, number: NumberFormat, t: Translate, full: bool = False,
              lead: bool = True) -> str:
    """The numbers of a calculation: `0.20·0.20 + 1.00·(−0.50)`, `e^−0.34`, `e^(12.00 − 16.00)`.
    A negative number is bracketed unless it leads (`lead`): it starts the expression, a sum, a
    product or an exponent, where its sign cannot be read as an operator."""
    def sub(e: Expr, first: bool) -> str:
        return expr_text(e, number, t, full, lead and first)

    def wrapped(e: Expr, around: tuple[type, ...], first: bool = False) -> str:
        if isinstance(e, around):
            return "(" + expr_text(e, number, t, full) + ")"
        return sub(e, first)

    if isinstance(expr, Num):
        return BOX_TEXT if expr.blank else _signed(number(expr.value), number.minus, lead)
    if isinstance(expr, Vec):
        row = shortened.values(expr.values, lambda k, x: BOX_TEXT if k in expr.blank
                               else number(x), full)
        return "[" + number.list_separator.join(row) + "]"
    if isinstance(expr, Product):
        numbers = [f for f in expr.factors if isinstance(f, Num)]
        if len(numbers) == len(expr.factors):  # a term of a dot product, the most written: as
            return "·".join(BOX_TEXT if f.blank else  # below, without the recursion
                            _signed(number(f.value), number.minus, lead and k == 0)
                            for k, f in enumerate(numbers))
        return "·".join(wrapped(f, (Sum, Difference, Quotient), k == 0)
                        for k, f in enumerate(expr.factors))
    if isinstance(expr, Sum) and isinstance(expr.terms, Terms):  # a dot product: the numbers
        rows, minus = expr.terms, number.minus  # of the terms it shows, from its two rows

        def term(k: int, _: int) -> str:  # aₖ·bₖ; the first leads when the sum does
            return (_signed(number(float(rows.left[k])), minus, lead and k == 0) + "·"
                    + _signed(number(float(rows.right[k])), minus, False))

        terms = shortened.sum_terms(range(len(rows)), term, full)
    elif isinstance(expr, Sum):
        terms = shortened.sum_terms(expr.terms, lambda k, e: wrapped(e, (Sum, Difference),
                                                                     k == 0), full)
    if isinstance(expr, Sum):
        text = " + ".join(terms)
        if shortened.ELLIPSIS in terms:
            text += " " + t(shortened.left_out(len(expr.terms)))
        return text
    if isinstance(expr, Quotient):
        below = wrapped(expr.denominator, (Sum, Difference, Quotient, Product))
        if isinstance(expr.denominator, Num) and POWER_TEXT in below:  # 1.00 / (1.23×10⁸)
            below = f"({below})"
        return wrapped(expr.numerator, (Sum, Difference, Quotient), True) + " / " + below
    if isinstance(expr, Exp):
        argument = expr_text(expr.argument, number, t, full)  # an exponent leads
        return "e^" + (argument if isinstance(expr.argument, Num) and POWER_TEXT not in argument
                       else f"({argument})")
    if isinstance(expr, Tanh):
        return "tanh(" + expr_text(expr.argument, number, t, full) + ")"  # its argument leads
    assert isinstance(expr, Difference)
    return sub(expr.left, True) + " − " + wrapped(expr.right, (Sum, Difference))


POWER_TEXT = "×10"  # a number written m × 10^k (arithmetic/numbers.py): bracketed where an
# operator after it would bind to 10^k alone (a divisor, an exponent)


# --- worksheets (attncli/check/worksheet.py): a blank cell or result is printed as a box ---

BOX_TEXT = "____"
BOX_MARKDOWN = r"\_\_\_\_"  # a GFM table cell: escaped, so no emphasis


def box_math(number: Callable[[float], str]) -> str:
    """A line to write on, a little wider than a number of the walkthrough's precision, for TeX,
    KaTeX and MathJax alike (a \\boxed cell would make its matrix row taller than the rest)."""
    return r"\underline{\hphantom{0" + number(0.0) + "}}"


def value_text(value: Value, number: NumberFormat) -> str:
    if isinstance(value, tuple):
        return "[" + number.list_separator.join(number(x) for x in value) + "]"
    return number(value)


def expansion_text(expansion: Expansion, number: NumberFormat, t: Translate,
                   full: bool = False) -> str:
    """`S[chases, chases] = q_chases·k_chases = 0.20·0.20 + 1.00·1.00 = 1.04`; `≈` before the
    result when the printed operands, recomputed, do not give the printed result, or when the
    line leaves some out (a long sum shortened)."""
    parts = [f.text for f in (expansion.target, expansion.symbolic) if f is not None]
    if not expansion.repeats_result():
        parts.append(expr_text(expansion.expression, number, t, full))
    sign = " = " if exact_as_written(expansion, full) else " ≈ "
    if expansion.blank:
        return " = ".join(parts) + " = " + BOX_TEXT
    return " = ".join(parts) + sign + value_text(expansion.result, number)


# --- heatmap of the weights ---

SHADES = ("  ", "░░", "▒▒", "▓▓", "██")


def shade(weight: float) -> str:
    """Two characters darker for more weight; blank for 0, `??` for an undefined weight."""
    if weight != weight:  # NaN
        return "??"
    return SHADES[min(len(SHADES) - 1, max(0, round(weight * (len(SHADES) - 1))))]


def heatmap_caption(t: Translate) -> str:
    return t(Msg.of("Heatmap: a fuller block is more weight ({shades}), the number beside it.",
                    shades=" ".join(s for s in SHADES if s.strip())))


def drift_lines(walkthrough: Walkthrough, number: NumberFormat, lang: str) -> list[str]:
    """Hand calculation against full precision: each number that prints differently, the
    full-precision value with two more decimals so the size of the drift shows."""
    if walkthrough.drift is None:
        return []
    finer = number.finer(2)
    if not walkthrough.drift:
        return [translate(Msg.of("Carrying rounded numbers changed no printed weight or output: "
                                 "they are the same as at full precision."), lang, number)]
    lines = [translate(Msg.plural_of(
        "Carrying rounded numbers moved {count} printed number away from full precision:",
        "Carrying rounded numbers moved {count} printed numbers away from full precision:",
        len(walkthrough.drift)), lang, number)]
    for d in walkthrough.drift:
        where = f"{d.matrix}[{d.row}, {d.column}]"
        if d.head is not None:
            where = translate(Msg.of("{cell} of head {index}", cell=where, index=d.head), lang)
        lines.append("  " + translate(
            Msg.of("{cell}: {rounded} by hand, {full} at full precision ({difference} apart)",
                   cell=where, rounded=number(d.rounded), full=d.full,
                   difference=abs(d.rounded - d.full)), lang, finer))
    return lines


def reading_sections(walkthrough: Walkthrough,
                     t: Translate) -> Iterator[tuple[str, Iterator[str]]]:
    """(heading, sentences) of every reading, translated as they are read."""
    for reading in walkthrough.reading:
        if reading.head is not None:
            heading = t(Msg.of("What the weights say — head {index}", index=reading.head))
        elif len(walkthrough.heads) > 1:
            heading = t(Msg.of("What the heads say together"))
        else:
            heading = t(Msg.of("What the weights say"))
        yield heading, map(t, reading.sentences)


# A column label longer than this many characters is shown in lines of at most this many, one
# over the other, so that a 40-character token name does not make its column 40 characters wide.
LABEL_LINE = 16
# A label is cut between words: after a hyphen or underscore, or at a space (which the line break
# then stands for), the last such gap in the line; mid-word, at LABEL_LINE, only where the line
# has none that leaves at least SHORTEST_LINE characters before it.
GAPS = "-_"
SHORTEST_LINE = LABEL_LINE // 4


def _cut(rest: str) -> int:
    """Where the first line of `rest` (longer than LABEL_LINE) ends."""
    for end in range(LABEL_LINE, SHORTEST_LINE - 1, -1):
        if rest[end] == " " or rest[end - 1] in GAPS:
            return end
    return LABEL_LINE


def label_lines(label: str) -> list[str]:
    """A label's lines: itself, or its pieces of at most LABEL_LINE characters, cut between words
    where it can be (attn's own notation, a Symbol, is never cut).
    `internationalization and localization A` -> `internationaliza`, `tion and`,
    `localization A`."""
    if len(label) <= LABEL_LINE or isinstance(label, Symbol):
        return [label]
    lines, rest = [], label
    while len(rest) > LABEL_LINE:
        end = _cut(rest)
        lines.append(rest[:end])
        rest = rest[end + 1:] if rest[end] == " " else rest[end:]
    return [*lines, rest] if rest else lines

"""attn check's verdicts as lines of text in the reader's language."""

from __future__ import annotations

import math

from attncli.arithmetic.numbers import (
    LARGE,
    MINUS,
    NumberFormat,
    as_decimal,
    half_up,
    mantissa,
    padded,
)
from attncli.check.compare import ROWS_NAMED, SlipMatch, Verdict
from attncli.i18n import SUPERSCRIPT, Count, Msg, listing, quoted, quoted_list, translate
from attncli.spec.inline import CARET

SHOWN_PARTIAL = 3  # slips listed when none gives the whole answer
SHOWN_CELLS = 20  # differing numbers written out, the first in reading order; the rest counted
# A float64 means at most 17 significant digits (its shortest decimal): a right value written
# m × 10^k has at most 16 decimals in m, however many zeros the student's m carries
MANTISSA_DECIMALS = 16
POWER_MARK = "×10"  # m × 10^k with k in superscripts (arithmetic/numbers.py `large`)


def symbol(verdict: Verdict) -> Msg | str:
    text = verdict.right.symbol.text
    if verdict.head is None:
        return text
    return Msg.of("{symbol} (head {head})", symbol=text, head=verdict.head)


def cell_name(verdict: Verdict, i: int, j: int) -> str:
    m = verdict.right
    return f"{m.symbol.text}[{m.rows[i]}, {m.columns[j]}]"


def headline(verdict: Verdict) -> Msg:
    total = len(verdict.answer.cells) * len(verdict.answer.cells[0])
    name = symbol(verdict)
    if verdict.ok:
        return Msg.plural_of("{symbol}: right to your precision ({count} number).",
                             "{symbol}: right to your precision (all {count} numbers).",
                             Count(total), symbol=name)
    differ = Msg.plural_of("{count} of {total} numbers differs", "{count} of {total} numbers "
                           "differ", Count(len(verdict.wrong)), total=Count(total))
    rows = list(dict.fromkeys(i for i, _ in verdict.wrong))
    if len(rows) < len(verdict.answer.cells):
        names = [verdict.right.rows[i] for i in sorted(rows)]
        labels = (listing([quoted(name) for name in names]) if len(names) <= ROWS_NAMED
                  else quoted_list(names, most=ROWS_NAMED))
        return Msg.plural_of("{symbol}: right except row {rows}; {differ}:",
                             "{symbol}: right except rows {rows}; {differ}:", len(rows),
                             symbol=name, rows=labels, differ=differ)
    return Msg.of("{symbol}: {differ}:", symbol=name, differ=differ)


def as_student_writes(value: float, text: str, decimals: int, extra: int = 0) -> str:
    """The right value in the notation of the student's `text` (written to `decimals`), with
    `extra` more digits: their decimal mark; with an exponent, as many digits in m as theirs has
    (1.24e20 -> 1.23e20; 1e308 for 1 -> 1e0), at most MANTISSA_DECIMALS; else fixed digits at
    their decimals, however large (123456700000000000000), as attn writes numbers below a
    million. Written m × 10^k (1.24×10⁶, as attn writes a million or more), it is too: 1.23×10⁶."""
    mark = "," if "," in text else "."
    caret = CARET(text.replace("−", "-"))  # 1.24×10^6, 1.24*10^(-3), 10^-3: typed on one line
    power = POWER_MARK in text and caret is None  # 1.24×10⁶, as attn writes a million or more
    exponent = power or caret is not None or "e" in text.lower()
    if not math.isfinite(value) or (not exponent and abs(value) < LARGE / 2):
        return NumberFormat(max(0, decimals) + extra, mark)(value)
    exact = as_decimal(value)
    if exponent and not exact:  # 0, not 0×10⁰: zero has no power of ten of its own
        return "0"
    sign = MINUS if exact < 0 else ""
    if not exponent:  # a number without an exponent (or written m×10^k: its place, < 0)
        places = decimals + extra
        fixed = padded(half_up(abs(exact), places), places)
        return sign + format(fixed, "f").replace(".", mark)
    written_m = (caret.group(1) or "" if caret is not None else
                 text.split(POWER_MARK)[0] if power else text.lower().split("e")[0])
    digits = len(written_m.replace(",", ".").partition(".")[2]) + extra
    m, k = mantissa(abs(exact), min(digits, MANTISSA_DECIMALS))
    m_text = sign + format(m, "f").replace(".", mark)
    if caret is not None:  # in the student's own signs: 1.23×10^-3, 1.23*10^-3
        return f"{m_text}{caret.group(2) or '×'}10^{k}"
    return f"{m_text}{POWER_MARK}{str(k).translate(SUPERSCRIPT)}" if power else f"{m_text}e{k}"


def cell_lines(verdict: Verdict) -> list[Msg]:
    """The first SHOWN_CELLS differing numbers, each with the right value; then how many more."""
    lines = []
    values = verdict.right.whole()
    for i, j in verdict.wrong[:SHOWN_CELLS]:
        cell = verdict.answer.cells[i][j]
        value = float(values[i, j])
        lines.append(Msg.of("{cell}: you wrote {written}, the right value is {right} ({exact})",
                            cell=cell_name(verdict, i, j), written=cell.text,
                            right=as_student_writes(value, cell.text, cell.decimals),
                            exact=as_student_writes(value, cell.text, cell.decimals, extra=2)))
    more = len(verdict.wrong) - SHOWN_CELLS
    if more > 0:
        lines.append(Msg.plural_of("… and {count} more differing number",
                                   "… and {count} more differing numbers", Count(more)))
    return lines


def slip_lines(verdict: Verdict) -> list[Msg]:
    tried = len(verdict.tried)
    if tried < len(verdict.wrong):
        return [Msg.plural_of("Slips tried on the rows of the first {count} differing number "
                              "only:", "Slips tried on the rows of the first {count} differing "
                              "numbers only:", Count(tried)), *slips_found(verdict),
                *untried(verdict)]
    return [*slips_found(verdict), *untried(verdict)]


def untried(verdict: Verdict) -> list[Msg]:
    """The slips worked by hand that were past the limit of hand calculation."""
    return [Msg.plural_of("Not tried: {slip} (working it by hand takes {count} weight; the "
                          "limit is {limit}, which depends on {option}).", "Not tried: {slip} "
                          "(working it by hand takes {count} weights; the limit is {limit}, which "
                          "depends on {option}).", Count(u.weights), slip=u.name,
                          limit=Count(u.limit), option="--max-cells") for u in verdict.untried]


def slips_found(verdict: Verdict) -> list[Msg]:
    whole = [s for s in verdict.slips if s.whole]
    if len(whole) == 1:
        return [Msg.of("Your numbers match {slip}.", slip=whole[0].name)]
    if whole:
        return [Msg.of("Your numbers match each of these slips (on this spec they give the same "
                       "numbers):"), *(Msg.of("– {slip}", slip=s.name) for s in whole)]
    if not verdict.slips:
        return [Msg.of("No slip in attn's catalogue gives these numbers.")]
    return [Msg.of("No slip in attn's catalogue gives all your numbers; some come from:"),
            *(partial(verdict, s) for s in verdict.slips[:SHOWN_PARTIAL])]


def partial(verdict: Verdict, slip: SlipMatch) -> Msg:
    cells = ", ".join(cell_name(verdict, i, j) for i, j in slip.cells)
    return Msg.plural_of("– {slip}: {count} number ({cells})",
                         "– {slip}: {count} numbers ({cells})", len(slip.cells),
                         slip=slip.name, cells=cells)


def report(verdicts: list[Verdict], lang: str) -> str:
    """Every verdict: its headline, the differing numbers, the slips that explain them."""
    out = []
    for verdict in verdicts:
        out.append(translate(headline(verdict), lang))
        if verdict.ok:
            continue
        out += ["   " + translate(line, lang) for line in cell_lines(verdict)]
        out += ["   " + translate(line, lang) for line in slip_lines(verdict)]
    return "".join(line + "\n" for line in out)


def summary(verdicts: list[Verdict]) -> Msg:
    """The one line on stderr when something is wrong (exit 1)."""
    wrong = sum(1 for v in verdicts if not v.ok)
    return Msg.plural_of("{count} answer of {total} is wrong", "{count} answers of {total} are "
                         "wrong", wrong, total=len(verdicts))

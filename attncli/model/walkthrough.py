"""The Walkthrough: what `build` produces and every renderer reads. Data only, but for the few
methods by which it lends its matrices to NumPy code (`w.matrix("A")`, `w["A"]`, found by the
symbol as shown) and shows itself in a notebook (the view attncli/render/notebook.py installs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from itertools import islice
from typing import Any, ClassVar, Literal, Protocol, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.i18n.quoting import shown
from attncli.model.expr import Expansion, Formula
from attncli.records import record

Array = NDArray[np.float64]
# a matrix's row or column labels: a tuple, or FeatureLabels (model/feature_labels.py)
Labels = Sequence[str]
T = TypeVar("T")


class Lazy(Sequence[T]):
    """Items made on demand, again on every pass: `-x all` writes out millions of cells, each
    made as it is written and dropped after, so memory holds none of them
    (attncli/arithmetic/expand.py)."""

    __slots__ = ("make", "most")

    def __init__(self, make: Callable[[], Iterator[T]], most: int | None = None) -> None:
        self.make = make
        self.most = most  # at most how many it makes, when that is known without making them

    def __iter__(self) -> Iterator[T]:
        return self.make()

    def __bool__(self) -> bool:
        return any(True for _ in self.make())

    def __len__(self) -> int:
        return sum(1 for _ in self.make())

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        """By position, making the items up to it (a reader's check, not a renderer's path)."""
        if isinstance(index, slice) or index < 0:
            return tuple(self.make())[index]
        for item in islice(self.make(), index, None):
            return item
        raise IndexError(index)

    def __repr__(self) -> str:
        return "Lazy(...)"


@record
class Matrix:
    """A labelled matrix. A hidden (masked) score is -inf; an undefined weight is NaN.

    A summary (`kept` given) holds only some whole rows of a large matrix: the ones a view that
    elides the middle shows, and the ones written out (see attncli/arithmetic/elision.py). Read it
    with
    `at` and `row`; `whole` is for formats that show every number.
    """

    symbol: Formula  # its name: Q, K, Sᵀ ...
    values: Array  # (rows, columns); a summary: (len(kept), columns)
    rows: Labels
    columns: Labels
    kept: tuple[int, ...] | None = None  # a summary: which rows `values` holds, ascending
    # a worksheet: the (row, column) cells printed as boxes to fill in (attncli/check/worksheet.py)
    blank: frozenset[tuple[int, int]] = frozenset()
    # attention weights under a mask: the masked scores, −∞ where a key is hidden from a query
    hidden_by: Matrix | None = None
    identity: bool = False  # a projection that is the identity: shown as `W_Q = I` unless --full

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.rows), len(self.columns))

    def row(self, i: int) -> Array:
        """Row i of the whole matrix (columns,)."""
        return self.values[i if self.kept is None else self.kept.index(i)]

    def at(self, i: int, j: int) -> float:
        return float(self.row(i)[j])

    def hidden(self, i: int, j: int) -> bool:
        """Whether the mask hides key j from query i (its weight is 0 by the mask, not earned)."""
        return self.hidden_by is not None and self.hidden_by.at(i, j) == -np.inf

    def row_indices(self) -> tuple[int, ...] | range:
        """The rows this matrix holds: all of them, or a summary's."""
        return range(len(self.rows)) if self.kept is None else self.kept

    def whole(self) -> Array:
        """Every number (rows, columns); ValueError for a summary."""
        if self.kept is not None:
            raise ValueError(f"{self.symbol.text} holds only some rows: build the walkthrough "
                             "with summary=False for a format that shows every number")
        return self.values

@record
class Step:
    """One step of the computation: what it is called, its formula, what it produced."""

    # stable: embeddings, positional, context, parameters, projections, rope, scores, scaled,
    # bias, masked, weights, output (per head); concat, out_projection; sandwich_1, residual_1,
    # norm_1, ffn, sandwich_2, residual_2, norm_2 (the rest of the layer)
    id: str
    title: Msg
    formula: Formula | None
    matrices: tuple[Matrix, ...]
    head: int | None = None  # 1-based, for steps that belong to one head
    notes: tuple[Msg, ...] = ()
    # cells of this step written out (attncli/arithmetic/expand.py): a Lazy when many may be
    expansions: Sequence[Expansion] = ()
    # 1-based place in the whole walkthrough, kept when only some steps are shown, so that
    # "step 7" on a slide is step 7 of the full example
    number: int = 0


@record
class HeadResult:
    """The matrices of one head, for the JSON `heads` entries."""

    index: int  # 1-based
    queries: Matrix
    keys: Matrix
    values: Matrix
    scores: Matrix  # the softmax input: scaled and masked (-inf where hidden)
    weights: Matrix
    context: Matrix
    divisor: float = 1.0  # what the scores were divided by (√d_k, rounded in hand calculation)
    # the rows Q and K, V were projected from: X (E + P, or LayerNorm(X) before a pre-norm
    # layer) and the context C with cross-attention; None: the embeddings as given
    query_inputs: Array | None = None  # (n, d_model)
    key_inputs: Array | None = None  # (m, d_model)


@record
class Header:
    title: dict[str, str]  # language -> text; "" for any
    description: dict[str, str]
    n_queries: int
    n_keys: int
    d_model: int
    d_k: int
    d_v: int
    n_heads: int
    convention: str
    mask: Msg
    scale: Msg
    uniform_heads: bool = True  # every head has the d_k and d_v above
    facts: tuple[Msg, ...] = ()  # more about the example: heads' shapes, positions, W_O, layer


@record
class Reading:
    """Sentences that say in words what the numbers of one head show
    (attncli/arithmetic/reading.py)."""

    head: int | None  # None: the only head, or a comparison of all heads
    sentences: Sequence[Msg]  # a Lazy when many: an angle for every written-out score


@record
class Drift:
    """A printed number that hand calculation got differently from full precision."""

    matrix: str  # the symbol, A or Z
    head: int | None
    row: str
    column: str
    rounded: float  # what carrying rounded numbers gave
    full: float  # the full-precision value


@record
class Cell:
    """One number of a step's matrix, by the step's number and the matrix's symbol."""

    step: int  # Step.number
    matrix: str
    row: str
    column: str


@record
class StepError:
    """How far a step computed in a low precision lands from the same step in float64."""

    step: int
    largest: float  # the largest absolute error
    at: Cell
    relative: float | None = None  # the largest relative error, where float64's number is not 0
    relative_at: Cell | None = None


@record
class Finding:
    """A cell that overflowed (inf), underflowed (0) or became NaN where float64 did not."""

    kind: Literal["overflow", "underflow", "nan"]
    at: Cell
    full: float  # float64's value


@record
class Verdict:
    """Softmax without a safeguard, for one head: where e^x overflows, a row where every e^x
    underflows to 0, or the largest e^x, which stays finite."""

    head: int | None
    without: Literal["max_subtraction", "scale_and_max_subtraction"]
    outcome: Literal["overflow", "underflow", "finite"]
    at: Cell  # the largest score the query sees (for underflow: of the row that underflows)
    x: float
    exp: float  # e^x in the format: inf, 0 or finite
    count: int = 0  # overflow: how many cells overflow


@record
class LowPrecisionReport:
    """What a dtype below float64 did: the errors of each step, every finding, the verdicts."""

    dtype: str
    errors: tuple[StepError, ...]
    findings: tuple[Finding, ...]
    verdicts: tuple[Verdict, ...]


@record
class Walkthrough:
    header: Header
    steps: tuple[Step, ...]
    heads: tuple[HeadResult, ...]
    output: Matrix
    precision: int = 2
    decimal: Literal["dot", "comma"] = "dot"  # the spec's display.decimal
    notes: tuple[Msg, ...] = field(default=())
    round_intermediates: bool = False  # every intermediate was carried rounded to `precision`
    reading: tuple[Reading, ...] = ()
    drift: tuple[Drift, ...] | None = None  # hand calculation only: where it differs from full
    low_precision: LowPrecisionReport | None = None  # a dtype below float64 only
    # how the spec asks to be written (display.header, display.md_flavor); render's options win
    header_shown: bool = True
    md_flavor: str = "github"
    # the language(s) `render` writes when none is given, and a notebook shows ("pl", "pl,en")
    lang: str = "en"
    # how many steps the whole walkthrough has, of which --steps and --head keep some, each with
    # its number in the whole (0: as many as `steps`)
    steps_in_all: int = 0

    # --- for notebooks and NumPy users ---
    # How a walkthrough shows itself in Jupyter and IPython is the renderers' to say: the view
    # attncli/render/notebook.py installs here when attncli's API is first used. The model knows
    # no renderer; without a view a notebook shows the repr.
    view: ClassVar[NotebookView | None] = None

    def matrix(self, name: str) -> Matrix:
        """The matrix shown as `name`: `"A"` (the weights), `"S′ + M"` or `"S' + M"`, `"W_Q"`,
        `"A:2"` for head 2's; UsageError naming the ones there are when there is none."""
        if not isinstance(name, str):  # w[0], w[::2]: a matrix is named, not numbered
            raise UsageError(Msg.of("a matrix is named by its symbol, such as {example}; found "
                                    "{found}", example='w["A"]', found=shown(repr(name))))
        return pick(self, name)

    def __getitem__(self, name: str) -> Array:
        """The numbers of `matrix(name)` as a new float64 array (rows, columns): `w["A"]`.
        A key the mask hides is -inf in the scores and 0 in the weights."""
        return self.matrix(name).whole().copy()

    def __repr__(self) -> str:
        """What it is, in one line, in English as Python's reprs are
        (`<Walkthrough: 3 tokens, 1 head, 8 steps>`)."""

        def count(n: int, word: str) -> str:
            return f"{n} {word}" + ("" if n == 1 else "s")

        return (f"<Walkthrough: {count(self.header.n_queries, 'token')}, "
                f"{count(self.header.n_heads, 'head')}, {count(len(self.steps), 'step')}>")

    def _repr_markdown_(self) -> str | None:
        return None if Walkthrough.view is None else Walkthrough.view.markdown(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self) if Walkthrough.view is None else Walkthrough.view.text(self))


class NotebookView(Protocol):
    """What a notebook shows of a walkthrough: text/markdown, and text/plain for IPython."""

    def markdown(self, walkthrough: Walkthrough) -> str: ...

    def text(self, walkthrough: Walkthrough) -> str: ...


# --- one matrix by its symbol as shown, for `--matrix` and `w.matrix(...)`: typed forms are
# forgiving (spaces ignored, ' for ′, R_1 or R1 for R₁), and `A:2` is head 2's ---

# The longest name `pick` reads: a symbol is a few characters, and a head may be written with
# thousands of leading zeros (`A:000…01` is head 1); a key of ten million characters took 1.5 s
# and 140 MB to be compared with each symbol
LONGEST_NAME = 10_000
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def key(symbol: str) -> str:
    """The symbol as compared: no spaces, ASCII prime, subscript digits as digits, no `_`
    before a digit (`R₁`, `R_1` and `R1` are one matrix; `W_Q` stays `W_Q`)."""
    text = "".join(symbol.split()).replace("'", "′").translate(SUBSCRIPTS)
    return "".join(ch for i, ch in enumerate(text)
                   if not (ch == "_" and text[i + 1:i + 2].isdigit()))


def named(walkthrough: Walkthrough) -> list[tuple[str, int | None, Matrix, str]]:
    """(symbol, head, matrix, step id) of every matrix shown, in order."""
    return [(matrix.symbol.text, step.head, matrix, step.id)
            for step in walkthrough.steps for matrix in step.matrices]


def pick(walkthrough: Walkthrough, written: str) -> Matrix:
    """The matrix `written` names (`SYMBOL` or `SYMBOL:HEAD`); UsageError naming the symbols the
    walkthrough has when there is none, or when the name fits several."""
    if len(written) > LONGEST_NAME:  # no symbol is this long: refused before it is read
        raise UsageError(Msg.of("no matrix {found} here; this walkthrough has {known}",
                                found=written, known=known(named(walkthrough))))
    symbol, colon, head_text = written.rpartition(":") if ":" in written else (written, "", "")
    head: int | None = None
    if colon:
        if not head_text.strip().isdecimal():  # ² and ① are digits int() refuses
            raise UsageError(Msg.of("expected SYMBOL or SYMBOL:HEAD such as A:2, found {found}",
                                    found=written))
        digits = head_text.strip().lstrip("0") or "0"  # 000…01 (5,000 zeros) is head 1
        head = int(digits) if len(digits) <= 18 else -1  # no such head, named as written
    everything = named(walkthrough)
    wanted = key(symbol)
    keys = {text: key(text) for text in dict.fromkeys(entry[0] for entry in everything)}
    same = [entry for entry in everything if keys[entry[0]] == wanted]
    if not same:
        raise UsageError(Msg.of("no matrix {found} here; this walkthrough has {known}",
                                found=written, known=known(everything)))
    if head is None:
        found = [entry for entry in same if entry[1] is None]
        if not found:  # a head's matrix, asked for without its head
            raise UsageError(Msg.of("{symbol} is one per head; add the head, as in {example}",
                                    symbol=same[0][0], example=f"{same[0][0]}:{same[0][1]}"))
    else:
        only = len(walkthrough.heads) == 1  # its steps carry no head: A:1 is A
        found = [entry for entry in same if entry[1] == head or (only and head == 1)]
        if not found:
            heads = sorted({entry[1] for entry in same if entry[1] is not None})
            raise UsageError(Msg.of("{symbol} has no head {head}; the spec has one head",
                                    symbol=same[0][0], head=shown(digits))
                             if only else
                             Msg.of("no matrix {found} here; this walkthrough has {known}",
                                    found=written, known=known(everything))
                             if not heads else
                             Msg.of("{symbol} has no head {head}; it is in heads {heads}",
                                    symbol=same[0][0], head=shown(digits),
                                    heads=", ".join(map(str, heads))))
    if len(found) > 1:
        raise UsageError(Msg.of("{symbol} is in several steps ({steps}); keep one with --steps",
                                symbol=found[0][0], steps=", ".join(e[3] for e in found)))
    return found[0][2]


def has(walkthrough: Walkthrough, written: str) -> bool:
    """Whether a matrix of `walkthrough` has the symbol `written` names (`SYMBOL:HEAD`'s
    SYMBOL), in any head."""
    symbol = written.rpartition(":")[0] if ":" in written else written
    wanted = key(symbol)
    return any(key(entry[0]) == wanted for entry in named(walkthrough))


def known(everything: list[tuple[str, int | None, Matrix, str]]) -> str:
    """`X, W_Q, W_K, W_V, Q, K, V, S, A, Z` with `A:1`, `A:2` for each head's."""
    names = list(dict.fromkeys(symbol if head is None else f"{symbol}:{head}"
                               for symbol, head, _, _ in everything))
    if len(names) > LISTED:  # a sentence shows the first few and the last (i18n/quoting.py)
        names = [*names[:LISTED - 1], names[-1]]
    return ", ".join(names)


# More names than a refusal's sentence shows of its list: its first ones, an ellipsis, its last
LISTED = 1000

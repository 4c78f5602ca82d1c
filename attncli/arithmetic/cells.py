"""What every writer of written-out cells shares: formulas that name tokens (`q_chases`,
`S[chases, mouse]`), as text and LaTeX, and the context of one head a writer reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

from attncli.arithmetic.exactness import line
from attncli.arithmetic.handcalc import Arithmetic
from attncli.arithmetic.selection import Cell
from attncli.model import Array, Expansion, Expr, Formula, HeadResult, Step, Value
from attncli.model.latex_text import text_math
from attncli.records import record
from attncli.spec.model import Spec

# --- formulas with token names, as text and LaTeX ---

@lru_cache(maxsize=1 << 14)  # every written-out cell names two tokens
def token_latex(token: str) -> str:
    """A token name inside math, escaped by the one LaTeX escaping table (model/latex_text.py), so a
    token such as `\\input{x}` stays text."""
    return text_math(token)


def named(letter: str, token: str) -> Formula:
    """`q_chases`."""
    return Formula(f"{letter}_{token}", f"{letter}_{{{token_latex(token)}}}")


def cell(symbol: Formula, row: str, column: str) -> Formula:
    """`S[chases, mouse]`."""
    return Formula(f"{symbol.text}[{row}, {column}]",
                   f"{symbol.latex}[{token_latex(row)}, {token_latex(column)}]")


def joined(*parts: Formula | str) -> Formula:
    """Formulas and plain operators side by side: joined(q, "·", k)."""
    text = "".join(p if isinstance(p, str) else p.text for p in parts)
    latex = "".join({"·": r" \cdot ", " / ": " / ", " + ": " + "}.get(p, p) if isinstance(p, str)
                    else p.latex for p in parts)
    held = (d for p in parts if not isinstance(p, str) for d in p.decimals)
    return Formula(text, latex, None, tuple(dict.fromkeys(held)))


@record
class Context:
    """What the writers of one head need besides the step itself."""

    spec: Spec
    head: HeadResult
    steps: dict[str, Step]  # the steps of this head, by id
    precision: int
    calc: Arithmetic  # how the walkthrough was computed
    carry: Callable[[float], float]  # identity, or rounding to the display precision
    # a softmax row named by some of its cells writes those cells' terms alone (Selection)
    terms_shown: bool = False

    def line(self, target: Formula | None, symbolic: Formula | None, expr: Expr,
             result: Value) -> Expansion:
        return line(target, symbolic, expr, result, self.precision)

    def projected(self) -> dict[str, Array]:
        """The rows each projection is made from: Q (n, d) from the queries' inputs, K and V
        (m, d) from the keys' (a layer's own, or the embeddings)."""
        x = self.head.query_inputs if self.head.query_inputs is not None \
            else self.spec.queries.embeddings
        x_kv = self.head.key_inputs if self.head.key_inputs is not None \
            else self.spec.keys_source.embeddings
        return {"Q": x, "K": x_kv, "V": x_kv}

    def heads_side_by_side(self) -> Array:
        """Z (n, h·d_v), the row the output projection multiplies by W_O."""
        return self.steps["concat"].matrices[0].values if "concat" in self.steps else \
            self.head.context.values


# step id -> what writes its cells out (attncli/arithmetic/expand.py holds the table)
Writer = Callable[[Context, Step, Sequence[Cell]], Iterator[Expansion]]

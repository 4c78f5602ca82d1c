"""A formula's plain text as Typst math (`$S' = S \\/ sqrt(d_k)$`), read by
render/formula_tree.py. A name of several letters is upright text (`"softmax"`), an accent a
function (`hat(Q)`), and every operator is written so Typst reads it as itself: `/` would be a
fraction, so it is `\\/`; a character Typst has no name for is quoted text."""

from __future__ import annotations

from attncli.render.formula_tree import PRIMES, Leaf, Node, Root, Script, formulas

ACCENTS = {"\u0302": "hat", "\u0303": "tilde"}
OPERATORS = {
    "/": "\\/", "·": "dot.op", "−": "-", "=": "=", "+": "+", "(": "(", ")": ")", ",": ",",
    ":": ":", "|": "|", "⊙": "⊙", "≤": "≤", "→": "→", "…": "…", "Σ": "sum", "∂": "∂",
    "≈": "≈", "′": "'", "[": "[", "]": "]", "×": "×",
}


def quoted(text: str) -> str:
    """Typst string (and math text) literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# A display of several formulas (`Q = X·W_Q,  K = …`) longer than this many characters stacks
# them, one a line: a display formula does not break, and a fragment's page may be 345pt wide.
STACK_PAST = 40


def math(text: str, display: bool = False, unit: str | None = None) -> str:
    """`text` as Typst math; `unit`, after it, upright text (`2 thin "Б"`)."""
    apart = ", \\ " if display and len(text) > STACK_PAST else ", quad "
    inner = apart.join(node(f) for f in formulas(text))
    if unit is not None:
        inner += " thin " + quoted(unit)
    return f"$ {inner} $" if display else f"${inner}$"


def node(n: Node) -> str:
    if isinstance(n, Leaf):
        return leaf(n)
    if isinstance(n, Script):
        if n.kind == "sup" and isinstance(n.script, Leaf) and n.script.text in PRIMES:
            return node(n.base) + "'" * PRIMES[n.script.text]
        mark = "_" if n.kind == "sub" else "^"
        script = n.script
        if isinstance(script, Leaf) and script.kind == "name" and script.text in ("ij", "T"):
            # aᵢⱼ: two indices, italic; Kᵀ: the transpose's upright T, as MathML draws it
            inner = " ".join(script.text) if script.text == "ij" else '"T"'
            return f"{node(n.base)}{mark}({inner})"
        return f"{node(n.base)}{mark}({node(script)})"
    if isinstance(n, Root):
        return f"sqrt({node(n.radicand)})"
    return " ".join(node(item) for item in n.items)


def leaf(n: Leaf) -> str:
    text = n.text
    if n.kind == "number":
        # a decimal comma: `1\,41` and `1,41` both print "1, 41" in Typst math; a string is
        # set in the same upright digits, with no space
        return quoted(text) if "," in text else text
    if n.kind == "operator":
        return OPERATORS.get(text, quoted(text))
    if len(text) == 2 and text[1] in ACCENTS and text[0].isalpha():
        return f"{ACCENTS[text[1]]}({leaf(Leaf('name', text[0]))})"
    if len(text) == 1 and text.isascii():
        return text
    if len(text) == 1:  # a Greek letter: Typst reads it as a variable of one letter
        return text
    return quoted(text)

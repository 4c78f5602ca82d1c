"""A formula's plain text as MathML, which Chromium, Firefox and Safari draw natively: the HTML
export needs no math engine. The text is read by render/formula_tree.py; every character is
escaped here."""

from __future__ import annotations

from html import escape

from attncli.render.formula_tree import Leaf, Node, Root, Script, formulas

TAGS = {"name": "mi", "number": "mn", "operator": "mo"}


def math(text: str, display: bool = False, label: str | None = None,
         unit: str | None = None) -> str:
    """`<math>` for `text`; `label`, when given, is what a screen reader says (the text);
    `unit`, after it, upright (`2 B`, in Russian `2 Б`)."""
    shown = ('<math display="block"' if display else "<math") + (
        f' aria-label="{escape(label)}"' if label else "") + ">"
    apart = '<mo separator="true">,</mo><mspace width="1.5em"/>'
    after = ('<mspace width="0.1667em"/><mi mathvariant="normal">' + escape(unit) + "</mi>"
             if unit is not None else "")
    return shown + apart.join(node(f) for f in formulas(text)) + after + "</math>"


def node(n: Node) -> str:
    if isinstance(n, Leaf):
        tag = TAGS[n.kind]
        upright = ' mathvariant="normal"' if n.kind == "name" and n.text == "T" else ""
        return f"<{tag}{upright}>{escape(n.text)}</{tag}>"
    if isinstance(n, Script):
        tag = "msub" if n.kind == "sub" else "msup"
        return f"<{tag}>{node(n.base)}{node(n.script)}</{tag}>"
    if isinstance(n, Root):
        return f"<msqrt>{node(n.radicand)}</msqrt>"
    return "<mrow>" + "".join(node(item) for item in n.items) + "</mrow>"

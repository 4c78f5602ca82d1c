"""Every spec key as a Markdown reference page (docs/reference.md), written from the JSON Schema
(attncli/spec/schema.json), so the documentation lists exactly the keys the schema and the parser
know, with the schema's own words.

    python -m attncli.spec.schema_doc            # rewrite docs/reference.md
    python -m attncli.spec.schema_doc --check    # exit 1 if it is stale (the tests do this too)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from attncli.spec.schema import schema

Node = dict[str, Any]
PAGE = Path("docs") / "reference.md"
HEADER = """# Every spec key

Generated from the JSON Schema that `attn schema` prints (`python -m attncli.spec.schema_doc`
rewrites this page; the tests fail when it is stale). `attn validate` knows more than the schema
can say: that shapes agree, that a causal mask needs as many queries as keys. The
[spec format](spec.md) explains the keys with examples.
"""


def prose(text: str) -> str:
    """Schema text as Markdown text: `<pad>` stays text, not an HTML tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def cell(text: str) -> str:
    """Text safe in a Markdown table cell, on GitHub and in MkDocs alike."""
    return prose(text).replace("|", "\\|")


def code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"`{text}`"


def kind(node: Node) -> str:
    """What a value may be, in a few words: `causal`, integer ≥ 1, [matrix](#matrix) ..."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        return ("like `tokens`" if node["$ref"] == "#/properties/tokens"
                else f"[{name}](#{name.lower()})")
    if "const" in node:
        return code(node["const"])
    if "enum" in node:
        return ", ".join(code(v) for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return alternatives(node[key])
    if "if" in node:
        return f"{kind(node['then'])} or {kind(node['else'])}"
    types = node.get("type")
    if types == "object" and node.get("required"):
        return "{" + ", ".join(node["required"]) + ": …}"
    if types == "array":
        return f"list of {kind(node.get('items', {}))}"
    if isinstance(types, list):
        return " or ".join(types)
    bound = " ≥ {}".format(node["minimum"]) if "minimum" in node else ""
    bound += " > {}".format(node["exclusiveMinimum"]) if "exclusiveMinimum" in node else ""
    return f"{types or 'any'}{bound}"


def alternatives(nodes: list[Node]) -> str:
    """`a` or `b`; an alternative that is a list of another is said once: one or a list of."""
    kinds = [kind(node) for node in nodes]
    lists = {kind(node["items"]) for node in nodes
             if node.get("type") == "array" and isinstance(node.get("items"), dict)}
    said = [k if k not in lists else f"one or a list of {k}" for k in kinds
            if not (k.startswith("list of ") and k[len("list of "):] in kinds)]
    return " or ".join(said)


def keys(node: Node, path: str) -> Iterator[tuple[str, Node]]:
    """(dotted key, its node) of every key under `node`, also inside alternatives, in order."""
    for name, child in node.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        yield here, child
        yield from keys(child, here)
    alternatives = [*node.get("oneOf", []), *node.get("anyOf", [])]
    alternatives += [node[key] for key in ("then", "else") if key in node]
    for alternative in alternatives:
        yield from keys(alternative, path)
    if isinstance(node.get("items"), dict):
        yield from keys(node["items"], f"{path}[]")


def table(node: Node, path: str = "") -> list[str]:
    required = set(node.get("required", []))
    lines = ["| key | value | default | meaning |", "|---|---|---|---|"]
    for name, child in keys(node, path):
        default = code(child["default"]) if "default" in child else (
            "required" if name in required else "")
        lines.append(f"| `{name}` | {cell(kind(child))} | {cell(default)} | "
                     f"{cell(child.get('description', ''))} |")
    return lines


def reference() -> str:
    spec = schema()
    out = [HEADER, "## The spec", "", prose(spec["description"]), "", *table(spec), "",
           "## Shared forms", "", "Values that several keys take, linked from the tables above.",
           ""]
    for name, node in spec["$defs"].items():
        out += [f"### {name}", ""]
        if "description" in node:
            out += [prose(node["description"]), ""]
        out += [f"A value: {prose(kind(node))}.", ""]
        described = [a for a in node.get("oneOf", node.get("else", {}).get("oneOf", []))
                     if "description" in a]
        out += [f"- {prose(kind(a))}: {prose(a['description'])}" for a in described]
        out += [""] if described else []
        if any(True for _ in keys(node, "")):
            out += [*table(node), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    text = reference()
    if "--check" in argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is stale; run: python -m attncli.spec.schema_doc", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The specs of the conformance matrix (tests/test_conformance.py): every bundled example, and
variants whose token names are hostile to some format (TeX and Markdown specials, a repeated
token, Cyrillic, 40-character names, names whose lines begin with `[` or `*`) with many columns,
several heads and the backward pass on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))

# Names that mean something to TeX, Markdown, HTML or a terminal; `the` twice (labelled the₁ and
# the₂), Cyrillic, and private-use characters (U+E000 7 U+E001, U+E010) that a renderer must
# not take for marks of its own (attncli/render/marks.py): they print as written.
HOSTILE = ["the", "50%", "the", "a_b", "x&y", "#1", "$5", "\\x", "{z}", "кот",
           "b\ue0007\ue001", "z\ue010"]
# Long names are shown in lines; a line that begins with `[` or `*` (`[1] more`) must stay text
# where TeX breaks lines with `\\`, which takes `[…]` and `*` after it as its own arguments.
LONG = ["internationalization_and_localization_A", "переобученная_нейронная_сеть_с_вниманием",
        "{braces}_$dollars$_%percent%_&amp;_#hash#", "some words here [1] more",
        "other words here *x* more"]


def _embeddings(n: int, d: int) -> list[list[float]]:
    """A fixed, varied n x d matrix (no seed: the numbers are the spec's own)."""
    return [[round(((i * 7 + j * 3) % 11) / 5.0 - 1.0, 2) for j in range(d)] for i in range(n)]


def _spec(title: str, tokens: list[str], d: int, **more: object) -> str:
    spec = {"title": title, "tokens": tokens, "embeddings": _embeddings(len(tokens), d),
            "mask": "causal", "backward": {"dO": "ones"}, **more}
    return json.dumps(spec, ensure_ascii=False)


@dataclass(frozen=True)
class Case:
    name: str
    path: Path | None = None  # a bundled example
    text: str | None = None  # a variant, as JSON

    def source(self) -> str:
        if self.path is not None:
            return self.path.read_text(encoding="utf-8")
        assert self.text is not None
        return self.text


VARIANTS = [
    # twelve hostile names: twelve columns of scores; d_model 8: eight columns of embeddings
    Case("hostile_names", text=_spec("Hostile 50% {names} & #1 $5 \\x", HOSTILE, 8)),
    # 40-character names, four heads with W_O, RoPE: the widest labels
    Case("long_names_four_heads", text=_spec(
        "Forty-character names", LONG, 8, heads=4, positional="rope",
        weights={"W_O": [[1.0 if i == j else 0.0 for j in range(8)] for i in range(8)]})),
    # online softmax in tiles, with the hostile names
    Case("hostile_tiles", text=_spec("Tiles of hostile names", HOSTILE[:6], 4,
                                     tiling={"queries": 2, "keys": 2})),
]

CASES = [Case(p.stem, path=p) for p in EXAMPLES] + VARIANTS

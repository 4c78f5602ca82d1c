"""Token names of 30 to 60 characters in the two places that named a cell in one unbreakable
piece of inline math: the soft-capping's note (`The cap bends S′[name, name] most`) and the
RMSNorm's written-out lines (`Q̃[name, d1] = Q[name, d1] / RMS(q_name) = …`, MLA's latent
`C̃_KV` alike). LaTeX and Beamer break them after the cell's comma and the quotient's `/` (or
set them smaller) as they do every other written-out line: pdflatex's log has no overfull box,
in en, pl and ru. Markdown cuts the note's cell into pieces a page wraps between, as it cuts a
written-out line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from attncli.i18n import Symbol
from attncli.model.latex_text import text_math
from attncli.render import render
from attncli.render.latex_lines import breakable_cell
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.test_latex_pages import ROOT, overfull, pdflatex

FEATURES = {"softcap": {"softcap": 1.0}, "qk_norm": {"qk_norm": "head"}}
# each length in a language of its own: every language meets both features
LENGTHS = [(30, "en"), (40, "pl"), (60, "ru")]


def spec(folder: Path, length: int, feature: str) -> Path:
    path = folder / f"{feature}{length}.json"
    path.write_text(json.dumps({
        "tokens": [letter * length for letter in "abc"],
        "embeddings": [[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]], "mask": "causal",
        **FEATURES[feature]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("feature", sorted(FEATURES))
@pytest.mark.parametrize(("length", "lang"), LENGTHS)
def test_long_names_in_the_cap_note_and_the_rms_lines_fit(feature: str, length: int, lang: str,
                                                          tmp_path: Path) -> None:
    """At 30 characters the note overflowed an article's line by 7.8 pt and the RMS lines a
    4:3 slide's by 60 pt; at 40, 119 pt (note) and 75 pt (RMS lines); at 60, 123 pt and
    157 pt."""
    walkthrough = build(load_spec(str(spec(tmp_path, length, feature))))
    doc = render(walkthrough, "latex", lang, standalone=True)
    deck = render(walkthrough, "beamer", lang, aspect="43")  # the narrower slide
    for name, source in (("doc", doc), ("deck", deck)):
        log = pdflatex(source, tmp_path, name)
        assert overfull(log) == [], (name, overfull(log)[:3])
    b = text_math("b" * length)  # at 60 letters, shortened to b…b (shown_name)
    if feature == "softcap":  # S′[b…, b…], the score the cap moves most
        assert f"$S'[{b},\\allowbreak {b}]$" in doc
    elif length > 30:  # two names side by side break after `/` (30: set smaller, whole)
        assert r"\text{d1}] /\allowbreak \operatorname{RMS}(q_{" in doc


def test_the_latent_rms_line_of_mla_fits(tmp_path: Path) -> None:
    """MLA's latent RMSNorm line, C̃_KV[name, d1] = C_KV[name, d1] / RMS(C_KV[name, :]), with
    41-character names: 218.5 pt too wide."""
    config = yaml.safe_load((ROOT / "configs" / "mla_deepseek.yaml").read_text(encoding="utf-8"))
    config["tokens"] = ["w" * 40 + str(i) for i in range(len(config["tokens"]))]
    path = tmp_path / "mla.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    log = pdflatex(render(build(load_spec(str(path))), "latex", "en", standalone=True),
                   tmp_path)
    assert overfull(log) == [], overfull(log)[:3]


def test_a_cell_of_short_names_stays_one_piece() -> None:
    """Only a cell wider than the line (with 1.2 to spare, as written-out lines) may break:
    `S′[cat, mouse]` is one group, as before, and so are two names of 20 `b` (111 pt each);
    two of 30 (167 pt each) overflowed an article's line by 7.8 pt."""
    short = Symbol("S′[cat, mouse]", r"S'[\text{cat}, \text{mouse}]")
    assert breakable_cell(short, 332.0).latex == short.latex
    names = "b" * 20
    fits = Symbol(f"S′[{names}, {names}]", rf"S'[\text{{{names}}}, \text{{{names}}}]")
    assert breakable_cell(fits, 332.0).latex == fits.latex
    longer = "b" * 30
    wide = Symbol(f"S′[{longer}, {longer}]", rf"S'[\text{{{longer}}}, \text{{{longer}}}]")
    broken = rf"S'[\text{{{longer}}},\allowbreak \text{{{longer}}}]"
    assert breakable_cell(wide, 332.0).latex == broken
    assert breakable_cell(wide, 332.0) == wide  # its text, for every other format, as it was


def test_markdown_cuts_the_cap_note_after_its_comma(tmp_path: Path) -> None:
    """The note's cell of two 40-letter names is about 45 em of math, the narrowest page 28.9
    (render/md_measure.py): two pieces, each within a line. The score: x_b = [0.20, 1.00], so
    S′[b, b] = (0.20² + 1.00²) / √2 = 0.74, capped 1·tanh(0.74) = 0.63."""
    walkthrough = build(load_spec(str(spec(tmp_path, 40, "softcap"))))
    b = r"\text{" + "b" * 40 + "}"
    note = f"The cap bends $`S'[{b},{{}}`$ $`{b}]`$ most: from 0.74 to 0.63."
    assert note in render(walkthrough, "markdown", "en").splitlines()
    short = build(load_spec(str(spec(tmp_path, 5, "softcap"))))
    assert r"The cap bends $`S'[\text{bbbbb}, \text{bbbbb}]`$ most" in render(
        short, "markdown", "en")

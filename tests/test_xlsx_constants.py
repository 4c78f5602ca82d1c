"""A spec's constant at the edge of the doubles, in the formulas of attn export --xlsx: a
subnormal eps, sink, scale, cap or MoE alpha/limit was written as it is (=MAX(…,1e-320)), and
LibreOffice refused the formula (Err:502) in every later cell; gelu_tanh of a tiny input was
#NUM! (its x^3 underflowed), and so was LayerNorm's σ of a row whose entries differ by 10⁻²⁰⁰,
e^(x − max) of a score bias of −1e308 under one of 1e308, the router's P beside a router bias
of −1e308, a decode step's weights of scores ±1e308, and σ(α·G) of an α of
1.7976931348623157e308.
Each workbook is recalculated by LibreOffice and read against attn's JSON, cell by cell."""

from __future__ import annotations

import math
import re
from pathlib import Path

import openpyxl
import pytest

from attncli.render.xlsx.cells import literal
from attncli.spec import load_spec
from tests.spreadsheet import recalculated
from tests.test_xlsx import compare, export, layout, need_soffice, the_json

BASE = "tokens: [a, b, c]\n"
EMBEDDINGS = "embeddings: [[1, 0, 0.5, 0.2], [0, 1, 0.3, 0.1], [0.5, 0.5, 1, 0]]\n"
IDENTITY = "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]"
MOE = ("block: {moe: {router: {W: [[1, 0], [0, 1], [1, 1], [0, 0]]}, top_k: 1, %s, experts: "
       f"[{{W_1: {IDENTITY}, W_3: {IDENTITY}, W_2: {IDENTITY}}}, "
       f"{{W_1: {IDENTITY}, W_3: {IDENTITY}, W_2: {IDENTITY}}}]}}}}")
ROUTED = ("block: {moe: {router: {W: [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], "
          "b: [1.0e308, 1.0e308, -1.0e308]}, top_k: 2, experts: "
          f"[{{W_1: {IDENTITY}, W_3: {IDENTITY}, W_2: {IDENTITY}}}, "
          f"{{W_1: {IDENTITY}, W_3: {IDENTITY}, W_2: {IDENTITY}}}, "
          f"{{W_1: {IDENTITY}, W_3: {IDENTITY}, W_2: {IDENTITY}}}]}}}}")

# each a spec of the adversarial round (issue #28), and the cells LibreOffice had in error
CONSTANTS = {
    "sink_subnormal": "sinks: [1e-320]",  # the Head sheet's weights and Z: 18 cells
    "sink_smallest": "sinks: [5e-324]",  # 39
    "sink_largest": "sinks: [1.7976931348623157e308]",  # Excel reads no number from 1e308 on
    "layer_norm_eps": "block: {layer_norm: {eps: 1e-320}}",  # σ and every later cell: 6
    "rms_norm_eps": "block: {rms_norm: {eps: 1e-320}}",  # 15
    "qk_norm_eps": "qk_norm: {over: head, eps: 1e-320}",  # 51
    "moe_alpha": MOE % "alpha: 1e-320",  # 48
    "moe_limit": MOE % "limit: 1e-320",  # 72
    "scale": "scale: 2.2e-308",  # 12: just under the smallest normal double
    "softcap": "softcap: 5e-324",  # 12: S′ / c overflowed where NumPy's tanh(inf) is 1
    # σ(α·G) of a G of −3: 0.5·α·G overflowed, where NumPy's tanh(−inf) is −1 (10 cells)
    "moe_alpha_largest": "embeddings: [[1, -3, 0.5, 0.2], [0, 1, -3, 0.1], [0.5, 0.5, 1, 0]]\n"
                         + MOE % "alpha: 1.7976931348623157e308, limit: 1.7976931348623157e308",
    # e^(x − max) of −1e308 − 1e308 overflowed, where NumPy's e^(−inf) is 0: Σ, A and Z (27)
    "bias_largest": "bias: [[0.0, -1.0e308, 1.0e308], [1.0e308, 0.0, -1.0e308], "
                    "[-1.0e308, 1.0e308, 0.0]]",
    # the router's sum took e^(L − max) of the unrouted expert too; P is [0.5, 0.5, 0]
    "router_bias_largest": ROUTED,
    # a router of zero weights ties every logit: attn routes each token to the first two of
    # the three experts (its stable order), 0.5 each; the sheet gave every one of them 1/3
    "router_tied": ROUTED.replace("[[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]]",
                                  "[[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]")
                         .replace("b: [1.0e308, 1.0e308, -1.0e308]", "b: [0, 0, 0]"),
    # a's logits 0.3 and 0.1 + 0.2 = 0.30000000000000004: attn routes a to expert 2, one ulp
    # ahead; the sheet compared them to 15 digits, chose expert 1, and F[a] was 0
    "router_one_ulp": "embeddings: [[0.1, 0.2, 0.3, 0], [0.3, 0.2, 0.1, 0], [0, 0, 1, 0]]\n"
                      "weights: {W_V: [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}\n"
                      + MOE.replace("[[1, 0], [0, 1], [1, 1], [0, 0]]",
                                    "[[0, 1], [0, 1], [1, 0], [0, 0]]") % "limit: 7.0",
    # a given bias of the largest double was stored with 16 digits, 1.797693134862316E+308,
    # which LibreOffice reads as infinite: L, P and every later cell #NUM! (39 cells)
    "router_bias_given_largest": ROUTED.replace(
        "b: [1.0e308, 1.0e308, -1.0e308]",
        "b: [1.7976931348623157e308, -1.7976931348623157e308, 0.0]"),
    # a decode step's scores 1e308, −1e308, 1e308: its weights a₃ and z₃ were #NUM!
    "decode_scores_largest": "embeddings: [[1e154, 0], [-1e154, 0], [1e154, 0]]\nscale: 1\n"
                             "mask: causal\ndecode: {prefill: 2}",
    # not a constant: a row whose entries differ by 10⁻²⁰⁰, (x − μ)^2 underflowed (#NUM!)
    "layer_norm_tiny_row": "block: {norm: pre, layer_norm: {}}\n"
                           "embeddings: [[1e-200, 0, 3e-200, 2e-200], [0, 1, 0.3, 0.1], "
                           "[0.5, 0.5, 1, 0]]",
}
# gelu_tanh of pre-activations of 1.59×10⁻³²⁰ (case 1132) and of 10⁻²⁰⁰ beside 10²⁰⁰
TINY_GELU = {
    "gelu_subnormal": "block: {ffn: {W_1: [[1e-320, 0], [0, 1], [0, 0], [0, 0]], "
                      "W_2: [[1, 0, 0, 0], [0, 1, 0, 0]], activation: gelu_tanh}}",
    "gelu_tiny": "block: {ffn: {W_1: [[1e-200, 1e200], [0, 1], [0, 0], [0, 0]], "
                 "W_2: [[1, 0, 0, 0], [0, 1, 0, 0]], activation: gelu_tanh}}",
}


@pytest.fixture(scope="module")
def recalculated_edges(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every spec above written by the CLI and recalculated by one run of LibreOffice."""
    need_soffice()
    folder = tmp_path_factory.mktemp("edges")
    files = []
    for name, text in (CONSTANTS | TINY_GELU).items():
        embeddings = "" if "embeddings:" in text else EMBEDDINGS
        (folder / f"{name}.yaml").write_text(BASE + embeddings + text + "\n", encoding="utf-8")
        files.append(export(folder / f"{name}.yaml", folder / f"{name}.xlsx"))
    return {f.stem: f for f in recalculated(files, folder / "recalculated")}


@pytest.mark.parametrize("name", CONSTANTS)
def test_a_number_at_the_edge_of_the_doubles_is_computed(
        name: str, recalculated_edges: dict[str, Path]) -> None:
    out = recalculated_edges[name]
    spec = out.parent.parent / f"{name}.yaml"
    doc = the_json(spec)
    doc["sinks"] = load_spec(str(spec)).sinks  # the helper's oracle reads the sink from it
    assert compare(openpyxl.load_workbook(out, data_only=True), layout(spec), doc) > 30


@pytest.mark.parametrize("name", TINY_GELU)
def test_gelu_tanh_of_a_tiny_number_is_attns(name: str,
                                             recalculated_edges: dict[str, Path]) -> None:
    """Every cell of H as attn computes it, to 1e-12 of its size (0.5·x for a tiny x, x for a
    huge one): no absolute tolerance, which would pass any number under it."""
    out = recalculated_edges[name]
    spec = out.parent.parent / f"{name}.yaml"
    doc = the_json(spec)
    expected = next(m for s in doc["steps"] if s["id"] == "ffn" for m in s["matrices"]
                    if m["name"] == "H")["values"]
    block = next(b for b in layout(spec).blocks if b.name == "H")
    sheet = openpyxl.load_workbook(out, data_only=True)[block.sheet]
    tiny = 0
    for i, row in enumerate(expected):
        for j, want in enumerate(row):
            got = sheet.cell(block.row + i + 1, block.col + j + 1).value
            assert isinstance(got, (int, float)), f"H[{i}, {j}]: LibreOffice {got!r}, attn {want}"
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=0.0), f"H[{i}, {j}]"
            tiny += 0 < abs(want) < 1e-100
    assert tiny >= 1  # the case is what it says


@pytest.mark.parametrize(("x", "written"), [
    (1e-320, "(1.8446538709477686e-301/2^64)"),
    (-5e-324, "(-9.113902524445497e-305/2^64)"),  # 2⁻¹⁰⁷⁴
    (1.7976931348623157e308, "(8.988465674311579e+307*2)"),
    (-1e308, "(-5e+307*2)"),
    (2.2250738585072014e-308, "2.2250738585072014e-308"),  # the smallest normal: as it is
    (9e307, "9e+307"),
    (0.0, "0.0"),
])
def test_a_literal_is_a_number_a_spreadsheet_reads_and_the_same_double(x: float,
                                                                       written: str) -> None:
    assert literal(x) == written
    scaled = re.fullmatch(r"\((\S+)(/2\^64|\*2)\)", written)
    number = float(scaled.group(1) if scaled else written)
    assert number == 0 or 2.0**-1022 <= abs(number) < 1e308
    by = {None: 1.0, "/2^64": 2.0**-64, "*2": 2.0}[scaled.group(2) if scaled else None]
    assert number * by == x  # exact: a power of two


def test_a_given_number_is_stored_with_every_digit_it_has(tmp_path: Path) -> None:
    """XlsxWriter stores 16 significant digits: 0.30000000000000004 was 0.3 in the sheet's XML,
    one ulp from attn's, and the largest double was rounded past it (read as infinite)."""
    import zipfile

    spec = tmp_path / "s.yaml"
    spec.write_text(BASE + "embeddings: [[0.30000000000000004, 0, 0, 0], [0, 1, 0, 0], "
                    "[0, 0, 1, 0]]\n" + CONSTANTS["router_bias_given_largest"] + "\n",
                    encoding="utf-8")
    with zipfile.ZipFile(export(spec, tmp_path / "s.xlsx")) as book:
        xml = "".join(book.read(name).decode("utf-8") for name in book.namelist()
                      if name.startswith("xl/worksheets/"))
    values = re.findall(r"<c [^>]*><v>([^<]*)</v></c>", xml)
    assert "0.30000000000000004" in values and "1.7976931348623157e+308" in values
    assert "0.3" not in values and "1.797693134862316E+308" not in values

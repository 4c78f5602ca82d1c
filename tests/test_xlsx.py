"""attn export --xlsx: the spreadsheet LibreOffice recalculates equals attn's JSON to 1e-9, in
every example; every computed cell is a formula; a hostile token is a string; an edited
embedding flows through every later step."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
import yaml
from openpyxl.worksheet.formula import ArrayFormula

from attncli.render import RenderOptions
from attncli.render.xlsx import Workbook, workbook
from attncli.render.xlsx.grid import sheet_name
from attncli.spec import load_spec
from attncli.spec.view import View
from attncli.steps.show import prepare
from tests.conftest import EXAMPLES, run
from tests.spreadsheet import recalculated, soffice

# The examples that ask for hand calculation (rounded intermediates) or a low precision, which
# --xlsx refuses: a spreadsheet computes at full precision.
# The backward pass through RoPE is refused too (its formulas would need dQ and dK turned back
# by Rᵀ): backward_llama_style asks for it in its spec.
# An image's patches and class scores are not written as formulas yet (vit_digit). No sheet writes
# multi-head latent attention yet (tests/test_latent.py checks the refusal).
REFUSED = {"cat_chases_mouse_by_hand", "low_precision_bfloat16", "low_precision_float16",
           "backward_llama_style", "vit_digit", "mla_deepseek"}
SUPPORTED = [path for path in EXAMPLES if path.stem not in REFUSED]
ROTARY = {"llama_style", "rope_half", "rope_interleaved", "rope_yarn"}
# attn refuses --backward beside softcap, qk_norm and sinks (tests/test_softcap.py,
# tests/test_qk_norm.py, tests/test_sinks.py): no gradient of the cap, the norm or the sink yet
CAPPED = {"softcap_gemma2", "qk_norm_qwen3", "sinks_gpt_oss", "gemma2_layer", "moe_gpt_oss"}
WITH_BACKWARD = [path for path in SUPPORTED if path.stem not in ROTARY | CAPPED]
HIDDEN = "−∞"


def need_soffice() -> None:
    if soffice() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("soffice is missing under CI; .ci/run installs libreoffice-calc-nogui")
        pytest.skip("LibreOffice is not installed (apt-get install libreoffice-calc-nogui)")


def export(spec: Path, out: Path, *more: str) -> Path:
    result = run("export", str(spec), "--xlsx", "-o", str(out), *more)
    assert result.exit_code == 0, result.stderr
    return out


def the_json(spec: Path, *more: str) -> Any:
    result = run("export", str(spec), "--json", "--steps", "all", "--head", "all", *more)
    assert result.exit_code == 0, result.stderr
    return result.json()


def layout(spec: Path, backward: bool = False) -> Workbook:
    """The blocks of the file `attn export --xlsx` writes, from the library."""
    shown = prepare(load_spec(str(spec)), View(steps="all", head="all", backward=backward))
    assert shown.spec is not None
    return workbook(shown.spec, shown.walkthrough, RenderOptions())


@pytest.fixture(scope="module")
def recalculated_examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every supported example written by the CLI, alone and with --backward (where attn works
    the backward pass out), then recalculated by LibreOffice at once."""
    need_soffice()
    folder = tmp_path_factory.mktemp("xlsx")
    files = [export(spec, folder / f"{spec.stem}.xlsx") for spec in SUPPORTED]
    files += [export(spec, folder / f"{spec.stem}+backward.xlsx", "--backward")
              for spec in WITH_BACKWARD]
    # the workbooks of the tests below, in the same run of LibreOffice (each run starts it anew)
    files.append(edited_layer(folder))
    for name, text in (("general", GENERAL), ("biased", BIASED_HEAD), ("huge_gelu", HUGE_GELU)):
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        files.append(export(folder / f"{name}.yaml", folder / f"{name}.xlsx"))
    out = folder / "recalculated"
    return {f.stem: f for f in recalculated(files, out)}


def close(got: Any, expected: float | None, where: str) -> None:
    if expected is None:  # a hidden score, an undefined weight
        assert got in (HIDDEN, "NaN"), f"{where}: expected −∞ or NaN, found {got!r}"
        return
    assert isinstance(got, (int, float)), f"{where}: expected {expected}, found {got!r}"
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), \
        f"{where}: LibreOffice {got!r}, attn {expected!r}"


def compare(book: openpyxl.Workbook, blocks: Workbook, doc: Any) -> int:
    """Every computed cell against the JSON (or, for a block only the sheet has, against NumPy
    on the JSON's numbers); the number of cells compared."""
    compared = 0
    for block in blocks.blocks:
        if not block.computed:
            continue
        sheet = book[block.sheet]
        got = np.empty(block.shape, dtype=object)
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                got[i, j] = sheet.cell(block.row + i + 1, block.col + j + 1).value
        step = doc["steps"][block.step]
        if block.matrix is not None:
            expected = step["matrices"][block.matrix]["values"]
        else:
            expected = helper(block.name, step, doc)
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                close(got[i, j], expected[i][j],
                      f"{block.sheet}!{block.name}[{i}, {j}] (step {step['id']})")
                compared += 1
    return compared


def helper(name: str, step: dict[str, Any], doc: Any) -> list[list[float]]:
    """A block the spreadsheet adds, worked from the JSON: the softmax's row maximum, e^(x −
    max) and row sum, or the feed-forward's pre-activation."""
    if step["id"] == "weights":
        scores = doc["heads"][(step["head"] or 1) - 1]["scores"]
        s = np.array([[-np.inf if x is None else x for x in row] for row in scores])
        finite = np.isfinite(s)
        peak = np.where(finite.any(axis=1), np.max(np.where(finite, s, -np.inf), axis=1), 0.0)
        sinks = doc.get("sinks")  # gpt-oss's sink logits, from the spec (tests/test_sinks.py)
        if sinks is not None:  # the sink joins the row's max and its sum
            sink = sinks[(step["head"] or 1) - 1]
            peak = np.where(finite.any(axis=1), np.maximum(peak, sink), sink)
        e = np.where(finite, np.exp(np.where(finite, s, 0.0) - peak[:, None]), 0.0)
        total = e.sum(axis=1) + (np.exp(sink - peak) if sinks is not None else 0.0)
        return {"max": peak[:, None], "e^(x − max)": e, "Σ": total[:, None]}[name]
    assert step["id"] == "ffn", f"no oracle for {name} of {step['id']}"
    before = doc["steps"][step["number"] - 2]["matrices"][-1]["values"]  # what the FFN reads
    matrices = {m["name"]: np.array(m["values"]) for m in step["matrices"]}
    w = matrices["W_1"] if doc["shape"]["convention"] == "row" else matrices["W_1"].T
    pre = np.array(before) @ w  # (n, d_model) @ (d_model, d_ff) -> (n, d_ff)
    return pre + matrices["b_1"][0] if "b_1" in matrices else pre


@pytest.mark.parametrize("spec", SUPPORTED, ids=lambda p: p.stem)
def test_libreoffice_recalculates_the_json(spec: Path,
                                           recalculated_examples: dict[str, Path]) -> None:
    book = openpyxl.load_workbook(recalculated_examples[spec.stem], data_only=True)
    doc = the_json(spec)
    doc["sinks"] = load_spec(str(spec)).sinks
    assert compare(book, layout(spec), doc) > 0


@pytest.mark.parametrize("spec", WITH_BACKWARD, ids=lambda p: p.stem)
def test_the_backward_pass_recalculates_the_json(
        spec: Path, recalculated_examples: dict[str, Path]) -> None:
    """The gradients too, each a formula (but those through a block's LayerNorm and FFN)."""
    book = openpyxl.load_workbook(recalculated_examples[spec.stem + "+backward"],
                                  data_only=True)
    blocks = layout(spec, backward=True)
    assert compare(book, blocks, the_json(spec, "--backward")) > 0
    doc = the_json(spec, "--backward")
    gradient_formulas = [b for b in blocks.blocks if b.computed
                         and doc["steps"][b.step]["id"].startswith("grad_")]
    assert gradient_formulas


def test_the_backward_pass_through_rope_is_refused(tmp_path: Path) -> None:
    for spec in EXAMPLES:
        if spec.stem in ROTARY:
            result = run("export", str(spec), "--xlsx", "--backward", "-o", str(tmp_path / "b"))
            assert result.exit_code == 2 and "RoPE" in result.stderr, spec.stem
            assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("spec", SUPPORTED, ids=lambda p: p.stem)
def test_every_computed_cell_is_a_formula(spec: Path, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(export(spec, tmp_path / "a.xlsx"))
    blocks = layout(spec)
    assert (tmp_path / "a.xlsx").read_bytes() == blocks.data  # the CLI writes what the library does
    for block in blocks.blocks:
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                cell = book[block.sheet].cell(block.row + i + 1, block.col + j + 1)
                formula = isinstance(cell.value, ArrayFormula) or (
                    isinstance(cell.value, str) and cell.value.startswith("="))
                assert formula == block.computed, f"{block.sheet}!{cell.coordinate} {block.name}"


DECODER_LAYER = next(p for p in EXAMPLES if p.stem == "decoder_layer")


def edited_layer(folder: Path) -> Path:
    """The decoder layer's workbook with X[chases, d2] changed to -2.5 in the file (edited.xlsx),
    and beside it the spec with that number (decoder_layer.yaml)."""
    book = openpyxl.load_workbook(export(DECODER_LAYER, folder / "layer.xlsx"))
    e = next(b for b in layout(DECODER_LAYER).blocks if b.name == "E")
    book[e.sheet].cell(e.row + 1 + 1, e.col + 1 + 1).value = -2.5  # row chases, column d2
    book.save(folder / "edited.xlsx")
    spec = yaml.safe_load(DECODER_LAYER.read_text(encoding="utf-8"))
    spec["embeddings"][1][1] = -2.5
    (folder / "decoder_layer.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True),
                                               encoding="utf-8")
    return folder / "edited.xlsx"


def test_an_edited_embedding_flows_through_every_step(
        recalculated_examples: dict[str, Path]) -> None:
    """X[chases, d2] of the decoder layer (positions, two heads, W_O, LayerNorm, FFN) changed
    in the file, recalculated: every cell equals attn's JSON of the spec with that number."""
    out = recalculated_examples["edited"]
    edited = out.parent.parent / "decoder_layer.yaml"
    before = yaml.safe_load(DECODER_LAYER.read_text(encoding="utf-8"))["embeddings"][1][1]
    doc = the_json(edited)
    assert doc["output"] != the_json(DECODER_LAYER)["output"] and before != -2.5  # it matters
    assert compare(openpyxl.load_workbook(out, data_only=True), layout(DECODER_LAYER),
                   doc) > 300


GENERAL = """\
tokens: [cat, chases, mouse, now]
embeddings: [[1, 0, 0.5], [0.2, 1, -1], [0.8, 0, 0.3], [0, 0.4, 1]]
weights: {W_Q: {random: {seed: 1}, shape: [3, 2]}, W_K: {random: {seed: 2}, shape: [3, 2]}}
score: {general: [[1.5, -0.5], [0.25, 2]]}
mask: causal
decode: {prefill: 2}
"""


def test_the_general_score_and_decoding(recalculated_examples: dict[str, Path]) -> None:
    """S = Q·W·Kᵀ as SUMPRODUCT(MMULT(qᵢ, W), kⱼ); its decode steps keep attn's values."""
    out = recalculated_examples["general"]
    spec = out.parent.parent / "general.yaml"
    blocks = layout(spec)
    doc = the_json(spec)
    assert compare(openpyxl.load_workbook(out, data_only=True), blocks, doc) > 40
    scores = [b for b in blocks.blocks if doc["steps"][b.step]["id"] == "scores"]
    assert [b.computed for b in scores] == [False, True]  # W given, S a formula
    assert all(not b.computed for b in blocks.blocks if doc["steps"][b.step]["id"] == "decode")


# gelu_tanh on pre-activations of about ±10¹²⁰ (its first two columns) and about ±1 (the
# other two): x³ overflows a spreadsheet's numbers, where NumPy's inf passes through tanh to ±1
HUGE_GELU = """\
tokens: [the, cat, sat]
embeddings: [[1.0, 0.0, 1.0, 0.0], [0.2, 1.0, 0.0, 1.0], [0.8, 0.0, 0.3, 0.5]]
mask: causal
block:
  norm: pre
  ffn:
    W_1: [[0.5e120, -0.5e120, 1.0, 0.0], [0.0, 0.5e120, -1.0, 1.0], [-0.5e120, 0.0, 0.5, -1.0],
          [1.0e120, 0.5e120, 0.0, 0.5]]
    b_1: [0.1, 0.1, 0.1, 0.1]
    W_2: [[0.5, 0.0, -0.5, 0.0], [0.0, 0.5, 0.0, -0.5], [0.5, 0.5, 0.5, 0.5], [-0.5, 0.0, 0.5, 0.0]]
    activation: gelu_tanh
"""


def test_gelu_tanh_of_a_huge_number_is_the_number_as_in_numpy(
        recalculated_examples: dict[str, Path]) -> None:
    """LibreOffice gave #NUM! for H and every later step, where attn's numbers are finite."""
    out = recalculated_examples["huge_gelu"]
    spec = out.parent.parent / "huge_gelu.yaml"
    doc = the_json(spec)
    hidden = next(m for s in doc["steps"] if s["id"] == "ffn" for m in s["matrices"]
                  if m["name"] == "H")["values"]
    assert max(abs(x) for row in hidden for x in row) > 1e119  # the case is what it says
    assert compare(openpyxl.load_workbook(out, data_only=True), layout(spec), doc) > 40


BIASED_HEAD = """\
tokens: [a, b, c]
embeddings: [[1, 0, 0.5, 0], [0.2, 1, -1, 0.5], [0.8, 0, 0.3, -0.2]]
heads:
  - {W_Q: [[1, 0], [0, 1], [1, 1], [0, 0]], b_Q: [0.5, -0.25], W_K: &k [[1, 0], [0, 1], [0, 0],
     [1, 0]], W_V: &v [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]}
  - {W_Q: [[0, 1], [1, 0], [0, 0], [1, 1]], W_K: *k, W_V: *v}
"""


def test_a_bias_of_one_head_is_not_read_by_the_next(recalculated_examples: dict[str, Path]
                                                   ) -> None:
    out = recalculated_examples["biased"]
    spec = out.parent.parent / "biased.yaml"
    assert compare(openpyxl.load_workbook(out, data_only=True), layout(spec),
                   the_json(spec)) > 50


HOSTILE = """\
tokens: ["=1+1", "+SUM(A1)", "-2", "@cmd", "=HYPERLINK(\\"http://x\\")"]
embeddings: [[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 0.5]]
mask: causal
"""


def test_a_token_that_looks_like_a_formula_is_a_string(write: Any, tmp_path: Path) -> None:
    out = export(write(HOSTILE), tmp_path / "hostile.xlsx")
    book = openpyxl.load_workbook(out)
    labels = set()
    for sheet in book:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and not cell.value.startswith("="):
                    labels.add(cell.value)
                if cell.data_type == "f" or isinstance(cell.value, ArrayFormula):
                    text = cell.value.text if isinstance(cell.value, ArrayFormula) else cell.value
                    assert "HYPERLINK" not in text and "cmd" not in text and "SUM(A1)" not in text
    # the labels are there, as text cells (openpyxl reads a string cell that starts with = as
    # data type "s", a formula as "f")
    found = {c.value: c.data_type for s in book for r in s.iter_rows() for c in r
             if c.value in ("=1+1", "+SUM(A1)", "-2", "@cmd", '=HYPERLINK("http://x")')}
    assert set(found) == {"=1+1", "+SUM(A1)", "-2", "@cmd", '=HYPERLINK("http://x")'}
    assert set(found.values()) == {"s"}


def test_the_same_spec_gives_the_same_bytes(tmp_path: Path) -> None:
    spec = next(p for p in EXAMPLES if p.stem == "two_heads")
    first = export(spec, tmp_path / "a.xlsx").read_bytes()
    os.environ["TZ"] = "Asia/Tokyo"
    try:
        second = export(spec, tmp_path / "b.xlsx").read_bytes()
    finally:
        del os.environ["TZ"]
    assert first == second


@pytest.mark.parametrize(("args", "message"), [
    ((), "--xlsx writes a binary file: name it with -o FILE.xlsx"),
    (("-o", "-"), "--xlsx writes a binary file: name it with -o FILE.xlsx"),
    (("-o", "x.xlsx", "--json"), "--xlsx writes every step of every head on its own"),
    (("-o", "x.xlsx", "--steps", "weights"), "--xlsx writes every step of every head on its own"),
])
def test_xlsx_usage(args: tuple[str, ...], message: str, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    spec = next(p for p in EXAMPLES if p.stem == "two_heads")
    monkeypatch.chdir(tmp_path)  # undone after the test: later tests read configs/ relatively
    result = run("export", str(spec), "--xlsx", *args)
    assert result.exit_code == 2 and result.stderr.startswith("attn: " + message)
    assert not (tmp_path / "x.xlsx").exists()


def test_too_large_and_hand_calculation_are_refused(write: Any, tmp_path: Path) -> None:
    tokens = ", ".join(f"t{i}" for i in range(200))
    big = write(f"tokens: [{tokens}]\nembeddings: {{random: {{seed: 1}}, shape: [200, 64]}}\n",
                "big.yaml")
    result = run("export", str(big), "--xlsx", "-o", str(tmp_path / "big.xlsx"))
    assert result.exit_code == 2 and "at most 200,000)" in result.stderr  # a count, grouped
    narrow = "{random: {seed: 2}, shape: [9000, 1]}"
    wide = write("tokens: [one]\nembeddings: {random: {seed: 1}, shape: [1, 9000]}\n"
                 f"weights: {{W_Q: {narrow}, W_K: {narrow}, W_V: {narrow}}}\n", "wide.yaml")
    result = run("export", str(wide), "--xlsx", "-o", str(tmp_path / "wide.xlsx"))
    assert result.exit_code == 2 and "at most 16,384)" in result.stderr
    # dX sums three terms a head: with 64 heads its formula outgrows Excel's 8192 characters
    weights = ", ".join(f"W_{x}: {{random: {{seed: {i}}}, shape: [64, 64]}}"
                        for i, x in enumerate("QKV"))
    many = write("tokens: [a, b]\nembeddings: {random: {seed: 1}, shape: [2, 64]}\n"
                 f"heads: 64\nweights: {{{weights}}}\n", "many.yaml")
    result = run("export", str(many), "--xlsx", "--backward", "-o", str(tmp_path / "m.xlsx"))
    assert result.exit_code == 2 and "at most 8,192)" in result.stderr
    hand = next(p for p in EXAMPLES if p.stem == "cat_chases_mouse_by_hand")
    result = run("export", str(hand), "--xlsx", "-o", str(tmp_path / "hand.xlsx"))
    assert result.exit_code == 2 and "round_intermediates" in result.stderr
    assert not list(tmp_path.glob("*.xlsx"))


@pytest.mark.parametrize(("lang", "names"), [
    ("en", ["Layer", "Head 1", "Head 2", "Cells written out"]),
    ("pl", ["Warstwa", "Głowica 1", "Głowica 2", "Rozpisane komórki"]),
    ("ru", ["Слой", "Голова 1", "Голова 2", "Расписанные ячейки"]),
])
def test_sheets_are_named_in_the_language(lang: str, names: list[str], tmp_path: Path) -> None:
    spec = next(p for p in EXAMPLES if p.stem == "two_heads")
    book = openpyxl.load_workbook(export(spec, tmp_path / "a.xlsx", "--lang", lang))
    assert book.sheetnames == names


def test_sheet_names_keep_to_excels_rules() -> None:
    taken: set[str] = set()
    assert sheet_name("a/b:c*d?e[f]g\\h", taken) == "a_b_c_d_e_f_g_h"
    long = sheet_name("x" * 40, taken)
    assert long == "x" * 31
    assert sheet_name("X" * 40, taken) == "X" * 27 + " (2)"  # Excel compares names caselessly
    assert sheet_name("'quoted'", taken) == "quoted"


def test_no_control_character_reaches_a_cell(write: Any, tmp_path: Path) -> None:
    """A bell or a right-to-left override in a token is written as its escape, as in every
    other format (attncli/i18n/visible.py)."""
    spec = write('tokens: ["a\\u0007b", "c\\u202ed"]\nembeddings: [[1, 0], [0, 1]]\n')
    book = openpyxl.load_workbook(export(spec, tmp_path / "c.xlsx"))
    texts = {c.value for s in book for r in s.iter_rows() for c in r if isinstance(c.value, str)}
    assert {"a\\x07b", "c\\u202ed"} <= texts
    assert not any(ch in text for text in texts for ch in "\u0007\u202e")


def rendered_text(book: Path, work: Path) -> str:
    """The sheets as LibreOffice renders them (HTML), read back as one line of text."""
    import html
    import re
    import subprocess

    program = soffice()
    assert program is not None
    subprocess.run([program, "--headless", f"-env:UserInstallation={(work / 'p').as_uri()}",
                    "--convert-to", "html", "--outdir", str(work / "html"), str(book)],
                   check=True, capture_output=True, timeout=600)
    page = (work / "html" / f"{book.stem}.html").read_text(encoding="utf-8", errors="replace")
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_a_key_the_mask_hides_shows_as_a_dash_as_in_every_other_format(tmp_path: Path) -> None:
    """A hidden key's weight (and its e^(x − max)) holds 0 for the formulas that read it, and
    shows "—", not 0.00: LibreOffice's rendering of the sheet, read back as text."""
    need_soffice()
    cat = next(p for p in EXAMPLES if p.stem == "cat_chases_mouse")  # causal: 3 keys hidden
    book = openpyxl.load_workbook(export(cat, tmp_path / "cat.xlsx"))
    a = next(b for b in layout(cat).blocks if b.name == "A")
    formats = [[book[a.sheet].cell(a.row + i + 1, a.col + j + 1).number_format
                for j in range(3)] for i in range(3)]
    hidden = [[j > i for j in range(3)] for i in range(3)]
    for i in range(3):
        for j in range(3):
            assert formats[i][j].endswith(';"—"') == hidden[i][j], (i, j, formats[i][j])
    shown = rendered_text(tmp_path / "cat.xlsx", tmp_path)
    # e^(x − max) and A, row by row: the hidden keys of cat (2) and chases (1) are dashes
    assert "cat 1.00 — — cat 1.00 cat 1.00 — —" in shown, shown[:2000]
    assert "chases 0.55 1.00 — chases 1.55 chases 0.36 0.64 —" in shown


def test_a_number_of_a_million_or_more_shows_as_m_times_a_power_of_ten(
        write: Any, tmp_path: Path) -> None:
    """As attn writes it in every other format (1.00×10²⁰): LibreOffice's rendering of the
    sheet, read back as text; the value stays the number for the formulas that read it."""
    need_soffice()
    spec = write("tokens: [a, b]\nembeddings: [[1e20, 2], [999999.995, -4e7]]\n")
    book = openpyxl.load_workbook(export(spec, tmp_path / "big.xlsx"))
    cell = book["Layer"]["B8"]
    assert (cell.value, cell.number_format) == (
        1e20, "[>=999999.995]0.00E+00;[<=-999999.995]-0.00E+00;0.00")
    shown = rendered_text(tmp_path / "big.xlsx", tmp_path)
    # 999,999.995 rounds half up to 1,000,000.00 at two decimals: 1.00×10⁶ in the terminal
    assert "X d1 d2 a 1.00E+20 2.00 b 1.00E+06 -4.00E+07" in shown, shown[:2000]

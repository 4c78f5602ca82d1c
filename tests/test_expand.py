"""Written-out cells: each printed line, recomputed from the numbers printed on it, gives the
printed result (`=`), or the line says it does not (`≈`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from attncli import build, loads_spec
from attncli.arithmetic import selection as selection_module
from attncli.arithmetic.expand import Selection
from attncli.arithmetic.selection import check
from attncli.cli.app import app
from attncli.errors import UsageError
from attncli.i18n import Msg, translate
from attncli.render.shortened import left_out
from attncli.spec.examples import example_path
from tests.printed_arithmetic import agrees, half_up, written_out

runner = CliRunner()
SEED_000 = str(example_path("cat_chases_mouse"))


def explain(*args: str) -> str:
    result = runner.invoke(app, ["explain", "--format", "text", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


CASES = [
    (SEED_000, "--round-intermediates"),
    (SEED_000, "--full-precision"),
    (str(example_path("column_convention")), "--full-precision"),
    (str(example_path("column_convention")), "--round-intermediates"),
    (str(example_path("two_tokens_unscaled")), "--full-precision"),
    (str(example_path("two_heads")), "--full-precision"),  # W_O and b_O written out too
    (str(example_path("two_heads")), "--round-intermediates"),
]


@pytest.mark.parametrize(("spec", "mode"), CASES)
@pytest.mark.parametrize("precision", ["2", "3"])
def test_every_written_out_line_recomputes_from_its_printed_numbers(
        spec: str, mode: str, precision: str) -> None:
    lines = written_out(explain(spec, mode, "--expand", "all", "--precision", precision))
    assert len(lines) > 20
    for line in lines:
        assert not line.elided
        if line.sign == "=":
            assert agrees(line, int(precision)), line.text
        else:  # the printed operands are rounded; the result is the true one
            assert not agrees(line, int(precision)), line.text
            got, printed = line.recompute(), line.printed()
            pairs = zip(got, printed, strict=True) if isinstance(printed, tuple) else [
                (got, printed)]
            for g, p in pairs:
                assert abs(float(g) - float(p)) <= 0.02 * abs(float(p)) + 10 ** -int(
                    precision), line.text


def test_by_hand_every_line_is_exact() -> None:
    lines = written_out(explain(SEED_000, "--round-intermediates", "--expand", "all"))
    assert lines and all(line.sign == "=" for line in lines)


def test_seed_000_lines_as_the_issue_writes_them() -> None:
    out = explain(SEED_000, "--round-intermediates", "-x", "scores:chases,chases",
                  "-x", "scaled:chases,chases", "-x", "weights:chases", "-x", "output:chases",
                  "--width", "120")  # each line whole, as the issue writes it
    for expected in (
        "S[chases, chases] = q_chases·k_chases = 0.20·0.20 + 1.00·1.00 = 1.04",
        "S′[chases, chases] = S[chases, chases] / √2 = 1.04 / 1.41 = 0.74",
        "e^0.14 = 1.15", "e^0.74 = 2.10", "e^−∞ = 0.00", "Σ = 1.15 + 2.10 = 3.25",
        "A[chases, cat] = 1.15 / 3.25 = 0.35",
        "Z[chases] = Σⱼ A[chases, j]·v_j = 0.35·[1.00, 0.00] + 0.65·[0.20, 1.00] = [0.48, 0.65]",
        "cos θ[chases, chases] = q_chases·k_chases / (|q_chases|·|k_chases|) = "
        "1.04 / (1.02·1.02) = 1.00",
    ):
        assert expected in out


def test_a_full_precision_line_that_does_not_recompute_says_so() -> None:
    # e^S′[mouse, cat] = e^0.5657 = 1.7607, but e^0.57 (as printed) = 1.768 -> 1.77
    out = explain(SEED_000, "-x", "weights:mouse")
    assert "e^0.57 ≈ 1.76" in out


def test_auto_writes_out_the_row_that_sees_most_keys() -> None:
    lines = written_out(explain(SEED_000))
    targets = [line.text.split(" = ")[0] for line in lines]
    assert "Q[mouse, d1]" in targets and "Z[mouse]" in targets
    assert not any("chases]" in t and t.startswith("S[chases") for t in targets)


def test_auto_writes_nothing_on_a_large_spec() -> None:
    tokens = " ".join(f"t{i}" for i in range(9))
    embeddings = "; ".join(" ".join(str((i + j) % 3) for j in range(2)) for i in range(9))
    out = explain("--tokens", tokens, "--embeddings", embeddings)
    assert "Written out:" not in out
    assert "Written out:" in explain("--tokens", tokens, "--embeddings", embeddings,
                                     "-x", "output:t3")


def _ones_and_twentieths(d: int) -> str:
    """x_a = [1, …, 1] and x_b = [0.05, 0.10, …, 0.05·d]: S[a, b] = 0.05·d(d + 1)/2."""
    return " ".join(["1"] * d) + "; " + " ".join(f"{0.05 * k:.2f}" for k in range(1, d + 1))


def test_a_sum_of_up_to_16_terms_is_written_whole_and_recomputes() -> None:
    out = explain("--tokens", "a b", "--embeddings", _ones_and_twentieths(16), "-x", "scores:a,b")
    line = next(x for x in written_out(out) if x.text.startswith("S[a, b]"))
    assert line.expression == " + ".join(f"1.00·{0.05 * k:.2f}" for k in range(1, 17))
    assert (line.sign, line.result) == ("=", "6.80")  # 0.05·(1 + … + 16) = 0.05·136
    assert agrees(line, 2)


# pl and ru bind a short pair after its comma with a no-break space (i18n/typography.py)
LEFT_OUT = {"en": "(20 terms, 15 not shown)", "pl": "(20 składników,\xa015 pominiętych)",
            "ru": "(20 слагаемых,\xa015 не показано)"}


@pytest.mark.parametrize("lang", sorted(LEFT_OUT))
def test_a_sum_of_20_terms_shows_its_first_3_and_last_2_and_says_what_is_missing(
        lang: str) -> None:
    heading = translate(Msg.of("Written out:"), lang)
    out = explain("--tokens", "a b", "--embeddings", _ones_and_twentieths(20), "-x", "scores:a,b",
                  "--lang", lang)
    line = next(x for x in written_out(out, heading) if x.text.startswith("S[a, b]"))
    # terms 1, 2, 3 and 19, 20 of 1.00·0.05k; the 15 between are left out and counted
    assert line.expression == ("1.00·0.05 + 1.00·0.10 + 1.00·0.15 + … + 1.00·0.95 + 1.00·1.00 "
                               + LEFT_OUT[lang])
    # 0.05·210 = 10.50 exactly, yet the five printed terms give 1.95: the line cannot say `=`
    assert (line.sign, line.result) == ("≈", "10.50")
    full = written_out(explain("--tokens", "a b", "--embeddings", _ones_and_twentieths(20),
                               "-x", "scores:a,b", "--full", "--lang", lang), heading)
    assert "…" not in full[0].expression and full[0].expression.count(" + ") == 19
    assert full[0].sign == "=" and agrees(full[0], 2)


def test_the_count_of_terms_left_out_takes_each_plural_form() -> None:
    said = {lang: [translate(left_out(n), lang) for n in (6, 7, 26, 27)]
            for lang in ("en", "pl", "ru")}  # 1, 2, 21 and 22 left out
    assert said["en"] == ["(6 terms, 1 not shown)", "(7 terms, 2 not shown)",
                          "(26 terms, 21 not shown)", "(27 terms, 22 not shown)"]
    assert said["pl"] == ["(6 składników,\xa01 pominięty)", "(7 składników,\xa02 pominięte)",
                          "(26 składników,\xa021 pominiętych)",
                          "(27 składników,\xa022 pominięte)"]
    assert said["ru"] == ["(6 слагаемых,\xa01 не показано)", "(7 слагаемых,\xa02 не показаны)",
                          "(26 слагаемых,\xa021 не показано)",
                          "(27 слагаемых,\xa022 не показаны)"]


def test_max_subtraction_is_written_when_the_scores_are_large() -> None:
    out = explain("--tokens", "a b", "--embeddings", "4 0; 3 1", "--scale", "none",
                  "-x", "weights:a")
    assert "e^(16.00 − 16.00) = 1.00" in out
    assert "e^(12.00 − 16.00) = 0.02" in out
    assert "Row “a”: its largest score, 16.00, is subtracted" in out
    for line in written_out(out):
        assert line.sign == "≈" or agrees(line, 2), line.text


def test_half_up_helper_is_a_persons_rounding() -> None:
    from fractions import Fraction

    assert half_up(Fraction("0.125"), 2) == Fraction("0.13")
    assert half_up(Fraction("-0.125"), 2) == Fraction("-0.13")


@pytest.mark.parametrize(("options", "message"), [
    (["all", "scores:cat"], "all cannot be combined"),
    (["scores"], "expected auto, all, none, shown or STEP:ROW[,COLUMN]"),
    (["masked:cat"], "cannot write out masked"),
    (["scores:cat,"], "expected a column after the comma"),
])
def test_bad_expand_options(options: list[str], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        Selection.parse(options)
    assert message in caught.value.message.msgid.format(
        **{k: v for k, v in caught.value.message.params}) or message in str(
        caught.value.message)


def test_a_row_that_does_not_exist_is_refused_with_the_rows_that_do() -> None:
    result = runner.invoke(app, ["explain", "-f", "text", "-x", "scores:dog"])
    assert result.exit_code == 2
    assert result.stderr == ("attn: --expand: scores has no row dog; its rows are cat, chases, "
                             "mouse\n")


def test_expansions_are_data_a_typesetter_can_read() -> None:
    walkthrough = build(loads_spec("tokens: [x]\nembeddings: [[3, 4]]\n"),
                        Selection.parse(["scores:x,x"]))
    scores = next(s for s in walkthrough.steps if s.id == "scores")
    first = scores.expansions[0]
    assert first.target is not None and first.target.latex == r"S[\text{x}, \text{x}]"
    assert first.symbolic is not None and first.symbolic.latex == (
        r"q_{\text{x}} \cdot k_{\text{x}}")
    assert first.result == 25.0 and first.exact


def test_token_names_in_written_out_formulas_are_escaped_for_latex() -> None:
    from attncli.arithmetic.expand import cell, named
    from attncli.model import Formula

    assert named("q", r"\input{x}").latex == r"q_{\text{\textbackslash{}input\{x\}}}"
    assert cell(Formula("S", "S"), "a_b", "50%").latex == r"S[\text{a\_b}, \text{50\%}]"


def test_shown_writes_out_exactly_the_cells_an_eliding_view_shows() -> None:
    """16 tokens: S is 16 × 16 (256 numbers, past 150), so a view shows the first and last 4
    rows and columns; `shown` writes out those 64 scores, the softmax of the 8 shown rows of A
    (a row is written out at once) and every row of Z, 16 × 2, shown whole."""
    tokens = [f"t{i}" for i in range(16)]
    rows = ", ".join(f"[{i % 3}, {i % 5}]" for i in range(16))
    spec = loads_spec(f"tokens: {tokens}\nembeddings: [{rows}]\n")
    w = build(spec, Selection.parse(["shown"]), summary=True)
    ends = [*tokens[:4], *tokens[12:]]
    scores = next(s for s in w.steps if s.id == "scores")
    targets = [e.target.text for e in scores.expansions if e.target.text.startswith("S[")]
    assert targets == [f"S[{r}, {c}]" for r in ends for c in ends]
    weights = next(s for s in w.steps if s.id == "weights")
    assert [e.target.text for e in weights.expansions if e.target and e.target.text != "Σ"] == [
        f"A[{r}, {c}]" for r in ends for c in tokens]
    output = next(s for s in w.steps if s.id == "output")
    assert [e.target.text for e in output.expansions] == [f"Z[{r}]" for r in tokens]
    projections = next(s for s in w.steps if s.id == "projections")  # 16 × 2: every cell
    assert len(projections.expansions) == 3 * 16 * 2


def test_a_cell_asked_for_thousands_of_times_is_checked_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cell asked for was checked against its step's rows listed again: a spec's
    display.expand of one cell written 20,000 times, on 1,000 tokens, took 3 s to validate."""
    tokens = ", ".join(f"t{i:04d}" for i in range(1000))
    # built whole (about 4 million numbers): past the default bound of the library's build
    walkthrough = build(loads_spec(f"tokens: [{tokens}]\nembeddings: {{random: {{}}, dim: 2}}\n"),
                        max_cells=100_000_000)
    cells = Selection.parse(["weights:t0001"] * 20_000 + ["scores:t0002,t0003"] * 20_000)
    listed: list[str] = []
    all_rows = selection_module.all_rows
    monkeypatch.setattr(selection_module, "all_rows",
                        lambda step: listed.append(step.id) or all_rows(step))
    check(cells, walkthrough)
    # each step of the two ids has its rows listed once, not once for each of 40,000 cells
    assert len(listed) == sum(1 for s in walkthrough.steps if s.id in ("weights", "scores"))
    monkeypatch.undo()
    # the first cell that is not there is still the one named
    with pytest.raises(UsageError) as refused:
        check(Selection.parse(["weights:t0001"] * 1000 + ["weights:nope", "scores:t1,x"]),
              walkthrough)
    assert translate(refused.value.message, "en").startswith(
        "--expand: weights has no row nope; its rows are t0000, t0001")


COMMA_SPEC = 'tokens: ["a,b", c, "x,y"]\nembeddings: [[1, 0], [0, 1], [1, 1]]\n'


@pytest.mark.parametrize(("asked", "cells"), [
    ("scores:a,b", [("a,b", None)]),  # the token a,b: no row a
    ("scores:c,a,b", [("c", "a,b")]),  # split at the first comma, as any cell
    ("scores:a,b,c", [("a,b", "c")]),
    ("scores:a,b,x,y", [("a,b", "x,y")]),
    ("scores: a,b  ,  x,y ", [("a,b", "x,y")]),  # spaces around a name, as anywhere
])
def test_a_token_with_a_comma_is_named_whole(asked: str, cells: list[tuple[str, str | None]]
                                             ) -> None:
    """S[a,b, c] is asked for as `scores:a,b,c`: a comma that splits no known row from a known
    column belongs to the token's name."""
    walkthrough = build(loads_spec(COMMA_SPEC))
    chosen = check(Selection.parse([asked]), walkthrough)
    assert [cell for _, cell in chosen.cells] == cells


def test_a_long_run_of_commas_is_searched_only_as_far_as_a_label_reaches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`-x "scores:cat,,,…,x"` (131,000 commas, the most one argument holds) sliced the text at
    every comma, and looked each slice up: 3.4 s before the refusal. A row's name ends at most
    as far as the longest label, so only the first commas are tried."""
    from attncli.arithmetic import selection

    walkthrough = build(loads_spec(COMMA_SPEC))
    looked: list[str] = []
    label = selection.TokenLabels.label

    def counted(self: selection.TokenLabels, name: str) -> str:
        looked.append(name)
        return label(self, name)

    monkeypatch.setattr(selection.TokenLabels, "label", counted)
    with pytest.raises(UsageError) as refused:
        check(Selection.parse(["scores:a,b" + "," * 131_000 + "x"]), walkthrough)
    assert translate(refused.value.message) == (
        "--expand: scores has no row a; its rows are a,b, c, x,y")
    # the whole text, the rows `a,b` and `a,b,` can end at (the longest label is 3 characters),
    # and the refusal's own: a handful, where each comma was one
    assert len(looked) < 10


def test_no_step_before_the_colon_is_a_malformed_value() -> None:
    with pytest.raises(UsageError) as raised:
        Selection.parse([":a"])
    assert translate(raised.value.message) == (
        "--expand: expected auto, all, none, shown or STEP:ROW[,COLUMN], found :a")

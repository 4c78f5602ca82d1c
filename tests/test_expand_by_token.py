"""`-x STEP:ROW[,COLUMN]` names a row by its label or, where the label numbers a token, by the
token itself. Two long names a page shows alike (`paaa…aaap`) are numbered as one token written
twice (`…p₁`, `…p₂`, attncli/steps/labels.py), so each could be chosen only by its number; now
the token selects its one label. A token written twice has two labels: refused, listing them."""

from __future__ import annotations

from attncli import build, loads_spec
from attncli.arithmetic.selection import Selection, by_token
from tests.conftest import run

A = "p" + "a" * 30 + "x" + "a" * 30 + "p"
B = "p" + "a" * 30 + "y" + "a" * 30 + "p"
SPEC = (f"tokens: [{A}, {B}, cat]\nembeddings: [[1, 0], [0, 1], [1, 1]]\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")


def written(selection: Selection) -> list[str]:
    """What each line of the scores step written out computes."""
    walkthrough = build(loads_spec(SPEC), expand=selection)
    scores = next(step for step in walkthrough.steps if step.id == "scores")
    return [line.target.text for line in scores.expansions if line.target is not None]


def test_a_numbered_long_name_is_chosen_by_its_token() -> None:
    by_label = written(Selection.parse([f"scores:{B}₂,{A}₁"]))
    assert by_label == written(Selection.parse([f"scores:{B},{A}"]))
    assert by_label[0] == f"S[{B}₂, {A}₁]"


def test_the_token_is_matched_whole() -> None:
    labels = [f"{A}₁", f"{B}₂", "cat", "the₁", "the₂", "x (1)", "x ((2))"]
    assert by_token(A, labels) == f"{A}₁"
    assert by_token("the", labels) == "the"  # two: the caller refuses, listing them
    assert by_token("p", labels) == "p"  # a beginning of a token is not its label
    assert by_token("x", labels) == "x"  # "x (1)" and "x ((2))" are both numbered x
    assert by_token("x", labels[:6]) == "x (1)"


def test_a_token_written_twice_is_refused_with_its_labels() -> None:
    result = run("explain", "-", "-x", "scores:the", input="tokens: [the, cat, the]\n"
                 "embeddings: [[1, 0], [0, 1], [1, 1]]\n"
                 "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("attn: --expand: scores has no row the; its rows are the₁, cat, "
                             "the₂\n")


def test_a_numbered_long_name_is_chosen_by_its_token_in_a_long_summary() -> None:
    """Past 64 query rows a summary works only the rows it shows and those written out
    (steps/build.py kept_rows): the row a token chooses is among them, and its score is the
    one worked by hand: S[A, A] = 1·1 + 0·0 = 1 with A's embedding (1, 0)."""
    middle = [f"t{i}" for i in range(70)]
    tokens = ["cat", *middle[:35], A, *middle[35:], B]  # A is row 36, among the elided rows
    rows = [[1, 0] if t == A else [0, 1] for t in tokens]
    spec = (f"tokens: [{', '.join(tokens)}]\nembeddings: {rows}\n"
            "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    result = run("explain", "-", "-x", f"scores:{A},{A}", "--steps", "scores", input=spec)
    assert result.exit_code == 0, result.stderr
    written = result.stdout.split("Written out:")[1].split()
    assert written[:3] == [f"S[{A}₁,", f"{A}₁]", "="]
    assert "1.00·1.00 + 0.00·0.00 = 1.00" in " ".join(written)

"""`--format text` fits its width, measured in terminal columns by Rich's own cell counter (an
independent reading of wcwidth: a CJK character takes 2, Cyrillic, `·`, `−` and subscripts 1):
every example, every language, several widths (in CI all of them; elsewhere each example at
each width in one language, turning: tests/matrix.py), and random specs. A wrapped written-out
line loses nothing: put back together it is the line printed unwrapped."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from attncli.render.columns import cell_width
from attncli.render.wrap import formula, words
from tests.conftest import EXAMPLES, attn_executable, run
from tests.matrix import turn
from tests.printed_arithmetic import joined

WIDTHS = (40, 57, 80, 120)


def too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if cell_len(line) > width]


# every example in every language at every width in CI, else each example at each width in
# one language, turning (tests/matrix.py)
CASES = [(spec, lang, width) for i, spec in enumerate(EXAMPLES) for k, width in enumerate(WIDTHS)
         for lang in turn("tests/test_width.py: widths", ("en", "pl", "ru"), i, k)]


@pytest.mark.parametrize(("spec", "lang", "width"), CASES,
                         ids=lambda x: getattr(x, "stem", str(x)))
def test_no_text_line_is_wider_than_asked(spec: Path, lang: str, width: int) -> None:
    # a spec in a low precision refuses hand calculation (tests/test_low_precision_layer.py)
    hand = [] if "\ndtype: " in spec.read_text(encoding="utf-8") else ["--round-intermediates"]
    result = run("explain", str(spec), "-f", "text", "--lang", lang, "--width", str(width),
                 "-x", "all", *hand)
    assert result.exit_code == 0, result.stderr
    assert too_wide(result.stdout, width) == []


@pytest.mark.parametrize("width", (40, 80))
@pytest.mark.parametrize("spec", EXAMPLES, ids=lambda p: p.stem)
def test_no_rich_line_is_wider_than_asked(spec: Path, width: int) -> None:
    result = run("explain", str(spec), "-f", "rich", "--lang", "ru", "--width", str(width),
                 "-x", "all")
    assert result.exit_code == 0, result.stderr
    assert too_wide(result.stdout, width) == []


@pytest.mark.parametrize("spec", EXAMPLES, ids=lambda p: p.stem)
def test_80_columns_by_default_and_the_same_lines_as_unwrapped(spec: Path) -> None:
    wrapped = run("explain", str(spec), "-f", "text", "-x", "all").stdout
    unwrapped = run("explain", str(spec), "-f", "text", "-x", "all", "--width", "1000").stdout
    assert too_wide(wrapped, 80) == []
    assert len(too_wide(unwrapped, 80)) > 0  # there was something to wrap
    written = lambda text: [line for line in joined(text.splitlines())  # noqa: E731
                            if line.startswith("   ") and "] = " in line]
    assert written(wrapped) == written(unwrapped)


def test_a_written_out_line_breaks_after_a_sign_with_a_hanging_indent() -> None:
    out = run("explain", "configs/decoder_layer.yaml", "-f", "text", "--steps", "projections",
              "--head", "1").stdout
    lines = out.splitlines()
    first = lines.index("   Q[mouse, d1] = x_mouse·W_Q[:, d1] = 1.71·1.00 + (−0.42)·0.00 + "
                        "0.32·0.00 +")
    assert lines[first + 1] == "       1.50·0.00 = 1.71"


def test_a_step_formula_breaks_between_its_parts_and_a_named_formula_stays_whole() -> None:
    # `M = (U +` ended a line over `1) ⊙ G·σ(α·G)`, and a sentence's `E₁ =` over `M·W_2 + b_2`
    out = run("explain", "configs/moe_gpt_oss.yaml", "-f", "text", "--width", "40",
              "--steps", "expert", "--lang", "pl").stdout.replace("\u00a0", " ")
    lines = out.splitlines()
    first = lines.index("   G = min(Ỹ·W_1, ℓ),")
    assert lines[first + 1:first + 3] == ["       U = clip(Ỹ·W_3, ±ℓ),",
                                          "       M = (U + 1) ⊙ G·σ(α·G)"]
    assert "E₁ = M·W_2 + b_2." in "\n".join(lines[first:first + 9])  # on one line
    assert not [line for line in lines if line.rstrip().endswith((" =", " +", "("))]


def test_prose_wraps_between_words_at_the_indent() -> None:
    out = run("explain", "-f", "text", "--width", "40", "--steps", "weights").stdout
    assert "   Softmax is taken along each row, so\n   every row of A sums to 1.\n" in out


@pytest.mark.parametrize("width", ["39", "1001", "10000000"])
def test_a_width_outside_40_to_1000_is_refused(width: str) -> None:
    result = run("explain", "-f", "text", "--width", width)
    assert result.exit_code == 2
    assert result.stderr == ("attn: --width: expected a whole number from 40 to 1000, found "
                             f"{width}\n")


def test_a_width_of_1000_lays_out_every_column_on_one_line() -> None:
    """The widest width: a matrix of 64 columns (each `d64`-wide label and its numbers take 6
    columns with their gap) fits in one block, under no `columns … of 64` marker."""
    tokens = " ".join(f"t{i}" for i in range(64))
    embeddings = "; ".join(" ".join("1" if j == i else "0" for j in range(64)) for i in range(64))
    out = run("explain", "-f", "text", "--width", "1000", "--tokens", tokens, "--embeddings",
              embeddings, "--full", "--steps", "embeddings", "--no-header").stdout
    assert "of 64" not in out
    header = next(line for line in out.splitlines() if "d64" in line)
    assert header.split() == [f"d{j}" for j in range(1, 65)]


def test_a_huge_columns_is_held_to_1000() -> None:
    """$COLUMNS of 10⁹ (a terminal program's mistake) lays out at 1000 columns, at once."""
    held = run("explain", "-f", "rich", env={"COLUMNS": "1000000000"}).stdout
    widest = run("explain", "-f", "rich", "--width", "1000").stdout
    assert held == widest and max(map(len, held.splitlines())) <= 1000


# Wide and narrow characters: the measure that decides a break is the terminal's.
TOKENS = ["猫", "追いかける", "кошка", "мышь·x", "t₁", "a−b", "ß"]


def test_the_width_measure_agrees_with_rich() -> None:
    for token in [*TOKENS, "Σⱼ A[mouse, j]·v_j", "e^−∞", "√d_k", "žółw"]:
        assert cell_width(token) == cell_len(token), token


@pytest.mark.parametrize("width", (40, 50, 80))
def test_wide_characters_are_counted_twice(width: int, tmp_path: Path) -> None:
    n = len(TOKENS)
    spec = tmp_path / "wide.yaml"
    spec.write_text(yaml.safe_dump({
        "tokens": TOKENS, "title": "注意力机制" * 10,
        "embeddings": [[round(float(np.sin(i + j)), 2) for j in range(6)] for i in range(n)],
        "mask": "causal"}, allow_unicode=True), encoding="utf-8")
    out = run("explain", str(spec), "-f", "text", "--width", str(width), "-x", "all").stdout
    assert too_wide(out, width) == []
    first = out.splitlines()[0]  # 100 columns with no space: cut where the line is full
    assert first == "注意力机制" * (width // 10) and cell_len(first) == width


def test_wrap_helpers_keep_every_character() -> None:
    text = "Z[a] = " + " + ".join(f"0.{i}0·[1.00, 2.00, 3.00]" for i in range(9)) + " = [1.00]"
    lines = formula(text, 40, "   ")
    assert all(cell_len(line) <= 40 for line in lines)
    assert all(line.startswith("       ") for line in lines[1:])
    assert all(line.endswith(("+", "=")) for line in lines[:-1])
    assert " ".join(line.strip() for line in lines) == text
    prose = "kot " * 30
    assert " ".join(line.strip() for line in words(prose, 41, "   ")) == prose.strip()


@st.composite
def specs(draw: st.DrawFn) -> dict[str, object]:
    n = draw(st.integers(1, 10))
    d = draw(st.integers(1, 12))
    alphabet = st.sampled_from(list("abcxyzкотмышь猫犬·−₁"))
    tokens = draw(st.lists(st.text(alphabet, min_size=1, max_size=8), min_size=n, max_size=n,
                           unique=True))
    values = st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 3))
    spec: dict[str, object] = {
        "tokens": tokens,
        "embeddings": draw(st.lists(st.lists(values, min_size=d, max_size=d),
                                    min_size=n, max_size=n)),
        "mask": draw(st.sampled_from(["none", "causal"])),
    }
    if d % 2 == 0 and draw(st.booleans()):
        spec["heads"] = 2
    return spec


@settings(max_examples=25, deadline=None)
@given(spec=specs(), width=st.integers(40, 130), hand=st.booleans())
def test_random_specs_fit(spec: dict[str, object], width: int, hand: bool) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.yaml"
        path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
        args = ["explain", str(path), "-f", "text", "--width", str(width), "-x", "all", "--full"]
        result = run(*args, *(["--round-intermediates"] if hand else []))
    assert result.exit_code == 0, result.stderr
    assert too_wide(result.stdout, width) == []


def test_rich_fits_COLUMNS_when_piped() -> None:
    env = {**os.environ, "COLUMNS": "60", "NO_COLOR": "1"}
    out = subprocess.run([attn_executable(), "explain", "-x", "all"], capture_output=True,
                         text=True, env=env, check=True).stdout
    widths = [cell_len(line) for line in out.splitlines()]
    assert max(widths) == 60  # the title's rule spans the whole width, nothing more
    env["COLUMNS"] = "100"
    out = subprocess.run([attn_executable(), "explain"], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert cell_len(out.splitlines()[0]) == 100

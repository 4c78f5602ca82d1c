"""What a large spec costs grows with what is written, not with n x m x heads: the paths that
used to hold every row at once, measured by their peak of traced memory or by what they count
(never by the clock), at sizes small enough for a test and large enough for blocks of rows."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import load_spec, render
from attncli.arithmetic.elision import EDGE
from attncli.compute import ops
from attncli.errors import UsageError
from attncli.i18n import translate
from attncli.model import Step
from attncli.model.walkthrough import LISTED
from attncli.render import html_step
from attncli.spec.model import Spec
from attncli.spec.view import View
from attncli.steps import decode, row_blocks
from attncli.steps.base import Build, HeadState
from attncli.steps.build import build
from attncli.steps.show import Shown, prepare

FLOAT = 8  # bytes of a float64


def spec_of(folder: Path, n: int, d: int, heads: int, extra: str) -> Spec:
    path = folder / "spec.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\n"
                    f"embeddings: {{random: {{seed: 1}}, shape: [{n}, {d}]}}\n"
                    f"heads: {heads}\nweights: {{W_Q: identity, W_K: identity, W_V: identity}}\n"
                    "mask: causal\n" + extra)
    return load_spec(str(path))


def peak_of(work: Callable[[], object]) -> int:
    """The most memory `work` held at once, in bytes, as tracemalloc traces it."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sinks_are_worked_in_blocks_of_rows(tmp_path: Path) -> None:
    """Four heads with a sink each, 1,536 tokens: the sink's softmax of n x (m + 1) was taken
    whole for every head, about four n x m arrays at once (75 MB here); in blocks of rows it
    holds a few blocks of ROWS x (m + 1)."""
    n, heads = 1536, 4
    spec = spec_of(tmp_path, n, 8, heads, f"sinks: [{', '.join(['0.5'] * heads)}]\n")
    rows = max(1, row_blocks.BLOCK_CELLS // n // ops.ROWS) * ops.ROWS  # 512 queries a block
    peak = peak_of(lambda: build(spec, summary=True))
    assert peak < 5 * rows * (n + 1) * FLOAT  # 31 MB; four whole n x m arrays are 75 MB


DECODE_N, DECODE_HEADS = 1100, 4  # 1,100 x 1,100 is past BLOCK_CELLS: worked in blocks of rows


def decode_spec(folder: Path) -> Spec:
    return spec_of(folder, DECODE_N, 8, DECODE_HEADS, "decode: {prefill: 1}\n")


def decode_bound() -> int:
    """A few blocks of ROWS x m per head at once. Every decode step worked and held is
    (8 + 8) bytes of s and a and 8 of the cache's labels per key it sees, n²/2 x heads x 24 bytes
    in all: 58 MB here; this bound is 22 MB."""
    rows = max(1, row_blocks.BLOCK_CELLS // DECODE_N // ops.ROWS) * ops.ROWS  # 512 queries
    return 5 * rows * DECODE_N * FLOAT


def counted_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The decode steps worked, one entry each."""
    worked: list[int] = []
    step = decode.decode_step

    def counting(b: Build, hs: HeadState, t: int) -> Step:
        worked.append(t)
        return step(b, hs, t)

    monkeypatch.setattr(decode, "decode_step", counting)
    return worked


@pytest.mark.parametrize("view", [View(summary=True, read=False),  # attn validate
                                  View(summary=True, steps="embeddings")],
                         ids=["validate", "--steps embeddings"])
def test_decode_steps_no_one_reads_are_not_worked(view: View, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spec = decode_spec(tmp_path)
    worked = counted_steps(monkeypatch)
    shown: list[Shown] = []
    peak = peak_of(lambda: shown.append(prepare(spec, view)))
    assert worked == []
    assert peak < decode_bound()
    # every step keeps its number: the embeddings; per head its parameters, projections,
    # scores, scaled, masked, weights and output (7), the prefill and the 8 decode steps a
    # summary shows (the first and last 4 of n - 1); then the heads' concatenation and the
    # cache's size
    steps = shown[0].walkthrough.steps_in_all
    assert steps == 1 + DECODE_HEADS * (7 + 1 + 8) + 2


def test_a_matrix_refused_by_its_head_is_refused_before_the_decode_steps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    worked = counted_steps(monkeypatch)
    refused, peak = refused_at_peak(decode_spec(tmp_path), "W_Q")
    assert refused == "--matrix: W_Q is one per head; add the head, as in W_Q:1"
    assert worked == []
    assert peak < decode_bound()


def refused_at_peak(spec: Spec, matrix: str) -> tuple[str, int]:
    """The refusal of `--matrix matrix`, and the most memory traced while it was made."""
    refused: list[str] = []

    def refusal() -> None:
        with pytest.raises(UsageError) as caught:
            prepare(spec, View(summary=True, matrix=matrix))
        # the sentence as made, every name listed; the printed line (str) cuts a long list
        refused.append(translate(caught.value.message, "en"))

    peak = peak_of(refusal)
    return refused[0], peak


def test_a_matrix_that_is_nowhere_is_refused_naming_the_decode_steps_unworked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal of a name no step has lists every matrix, the decode steps' too, in their
    order: written here for 3 tokens and 2 heads (prefill 1). Their names are made; their
    numbers are not."""
    small = spec_of(tmp_path, 3, 4, 2, "decode: {prefill: 1}\n")
    worked = counted_steps(monkeypatch)
    with pytest.raises(UsageError) as caught:
        prepare(small, View(summary=True, matrix="nosuch"))
    per_head = ["W_Q", "W_K", "W_V", "Q", "K", "V", "S", "S′", "S′ + M", "A", "Z", "K[1:1]",
                "V[1:1]", "q₂", "K[1:2]", "V[1:2]", "s₂", "a₂", "z₂", "q₃", "K[1:3]", "V[1:3]",
                "s₃", "a₃", "z₃"]
    names = ["X", *(f"{name}:{h}" for h in (1, 2) for name in per_head), "Z"]
    assert str(caught.value) == ("--matrix: no matrix nosuch here; this walkthrough has "
                                 + ", ".join(names))
    assert worked == []
    # and at the test's large size, within the decode bound
    refused, peak = refused_at_peak(decode_spec(tmp_path), "nosuch")
    assert peak < decode_bound()
    assert worked == []
    # 4 x (11 + 2 + 6 x 8) + 2 names: a summary names the first and last 4 of the 1,099
    # decode steps of each head, the last of head 4 that of token 1,100
    listed = refused.partition("this walkthrough has ")[2].split(", ")
    assert (len(listed), listed[-2:]) == (246, ["z₁₁₀₀:4", "Z"]) and len(listed) < LISTED

def test_a_decode_steps_matrix_is_worked_where_it_is_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """a₃ of head 2 is the softmax of s₃ = q₃·K[1:3]ᵀ / √8 (identity weights: q and k are the
    embeddings' rows), worked here by hand."""
    spec = spec_of(tmp_path, 5, 8, 2, "decode: {prefill: 1}\n")
    worked = counted_steps(monkeypatch)
    shown = prepare(spec, View(matrix="a3:2"))
    assert len(worked) == 2 * (5 - 1)  # every decode step of both heads: the walkthrough shown
    x = spec.queries.embeddings
    assert x is not None
    s = x[2, 4:] @ x[:3, 4:].T / np.sqrt(4)  # head 2 reads features 5..8: d_k = 4
    a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    assert shown.matrix is not None
    np.testing.assert_allclose(shown.matrix.values[0], a, rtol=1e-15)


@pytest.mark.parametrize("sinks", [False, True], ids=["softmax", "softmax with a sink"])
def test_the_page_writes_the_terms_of_the_cells_it_shows(sinks: bool, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTML page of 600 tokens (`--steps weights`): of every shown row of A (the first and
    last EDGE), the e^x and the quotient of its shown cells (2·EDGE each), the row's sum, and the
    sink's e^s when there is one. Every e^x and quotient of the row, 2n + 1 lines a row, were
    written and then dropped."""
    n = 600
    spec = spec_of(tmp_path, n, 4, 1, "sinks: [0.5]\n" if sinks else "")
    written: list[str] = []
    text = html_step.expansion_text

    def counting(*args: Any) -> str:
        line = text(*args)
        written.append(line)
        return line

    monkeypatch.setattr(html_step, "expansion_text", counting)
    shown = prepare(spec, View(expand=("shown",), steps="weights", summary=True,
                               terms_shown=True))
    page = render(shown.walkthrough, "html")
    rows = columns = 2 * EDGE
    assert len(written) == rows * (2 * columns + 1 + sinks)  # 136 or 144; before: 9,608 or 9,616
    assert sum(line.startswith("Σ = ") for line in written) == rows
    assert all(f"<li><code>{escape(line)}</code></li>" in page for line in written)

"""MLA's absorbed scores, Gemma 2's soft-capping, ALiBi's and a given score bias and a low
precision (bfloat16) worked in blocks of query rows (attncli/steps/row_blocks.py): the same
matrices, bit for bit, and the same notes as the whole n x m arrays give, and a summary of 2,048
tokens holds no whole n x m array of a head."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
import yaml

from attncli.spec import loads_spec
from attncli.spec.model import Spec
from attncli.steps.build import build
from tests.test_row_blocks import assert_same_matrices, built_both_ways

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
FAMILIES = {"mla": ("mla_deepseek.yaml", "absorbed"), "gemma2": ("gemma2_layer.yaml", "softcap"),
            "bf16": ("low_precision_bfloat16.yaml", "precision"),
            "alibi": ("alibi_three_heads.yaml", "bias")}


def resized(name: str, n: int) -> Spec:
    """A bundled example with n tokens of random embeddings of its own width."""
    s = yaml.safe_load((CONFIGS / name).read_text(encoding="utf-8"))
    d = len(s["embeddings"][0])
    s.pop("display", None)
    s.update(tokens=[f"t{i}" for i in range(n)], embeddings={"random": {"seed": 1}, "dim": d},
             mask="causal")
    return loads_spec(json.dumps(s))




@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_blocks_of_rows_give_the_whole_arrays_numbers_and_notes(
        family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """1,100 queries in blocks of 512 rows (the last short) against the head worked whole."""
    name, step_id = FAMILIES[family]
    spec = resized(name, 1100)
    in_blocks, whole, used = built_both_ways(spec, monkeypatch)
    passes = 2 if spec.dtype != "float64" else 1  # a low precision is set beside float64
    assert used and all(used) and len(used) == passes * len(spec.heads)  # every head in blocks
    assert_same_matrices(in_blocks, whole)
    assert [step.notes for step in in_blocks.steps] == [step.notes for step in whole.steps]
    assert [step.expansions for step in in_blocks.steps] == \
        [step.expansions for step in whole.steps]
    assert in_blocks.reading == whole.reading
    assert in_blocks.low_precision == whole.low_precision
    notes = [step.notes for step in in_blocks.steps if step.id == step_id]
    if family == "bf16":  # its errors against float64, found in the rows shown
        assert in_blocks.low_precision is not None and in_blocks.low_precision.errors
        return
    if family == "alibi":  # −m·|i − j| with each row's own i: the last query's row, by hand
        biases = [step.matrices[0] for step in in_blocks.steps if step.id == "bias"]
        assert len(biases) == len(notes) == 3
        for bias, slope in zip(biases, (0.0625, 0.00390625, 0.25), strict=True):
            assert bias.kept is not None and bias.kept[-1] == 1099
            assert bias.values[-1].tolist() == [-slope * (1099 - j) for j in range(1100)]
        return
    assert len(notes) == len(spec.heads)
    if family == "gemma2":  # the note on the score moved most names a query of all 1,100
        assert all(head[-1].msgid.startswith("The cap bends") for head in notes)
    else:  # the check over every block, and the last query of all worked both ways
        assert all(head[-1].msgid.startswith("The query") and "t1099" in repr(head[-1].params)
                   for head in notes)


def test_a_given_bias_matrix_is_taken_by_the_blocks_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bias matrix of the spec's own (rows 512 apart unlike) in two blocks of ops.ROWS rows:
    each block adds its own rows of B, as the whole head does."""
    n = 600
    s = yaml.safe_load((CONFIGS / "score_bias_matrix.yaml").read_text(encoding="utf-8"))
    s.pop("display", None)
    s.update(tokens=[f"t{i}" for i in range(n)], embeddings={"random": {"seed": 1}, "dim": 4},
             mask="causal", bias=[[(i * 7 + j * 3) % 13 - 6 for j in range(n)] for i in range(n)])
    spec = loads_spec(json.dumps(s), max_cells=10**8)
    in_blocks, whole, used = built_both_ways(spec, monkeypatch)
    assert used == [True]
    assert_same_matrices(in_blocks, whole)
    bias = next(step.matrices[0] for step in in_blocks.steps if step.id == "bias")
    assert bias.kept is not None and bias.kept[-1] == n - 1
    assert bias.values[-1].tolist() == [((n - 1) * 7 + j * 3) % 13 - 6 for j in range(n)]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_summary_of_2048_tokens_holds_no_whole_n_by_m_array(family: str) -> None:
    """The scores of one head at 2,048 tokens are 2,048² float64 numbers, 32 MB: the summary's
    whole build stays below two of them (worked whole, it held 140 MB for Gemma 2, 174 MB for
    MLA, 186 MB for bfloat16 and 108 MB for ALiBi's three heads; in blocks, 35, 44, 48 and
    28 MB)."""
    n = 2048
    spec = resized(FAMILIES[family][0], n)
    tracemalloc.start()
    try:
        build(spec, summary=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * n * n * 8

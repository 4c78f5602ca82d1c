"""The products a walkthrough's matrix multiplications take are charged before any is taken:
4,096 tokens of d_model 1,000 with 1,000 features a head, within every other limit, took 46
billion products, 2.3 s and 290 MB to validate. Counted from the shapes (attncli/spec/costs.py)
against PRODUCTS_PER_CELL times --max-cells; each count here is worked from the shapes by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import Location, SpecError
from attncli.library import spec_of
from attncli.spec import loads_spec
from attncli.spec.arrays import Budget
from attncli.spec.costs import walkthrough_products
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_products
from attncli.spec.node import Node
from tests.conftest import run_apart


def square_spec(n: int, d: int, **more: object) -> str:
    return json.dumps({"tokens": [f"t{i}" for i in range(n)],
                       "embeddings": {"random": {"seed": 1}, "dim": d},
                       "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
                       **more})


def test_one_head_of_identity_weights() -> None:
    # Q, K, V: 3 · n · d · d; Q·Kᵀ and A·V: n · n · d each
    spec = loads_spec(square_spec(5, 3))
    assert walkthrough_products(spec) == 3 * 5 * 3 * 3 + 5 * 5 * (3 + 3) == 285


def test_heads_w_o_and_a_gated_feed_forward() -> None:
    n, d, h, d_ff = 4, 8, 2, 12
    rng = np.random.default_rng(0)
    spec = spec_of(tokens=[f"t{i}" for i in range(n)], embeddings=rng.standard_normal((n, d)),
                   heads=h, weights={name: rng.standard_normal((d, d))
                                     for name in ("W_Q", "W_K", "W_V", "W_O")})
    # each head of d_k = d_v = 4: X·W_Q, X·W_K, X·W_V (n · 8 · 4 each), Q·Kᵀ and A·V
    # (n · n · 4 each); then W_O (n · 8 · 8)
    per_head = 3 * n * d * 4 + 2 * n * n * 4
    assert walkthrough_products(spec) == h * per_head + n * d * d == 1280
    text = json.dumps({"tokens": ["a", "b"], "embeddings": {"random": {"seed": 1}, "dim": 4},
                       "block": {"ffn": {"activation": "swiglu",
                                         "W_1": {"random": {"seed": 2}, "shape": [4, d_ff]},
                                         "W_3": {"random": {"seed": 3}, "shape": [4, d_ff]},
                                         "W_2": {"random": {"seed": 4}, "shape": [d_ff, 4]}}}})
    # attention: 3 · 2 · 4 · 4 + 2 · 2 · 2 · 4; the network: 2 · (4 · 12) · 3
    assert walkthrough_products(loads_spec(text)) == 96 + 32 + 288


def test_a_backward_pass_and_a_low_precision_multiply_the_forward_pass() -> None:
    forward = 3 * 5 * 3 * 3 + 5 * 5 * 6
    assert walkthrough_products(loads_spec(square_spec(5, 3, backward={"dO": "ones"}))) \
        == 5 * forward
    assert walkthrough_products(loads_spec(square_spec(5, 3, dtype="bfloat16"))) == 2 * forward


def test_the_limit_is_1200_products_a_cell() -> None:
    budget = Budget(1000)
    budget.charge_walkthrough(budget_node(), 0, 1_200_000)  # at the limit: taken
    with pytest.raises(SpecError) as refused:
        budget.charge_walkthrough(budget_node(), 0, 1)  # one more, counted with the first
    assert str(refused.value).endswith(
        "the walkthrough of this spec would take 1,200,001 multiplications; the limit is "
        "1,200,000, 1,200 times what --max-cells sets")


def budget_node() -> Node:
    return Node({}, Location("<string>", line=1, column=1))


def test_a_bert_base_size_layer_of_2048_tokens_is_within_the_default() -> None:
    """benchmarks/run.py's real-size layer: 12 heads of 64 on d_model 768, and W_O."""
    n, d, h = 2048, 768, 12
    by_hand = 4 * n * d * d + h * n * n * 2 * 64
    assert by_hand == 11_274_289_152 <= max_products(DEFAULT_MAX_CELLS) == 12_000_000_000


def test_4096_tokens_of_width_1000_are_refused_unbuilt(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(square_spec(4096, 1000))
    done = run_apart(tmp_path, "validate", "s.json")
    products = 3 * 4096 * 1000 * 1000 + 4096 * 4096 * 2000
    assert products == 45_842_432_000
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"s.json:1:1: the walkthrough of this spec would take {products:,} multiplications; "
        "the limit is 12,000,000,000, 1,200 times what --max-cells sets")

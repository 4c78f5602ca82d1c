"""The backward pass and a low precision are charged against the numbers a walkthrough may
compute, before anything is computed. The backward pass: its dA, dS′ and dS (n x m each, every
head), dQ, dK, dV and dX, and the finite-difference check's two more forward passes: 8,000
tokens with `backward` computed about 960 million numbers (2.9 s, 297 MB for `attn validate`)
where the limit is 320 million. A dtype below float64 computes the forward pass twice (in the
format and in float64, to compare), each softmax's x − m and e^(x − m) and the rounding of every
n x m matrix: bfloat16 on 8,000 tokens took 3.5 s and 239 MB."""

from __future__ import annotations

import json

import pytest

from attncli.errors import SpecError
from attncli.spec import loads_spec
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_computed


def spec_text(n: int, backward: bool, heads: int = 1, dtype: str = "float64") -> str:
    spec: dict[str, object] = {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": {"random": {"seed": 1}, "shape": [n, 4 * heads]}, "heads": heads,
        "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"}, "dtype": dtype}
    if backward:
        spec["backward"] = {"dO": "ones"}
    return json.dumps(spec)


def forward(n: int, d: int) -> int:
    """One head of d_k = d_v = d on n tokens of width d: Q, K, V, 4 n x m arrays, Z; then the
    output and the layer's n x d (walkthrough_cells in attncli/spec/parse.py)."""
    return n * d + n * 2 * d + 4 * n * n + n * d + n * d + n * d


def test_8000_tokens_with_a_backward_pass_are_refused_unbuilt() -> None:
    n, d = 8000, 4
    assert forward(n, d) < max_computed(DEFAULT_MAX_CELLS)  # read without the backward pass
    loads_spec(spec_text(n, backward=False))
    backward = 2 * forward(n, d) + n * d + 3 * n * n + n * d + n * 2 * d
    with pytest.raises(SpecError) as refused:
        loads_spec(spec_text(n, backward=True))
    given = n * d + 3 * d * d  # the embeddings and three identity weights, counted as read
    total = given + forward(n, d) + backward
    assert total == 960_736_048
    assert str(refused.value) == (f"<string>:1:1: the walkthrough of this spec would compute "
                                  f"{total:,} numbers; the limit is 320,000,000, 32 times "
                                  "what --max-cells sets")


def test_a_backward_pass_within_the_limit_is_read() -> None:
    # 4,096 tokens: 3 · 4n² + 3n² = 15n² ≈ 252 million with the backward pass
    loads_spec(spec_text(4096, backward=True))
    # 12 heads of 1,024 tokens (docs/performance.md's backward case is of this size)
    loads_spec(spec_text(1024, backward=True, heads=12))


def test_8000_tokens_in_bfloat16_are_refused_unbuilt() -> None:
    n, d = 8000, 4
    loads_spec(spec_text(n, backward=False))
    with pytest.raises(SpecError) as refused:
        loads_spec(spec_text(n, backward=False, dtype="bfloat16"))
    # and x − m, e^(x − m) and the rounding of every n x m matrix: 6 passes (attncli/spec/costs.py)
    total = n * d + 3 * d * d + 2 * forward(n, d) + 6 * n * n
    assert total == 896_416_048
    assert str(refused.value).startswith(f"<string>:1:1: the walkthrough of this spec would "
                                         f"compute {total:,} numbers;")


def test_a_low_precision_within_the_limit_is_read() -> None:
    loads_spec(spec_text(4096, backward=False, dtype="bfloat16"))  # about 235 million

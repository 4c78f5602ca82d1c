"""Features that add passes over every head's n x m scores are charged for them: a cell of
soft-capping's tanh, of ALiBi's bias, of a window or padding mask, of attention sinks, of MLA's
absorbed scores and of a low precision's rounding counts as several numbers computed
(attncli/spec/costs.py, the weights measured beside them). 4,096 tokens with soft-capping took
1.24 s where plain attention took 0.80 s, and were charged alike. Each count here is worked by
hand from the shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from attncli.spec import loads_spec
from attncli.spec.costs import walkthrough_cells


def spec_text(n: int, **more: object) -> str:
    """n tokens of d_model 4, two heads (d_k = d_v = 2), a causal mask unless `more` says."""
    return json.dumps({"tokens": [f"t{i}" for i in range(n)],
                       "embeddings": {"random": {"seed": 1}, "shape": [n, 4]}, "heads": 2,
                       "mask": "causal", **more})


def plain(n: int) -> int:
    """Per head n·d_k + m·(d_k + d_v) + 4nm + n·d_v = 8n + 4n²; two heads; the heads side by side
    (n·4) and the output (n·4): 24n + 8n²."""
    return 24 * n + 8 * n * n


def cells(n: int, **more: object) -> int:
    return walkthrough_cells(loads_spec(spec_text(n, **more)))


def test_each_feature_is_weighted_by_its_passes_over_the_scores() -> None:
    n = 8  # n·m·heads = 128
    assert cells(n) == plain(n) == 704
    assert cells(n, softcap=5.0) == 704 + 3 * 128 == 1088
    assert cells(n, bias="alibi") == 704 + 3 * 128 == 1088
    assert cells(n, mask={"causal": True, "window": 3, "sink_tokens": 1}) == 704 + 128 == 832
    assert cells(n, mask={"padding": [True, False] * 4}) == 704 + 2 * 128 == 960
    assert cells(n, sinks=[1.0, 1.0]) == 704 + 2 * 128 == 960
    # the forward pass, then again in float64 beside it, and 6 passes a head of the format's
    assert cells(n, dtype="bfloat16") == 704 + 704 + 6 * 128 == 2176
    # the passes add up: soft-capping, ALiBi, a window and sinks
    assert cells(n, softcap=5.0, bias="alibi", sinks=[1.0, 1.0],
                 mask={"causal": True, "window": 3, "sink_tokens": 1}) == 704 + 9 * 128 == 1856


def test_latent_attention_counts_its_absorbed_scores_four_times() -> None:
    n, d_c, d_rope = 8, 4, 2
    latent = {"W_DKV": {"random": {"seed": 2}, "shape": [4, d_c]},
              "W_UK": {"random": {"seed": 3}, "shape": [4, 4]},
              "W_UV": {"random": {"seed": 4}, "shape": [4, 4]},
              "W_KR": {"random": {"seed": 5}, "shape": [4, d_rope]},
              "W_Q": {"random": {"seed": 6}, "shape": [4, 4]},
              "W_QR": {"random": {"seed": 7}, "shape": [4, 4]}}
    spec = loads_spec(spec_text(n, latent=latent,
                                positional={"rope": {"base": 10000, "layout": "interleaved"}}))
    head = spec.heads[0]
    d_k, d_v = head.d_k(spec.convention), head.d_v(spec.convention)
    per_head = (n * d_k + n * (d_k + d_v) + 4 * n * n + n * d_v  # Q, K, V, scores, weights, Z
                + 4 * n * n  # the absorbed scores and their check, 4 passes
                + 2 * (n + n) * d_k  # RoPE's angles and the rotated Q and K
                + d_c * (n + 2 * d_k) + 4 * d_k)  # the head's weights and Q_C·W_UKᵀ
    shared = (4 + 2 * n + 1) * (d_c + d_rope) + 2 * n * 4  # C_KV, K_R and C_Q
    positions = 2 * n * 4  # RoPE's P and E + P, of the queries
    assert (d_k, d_v) == (4, 2)  # d_nope + d_R = 2 + 2
    assert walkthrough_cells(spec) == positions + 2 * per_head + shared + n * 2 * d_v + n * 4
    assert walkthrough_cells(spec) == 64 + 2 * 816 + 190 + 32 + 32 == 1950


def test_4096_tokens_with_softcapping_are_read_with_their_passes_counted() -> None:
    n = 4096
    assert plain(n) == 134_316_032
    assert cells(n, softcap=5.0) == 134_316_032 + 3 * 2 * n * n == 234_979_328  # within 320 million


def test_4096_tokens_with_softcapping_alibi_a_window_and_sinks_are_refused(
        tmp_path: Path) -> None:
    n = 4096
    (tmp_path / "s.json").write_text(spec_text(
        n, softcap=5.0, bias="alibi", sinks=[1.0, 1.0],
        mask={"causal": True, "window": 3, "sink_tokens": 1}))
    done = subprocess.run([sys.executable, "-m", "attncli", "validate", "s.json"],
                          cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    given = n * 4 + 3 * 4 * 4  # the embeddings and three identity weights, counted as read
    total = given + plain(n) + 9 * 2 * n * n
    assert total == 436_322_352
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"s.json:1:1: the walkthrough of this spec would compute {total:,} numbers; the limit "
        "is 320,000,000, 32 times what --max-cells sets")
    assert done.stdout == ""

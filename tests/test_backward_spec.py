"""The `backward` spec section and --backward: what they accept and how they refuse."""

from __future__ import annotations

import json

import numpy as np

from attncli.spec import loads_spec
from tests.conftest import CONFIGS, run

BASE = "tokens: [a, b, c]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\n"


def test_do_forms() -> None:
    assert np.array_equal(loads_spec(BASE + "backward: {}\n").backward.dO,  # type: ignore[union-attr]
                          np.ones((3, 2)))
    given = loads_spec(BASE + "backward: {dO: [[1, 2], [3, 4], [5, 6]]}\n").backward
    assert given is not None and given.dO[2, 1] == 6.0
    drawn = loads_spec(BASE + "backward: {dO: {random: {seed: 4}}}\n").backward
    assert drawn is not None
    assert np.array_equal(drawn.dO, np.random.default_rng(4).normal(0.0, 1.0, (3, 2)))


def test_bad_backward_sections_name_the_key(write) -> None:  # type: ignore[no-untyped-def]
    shape = run("explain", str(write(BASE + "backward: {dO: [[1, 2]]}\n")))
    assert shape.exit_code == 2
    assert shape.stderr.endswith("backward.dO is 1 × 2, expected n × d_out = 3 × 2\n")
    typo = run("explain", str(write(BASE + "backward: {d0: ones}\n")))
    assert typo.exit_code == 2 and "backward" in typo.stderr and "d0" in typo.stderr
    block = run("explain", str(write(BASE.replace("[[1, 0], [0.2, 1], [0.8, 0]]", "[[1, 0], "
                                                   "[0.2, 1], [0.8, 0]]") + "block: {}\n"
                                     "backward: {dO: [[1, 2, 3], [1, 2, 3], [1, 2, 3]]}\n")))
    assert block.exit_code == 2  # with a block, dO is dY at the layer's output: n x d_model


def test_backward_option_equals_the_spec_section(write) -> None:  # type: ignore[no-untyped-def]
    plain = write(BASE + "mask: causal\n", "plain.yaml")
    section = write(BASE + "mask: causal\nbackward: {dO: ones}\n", "section.yaml")
    by_option = run("explain", str(plain), "--backward", "-f", "json")
    by_section = run("explain", str(section), "-f", "json")
    assert by_option.exit_code == by_section.exit_code == 0
    assert by_option.json()["steps"] == by_section.json()["steps"]
    assert "grad_softmax" in {step["id"] for step in by_option.json()["steps"]}


def test_backward_option_runs_through_the_block() -> None:
    result = run("explain", str(CONFIGS / "decoder_layer.yaml"), "--backward", "-f", "json")
    assert result.exit_code == 0, result.stderr
    ids = [step["id"] for step in result.json()["steps"]]
    assert ids[ids.index("norm_2") + 1:ids.index("norm_2") + 3] == ["grad_block", "grad_output"]


def test_a_mask_of_zeros_passes_no_gradient_and_writes_no_sum(write) -> None:  # type: ignore[no-untyped-def]
    # By hand: no query sees a key, so A = 0 (masked_rows: zero), Z = A·V = 0 and
    # dS′ = A ⊙ (dA − rowsum(dA ⊙ A)) = 0, so dQ = dS·K = 0 and dK = dSᵀ·Q = 0; the sums
    # Σⱼ A·dA and Σⱼ dS·K have no term to write out, so no cell of them is expanded.
    spec = write(BASE + "mask: [[0, 0, 0], [0, 0, 0], [0, 0, 0]]\nbackward: {dO: ones}\n")
    for args in (("explain", "-f", "json"), ("export", "--latex"), ("export", "--typst")):
        result = run(args[0], str(spec), *args[1:])
        assert result.exit_code == 0, result.stderr
    shown = json.loads(run("explain", str(spec), "-f", "json").stdout)
    steps = {s["id"]: s for s in shown["steps"]}
    for step in ("grad_softmax", "grad_projections"):
        assert steps[step]["expansions"] == []
        for matrix in steps[step]["matrices"]:
            assert not np.array(matrix["values"]).any()  # dS′ 3 × 3, dQ and dK 3 × 2, all 0

"""`activation: gelu_tanh`, GELU's tanh approximation (GPT-2's `gelu_new`):
0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), against PyTorch's gelu(x, approximate="tanh") and
its autograd, and two cells worked by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attncli import build, loads_spec
from attncli.compute import ops
from attncli.compute.gradients_modern import slope
from tests.conftest import run
from tests.mha_reference import torch_module


def test_gelu_tanh_is_pytorchs_tanh_approximation() -> None:
    torch = torch_module()
    x = np.linspace(-8.0, 8.0, 4001)  # (4001,)
    expected = torch.nn.functional.gelu(torch.tensor(x), approximate="tanh").numpy()
    assert np.abs(ops.gelu_tanh(x) - expected).max() < 1e-15
    # and it is not the exact GELU: they part by up to about 4.7·10⁻⁴ (near x = ±2.7)
    exact = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    assert 4.6e-4 < np.abs(expected - exact).max() < 4.8e-4


def test_the_slope_of_gelu_tanh_is_autograds() -> None:
    torch = torch_module()
    x = torch.tensor(np.linspace(-8.0, 8.0, 4001), requires_grad=True)
    torch.nn.functional.gelu(x, approximate="tanh").sum().backward()
    found = slope(x.detach().numpy(), "gelu_tanh")
    assert np.abs(found - x.grad.numpy()).max() < 1e-14


SPEC = """{"tokens": ["a"], "embeddings": [[1, 0]], "weights": {"W_V": [[1, 0], [0, 1]]},
 "block": {"residual": false, "ffn": {"W_1": [[1, -2], [0, 0]], "W_2": [[1, 0], [0, 1]],
 "activation": "gelu_tanh"}}}"""


def test_a_gelu_tanh_cell_is_the_one_worked_by_hand() -> None:
    """One token: A = 1, so Z = v = x = [1, 0] and the pre-activation is [1, −2].
    x = 1: u = √(2/π)·(1 + 0.044715) = 0.79788456·1.044715 = 0.83356197,
           tanh u = 0.68238398, 0.5·1·(1 + 0.68238398) = 0.84119199 (the exact GELU: 0.84134475);
    x = −2: u = 0.79788456·(−2 − 0.044715·8) = −1.88118839, tanh u = −0.95459769,
           0.5·(−2)·(1 − 0.95459769) = −0.04540231."""
    walkthrough = build(loads_spec(SPEC))
    ffn = next(step for step in walkthrough.steps if step.id == "ffn")
    hidden = next(m for m in ffn.matrices if m.symbol.text == "H")
    assert np.abs(hidden.values - [[0.84119199, -0.04540231]]).max() < 1e-8
    assert ffn.formula is not None and ffn.formula.text.startswith("H = GELU_tanh(Z·W_1)")
    assert ffn.formula.latex.startswith(r"H = \operatorname{GELU_{tanh}}(Z W_{1})")


def test_the_walkthrough_says_the_formula_in_every_language(tmp_path: Path) -> None:
    formula = "GELU_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))"
    spec = tmp_path / "gelu.json"
    spec.write_text(SPEC, encoding="utf-8")
    for lang, words in (("en", "GELU_tanh is GELU's tanh approximation (GPT-2's gelu_new)"),
                        ("pl", "GELU_tanh to przybliżenie GELU przez tanh (gelu_new z GPT-2)"),
                        ("ru", "GELU_tanh — приближение GELU через tanh (gelu_new из GPT-2)")):
        out = run("explain", str(spec), "--lang", lang, "--steps", "ffn", "-f", "text").stdout
        flowing = " ".join(out.split())  # the note as one line, however it was wrapped
        assert words in flowing and formula in flowing

"""`--matrix` with a backward pass: the steps the backward pass would make are named before any
gradient is worked (attncli/steps/backward_names.py), so a name that is nowhere is refused at
the cost of the forward pass alone, with the very message the whole walkthrough gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import attncli.compute.gradients as gradients
from attncli.errors import AttnError
from attncli.model import Walkthrough
from attncli.spec import load_spec
from attncli.spec.backward import with_ones
from attncli.steps.build import build, outline
from tests.conftest import EXAMPLES, run

# what --backward does not work with (attncli/steps/show.py refuses it)
NO_BACKWARD = ("softcap", "qk_norm", "sinks", "vision", "latent")


def names(w: Walkthrough) -> list[tuple[str, int | None, list[str]]]:
    return [(step.id, step.head, [m.symbol.text for m in step.matrices]) for step in w.steps]


def takes_backward(path: Path) -> bool:
    """Whether the example's spec can have a backward pass (--backward refuses the others)."""
    try:
        spec = load_spec(str(path))
    except AttnError:  # an example that reads files of its own folder (checked elsewhere)
        return False
    return not (spec.dtype != "float64" or any(getattr(spec, key) is not None
                                                 for key in NO_BACKWARD)
                or (spec.block is not None and spec.block.moe is not None))


BACKWARD = [path for path in EXAMPLES if takes_backward(path)]


def test_most_examples_take_a_backward_pass() -> None:
    assert len(BACKWARD) >= 25, [path.stem for path in BACKWARD]


@pytest.mark.parametrize("path", BACKWARD, ids=lambda p: p.stem)
def test_the_outline_names_what_the_backward_pass_makes(path: Path) -> None:
    spec = load_spec(str(path))
    if spec.backward is None:
        spec = with_ones(spec)
    spec = replace(spec, display=replace(spec.display, round_intermediates=False))
    whole = build(spec)
    assert any(step.id == "grad_input" for step in whole.steps) or spec.display.steps
    assert names(outline(spec)) == names(whole)


def test_a_bad_matrix_is_refused_before_any_gradient(write,  # type: ignore[no-untyped-def]
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    worked = gradients.head_gradients

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return worked(*args, **kwargs)

    monkeypatch.setattr(gradients, "head_gradients", counted)
    spec = write("tokens: [a, b, c]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\nheads: 2\n"
                 "mask: causal\nbackward: {}\n")
    refused = run("explain", str(spec), "--matrix", "nosuch")
    assert refused.exit_code == 2 and calls == []
    assert refused.stderr == (
        "attn: --matrix: no matrix nosuch here; this walkthrough has X, W_Q:1, W_K:1, W_V:1, "
        "Q:1, K:1, V:1, S:1, S′:1, S′ + M:1, A:1, Z:1, W_Q:2, W_K:2, W_V:2, Q:2, K:2, V:2, S:2, "
        "S′:2, S′ + M:2, A:2, Z:2, Z, dO, dZ:1, dV:1, dA:1, dS′:1, dQ:1, dK:1, dW_Q:1, dW_K:1, "
        "dW_V:1, dZ:2, dV:2, dA:2, dS′:2, dQ:2, dK:2, dW_Q:2, dW_K:2, dW_V:2, dX\n")
    headless = run("explain", str(spec), "--matrix", "dA")
    assert headless.exit_code == 2 and calls == []
    assert headless.stderr == "attn: --matrix: dA is one per head; add the head, as in dA:1\n"
    steps = run("explain", str(spec), "--matrix", "dA:1", "--steps", "grad_shared")
    assert steps.exit_code == 2 and calls == []  # --steps's own refusal, not --matrix's
    assert steps.stderr.startswith("attn: --steps: grad_shared is not in this spec, whose steps "
                                   "are embeddings, parameters, ")
    shown = run("explain", str(spec), "--matrix", "dA:2", "-f", "json")
    assert shown.exit_code == 0 and len(calls) == 2  # each head's gradients, once

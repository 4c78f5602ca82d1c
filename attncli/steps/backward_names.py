"""The backward pass's steps named only: each step's id and head and its matrices' symbols, with
no numbers, in the order attncli/steps/backward.py makes them. `--matrix` reads these to refuse a
name that is nowhere before any gradient is worked (attncli/steps/show.py); a test holds the two
lists equal for every bundled spec."""

from __future__ import annotations

import numpy as np

from attncli.compute.gradients_block import block_gradients
from attncli.compute.gradients_modern import groups_of
from attncli.i18n import Msg
from attncli.model import Formula, Matrix, Step
from attncli.steps.backward import symbol
from attncli.steps.backward_modern import D_K_HAT, D_Q_HAT, of_group
from attncli.steps.base import Build, Made, State

NOTHING = np.zeros((0, 0))  # (0, 0): a named matrix holds no numbers
untitled = Msg("")  # an outline is searched by its names, never shown: it has no titles


def named(formulas: list[Formula]) -> tuple[Matrix, ...]:
    return tuple(Matrix(formula, NOTHING, (), ()) for formula in formulas)


def outline(b: Build, state: State) -> Made[State]:
    """The backward family's steps as backward.backward makes them, with empty matrices."""
    spec = b.spec
    heads = state.heads
    steps = []
    if spec.block is not None:  # its gradients' names: worked out, as they are n x d_model
        assert state.x is not None and state.attention is not None and spec.backward is not None
        block = block_gradients(spec, state.x, state.attention.whole(), spec.backward.dO)
        made = list(block.named)
        if block.pre_norm is not None:  # the heads' LayerNorm(X), read back by gradients()
            made += ["dgain_1"] + ["dbias_1"] * block.pre_norm.centred
        steps.append(Step("grad_block", untitled, None, named([symbol(n) for n in made])))
    steps.append(Step("grad_output", untitled, None, named([symbol("dO")])))
    if spec.W_O is not None:
        steps.append(Step("grad_out_projection", untitled, None, named(
            [symbol("dW_O")] + ([symbol("db_O")] if spec.b_O is not None else [])
            + [symbol("dZ")])))
    q_turned, k_turned = spec.rope("q") is not None, spec.rope("k") is not None
    for head, r in zip(spec.heads, heads, strict=True):
        index = r.index if len(heads) > 1 else None
        steps += [Step("grad_values", untitled, None, named([symbol(n) for n in ("dZ", "dV",
                                                                               "dA")]), index),
                  Step("grad_softmax", untitled, None, named([symbol("dS′")]), index)]
        if r.divisor != 1.0:
            steps.append(Step("grad_scores", untitled, None, named([symbol("dS")]), index))
        steps.append(Step("grad_projections", untitled, None, named(
            [D_Q_HAT if q_turned else symbol("dQ"), D_K_HAT if k_turned else symbol("dK")]),
            index))
        if q_turned or k_turned:
            steps.append(Step("grad_rope", untitled, None, named(
                [Formula("dQ", "dQ")] * q_turned + [Formula("dK", "dK")] * k_turned), index))
        weights = []
        for letter in "QKV" if head.group is None else "Q":  # shared K, V: in grad_shared
            weights.append(symbol(f"dW_{letter}"))
            if getattr(head, f"b_{letter}") is not None:
                weights.append(symbol(f"db_{letter}"))
        steps.append(Step("grad_weights", untitled, None, named(weights), index))
    if spec.heads[0].group is not None:
        groups = groups_of(spec)
        shared = []
        for group, members in groups:
            first = spec.heads[members[0]]
            shared += [of_group("dK", group + 1, len(groups)),
                       of_group("dV", group + 1, len(groups))]
            for letter in "KV":
                shared.append(of_group(f"dW_{letter}", group + 1, len(groups)))
                if getattr(first, f"b_{letter}") is not None:
                    shared.append(of_group(f"db_{letter}", group + 1, len(groups)))
        steps.append(Step("grad_shared", untitled, None, named(shared)))
    steps.append(Step("grad_input", untitled, None, named(
        [symbol("dX")] + ([symbol("dC")] if spec.context is not None else []))))
    return tuple(steps), state

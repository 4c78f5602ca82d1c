"""The spec's `backward` section: the gradient dO that flows back into the attention output.

    backward: {dO: ones}                      # every entry 1: L = sum of the outputs
    backward: {dO: [[1, 0], [0, 1], ...]}     # n x d_out, d_out the width of the output
    backward: {dO: {random: {seed: 1}}}
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.spec.arrays import Files, matrix_at
from attncli.spec.model import Backward, Spec
from attncli.spec.source import Node
from attncli.spec.values import check_keys, check_shape

BACKWARD_KEYS = ("dO",)


def output_width(spec: Spec) -> int:
    """The columns of the attention output: d_model after W_O, else the heads' d_v side by side."""
    if spec.W_O is not None or spec.block is not None:  # a block needs d_model columns
        if spec.W_O is None:
            return spec.queries.d_model
        return int(spec.W_O.shape[1] if spec.convention == "row" else spec.W_O.shape[0])
    return sum(h.d_v(spec.convention) for h in spec.heads)


def backward_spec(node: Node, spec: Spec, files: Files) -> Backward:
    """`backward: {dO: ones | matrix | {random: ...}}`, its shape checked against the output."""
    keys = check_keys(node, BACKWARD_KEYS)
    shape = (spec.queries.n, output_width(spec))
    given = keys.get("dO")
    if given is None or given.value == "ones":
        return Backward(np.ones(shape))  # (n, d_out)
    values = matrix_at(given, "dO", files, shape)
    check_shape(given, values, shape, "n × d_out")
    return Backward(values)


def with_ones(spec: Spec) -> Spec:
    """`spec` with `backward: {dO: ones}` (the --backward option)."""
    return replace(spec, backward=Backward(np.ones((spec.queries.n, output_width(spec)))))

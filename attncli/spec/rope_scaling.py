"""`rope: {scaling: {kind: linear | llama3 | yarn, factor, ...}}`: RoPE's frequencies scaled
for a longer context, with the keys of transformers' `rope_scaling` (attncli/compute/
rope_scaling.py computes them)."""

from __future__ import annotations

from attncli.spec.model import RopeScaling
from attncli.spec.source import Node
from attncli.spec.values import boolean, check_keys, choice, fail, integer, number, optional

KINDS = ("linear", "llama3", "yarn")
# The longest context a model may say it was trained on (the longest today are about 10⁷): a
# longer one does not fit a float, which the ramp's logarithm takes.
MAX_CONTEXT = 10**12
# each kind's keys: those it needs, then those it may have
NEEDED = {"linear": ("kind", "factor"),
          "llama3": ("kind", "factor", "low_freq_factor", "high_freq_factor",
                     "original_max_position_embeddings"),
          "yarn": ("kind", "factor", "original_max_position_embeddings")}
OPTIONAL = {"linear": (), "llama3": (),
            "yarn": ("beta_fast", "beta_slow", "truncate", "attention_factor")}


def above(node: Node, low: float) -> float:
    """A number greater than `low`."""
    value = number(node)
    if value <= low:
        fail(node, "expected a number greater than {low}, found {value}", low=f"{low:g}",
             value=f"{value:g}")
    return value


def above_other(node: Node, other: str, low: float) -> float:
    """A number greater than the key `other`'s value `low`."""
    value = number(node)
    if value <= low:
        fail(node, "expected a number greater than {other} ({low}), found {value}", other=other,
             low=f"{low:g}", value=f"{value:g}")
    return value


def rope_scaling(node: Node) -> RopeScaling:
    keys = check_keys(node, ("kind", "factor", "low_freq_factor", "high_freq_factor",
                             "original_max_position_embeddings", *OPTIONAL["yarn"]))
    if "kind" not in keys:
        fail(node, "the key {key} is missing", key="kind")
    kind = choice(keys["kind"], KINDS)
    check_keys(node, NEEDED[kind] + OPTIONAL[kind])
    for key in NEEDED[kind]:
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    factor = above(keys["factor"], 0.0)
    if kind == "linear":
        return RopeScaling("linear", factor)
    length = integer(keys["original_max_position_embeddings"], 1, MAX_CONTEXT)
    if kind == "llama3":
        low = above(keys["low_freq_factor"], 0.0)
        high = above_other(keys["high_freq_factor"], "low_freq_factor", low)
        return RopeScaling("llama3", factor, length, low_freq_factor=low, high_freq_factor=high)
    slow = optional(keys, "beta_slow", lambda n: above(n, 0.0), 1.0)
    fast = optional(keys, "beta_fast", lambda n: above_other(n, "beta_slow", slow), 32.0)
    return RopeScaling("yarn", factor, length, beta_fast=fast, beta_slow=slow,
                       truncate=optional(keys, "truncate", boolean, True),
                       attention_factor=optional(keys, "attention_factor",
                                                 lambda n: above(n, 0.0), None))

"""RoPE as a checkpoint's config.json gives it: `rope_parameters` (or the older `rope_scaling`
beside `rope_theta`), read as transformers reads them, into attn's `rope: {base, layout,
scaling}` (attncli/spec/rope_scaling.py). The fields are passed on as config.json's own Nodes,
so a bad value is refused where config.json has it."""

from __future__ import annotations

import math
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec.rope_scaling import KINDS
from attncli.spec.source import Node
from attncli.spec.values import expect, fail, integer, number, text

Keys = dict[str, Any]
# transformers' keys of each kind that attn's `scaling` takes under the same name
FIELDS = ("factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow", "truncate",
          "attention_factor")


def rope(config: dict[str, Node], config_name: str) -> Keys:
    """`rope: {base, layout: half}`, and its `scaling` when the config's kind is not `default`;
    a kind attn does not compute is refused with those it does."""
    for key in ("rope_scaling", "rope_parameters"):  # a list or a number is no kind of RoPE
        found = config.get(key)
        if found is not None and found.value is not None and not isinstance(found.value, dict):
            expect(found, Msg.of("a mapping"))
    parameters = config.get("rope_scaling")
    if parameters is None or not parameters.value:
        parameters = config.get("rope_parameters")
    theta = config.get("rope_theta")
    base = 10000.0 if theta is None or theta.value is None else number(theta)
    if parameters is None or not isinstance(parameters.value, dict):
        return {"rope": {"base": base, "layout": "half"}}
    given: dict[str, Node] = {k: v for k, v in parameters.value.items() if v.value is not None}
    nested = [key for key, value in given.items() if isinstance(value.value, dict)]
    if nested:  # one RoPE per layer kind (Gemma 3's form) was read as default RoPE, its thetas
        # not read
        fail(parameters, "expected the parameters of one RoPE (rope_type, rope_theta, …), "
             "found a mapping of them for {keys}", keys=", ".join(key[:40] for key in nested))
    theta = given.get("rope_theta")
    base = base if theta is None else number(theta)
    kind_node = given.get("rope_type", given.get("type"))
    kind = "default" if kind_node is None else text(kind_node)
    if kind == "default":
        return {"rope": {"base": base, "layout": "half"}}
    if kind not in KINDS:
        assert kind_node is not None
        fail(kind_node, "the RoPE scaling {found} is not worked out yet; expected one of {known}",
             found=kind[:40], known=", ".join(("default", *KINDS)))
    scaling: Keys = {"kind": kind, **{k: given[k] for k in FIELDS if k in given}}
    if kind != "linear":
        scaling["original_max_position_embeddings"] = original_length(config, config_name,
                                                                      given)
    if kind == "yarn":
        yarn_defaults(config, config_name, given, scaling)
    return {"rope": {"base": base, "layout": "half", "scaling": scaling}}


def longest(config: dict[str, Node], config_name: str) -> int:
    """config.json's `max_position_embeddings`."""
    found = config.get("max_position_embeddings")
    if found is None or found.value is None:
        fail(Node({}, Location(config_name)), "the key {key} is missing",
             key="max_position_embeddings")
    return integer(found, 1)


def original_length(config: dict[str, Node], config_name: str,
                    given: dict[str, Node]) -> Node | int:
    """The context the model was trained on: config.json's own `original_max_position_embeddings`
    first (Phi-3 keeps it there), then the scaling's, then `max_position_embeddings`."""
    for found in (config.get("original_max_position_embeddings"),
                  given.get("original_max_position_embeddings")):
        if found is not None and found.value is not None:
            return found
    return longest(config, config_name)


def yarn_defaults(config: dict[str, Node], config_name: str, given: dict[str, Node],
                  scaling: Keys) -> None:
    """What transformers fills in for YaRN: a missing factor is max_position_embeddings over the
    original length; `mscale` and `mscale_all_dim` (DeepSeek) give the attention factor
    (0.1·m·ln(factor) + 1) / (0.1·m_all·ln(factor) + 1); a beta of 0 is its default."""
    for key, default in (("beta_fast", 32.0), ("beta_slow", 1.0)):
        if key in given and not given[key].value:
            scaling[key] = default
    if "factor" not in given:
        length = scaling["original_max_position_embeddings"]
        trained = integer(length, 1) if isinstance(length, Node) else length
        scaling["factor"] = longest(config, config_name) / trained
    mscale, every = given.get("mscale"), given.get("mscale_all_dim")
    if "attention_factor" not in given and mscale is not None and mscale.value \
            and every is not None and every.value:
        factor = scaling["factor"]
        factor = number(factor) if isinstance(factor, Node) else float(factor)

        def of(m: float) -> float:
            return 1.0 if factor <= 1 else 0.1 * m * math.log(factor) + 1.0

        for node in (mscale, every):  # each makes a term of the factor: none may be 0 or less
            if not of(number(node)) > 0:  # mscale_all_dim -10 with a factor of e divided by 0
                fail(node, "expected a number greater than {low}, found {value}",
                     low=f"{-10 / math.log(factor):g}", value=f"{number(node):g}")
        scaling["attention_factor"] = of(number(mscale)) / of(number(every))

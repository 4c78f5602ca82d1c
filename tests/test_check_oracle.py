"""attn check on random specs: answers made by applying each slip must be recognised as that slip
(perhaps among others that give the same numbers on that spec), and a right answer written at
any precision, cell by cell, must never be called wrong."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np

from attncli.check import check, from_text
from attncli.check.slips import CATALOGUE, Situation
from attncli.errors import AttnError, Location
from attncli.spec import loads_spec
from attncli.spec.model import Spec
from attncli.steps.build import compute

STEPS = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output", "concat",
         "out_projection")
SPECS = 40


def random_spec(seed: int) -> Spec:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    heads = int(rng.integers(1, 3))
    d_model = heads * int(rng.integers(1, 3)) + int(rng.integers(0, 2)) * heads
    d_model = max(d_model, 2)
    if d_model % heads:
        d_model += heads - d_model % heads

    def m(rows: int, cols: int) -> list[list[float]]:
        return np.round(rng.normal(0, 1, (rows, cols)), 2).tolist()  # type: ignore[no-any-return]

    spec: dict[str, object] = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": m(n, d_model),
        "convention": str(rng.choice(["row", "column"])), "heads": heads,
        "weights": {"W_Q": m(d_model, d_model), "W_K": m(d_model, d_model),
                    "W_V": m(d_model, d_model)},
    }
    mask = rng.integers(0, 4)
    if mask == 1:
        spec["mask"] = "causal"
    elif mask == 2:
        spec["mask"] = {"window": 1, "causal": True}
    elif mask == 3:
        spec["mask"] = {"padding": [True] * (n - 1) + [False]}
    if rng.random() < 0.4:
        spec["weights"]["W_O"] = m(d_model, d_model)  # type: ignore[index]
    return loads_spec(json.dumps(spec), "random.json")


def written(values: np.ndarray, decimals: np.ndarray) -> str:
    return "; ".join(" ".join(number(x, int(d)) for x, d in zip(row, ds, strict=True))
                     for row, ds in zip(values, decimals, strict=True))


def number(x: float, decimals: int) -> str:
    if np.isinf(x):
        return "-inf" if x < 0 else "inf"
    from attncli.arithmetic.handcalc import written as half_up
    return f"{half_up(float(x), decimals):.{decimals}f}"


def targets(spec: Spec) -> list[tuple[str, int | None]]:
    several = len(spec.heads) > 1
    found = []
    for step in STEPS:
        per_head = step not in ("concat", "out_projection")
        for h in (range(1, len(spec.heads) + 1) if per_head and several else (None,)):
            found.append((step, h))
    return found


def test_right_answers_at_any_precision_are_right() -> None:
    checked = 0
    for seed in range(SPECS):
        spec = random_spec(seed)
        right = compute(spec)
        rng = np.random.default_rng(1000 + seed)
        for step, head in targets(spec):
            from attncli.check.compare import find
            located = find(right, step, head)
            if located is None:
                continue
            values = located[1].whole()
            decimals = rng.integers(0, 7, values.shape)
            answer = from_text(written(values, decimals), step, Location("t"), head)
            verdict = check(spec, answer)
            assert verdict.ok, (seed, step, head, verdict.wrong)
            checked += 1
    print("right answers checked", checked)
    assert checked > 300


def test_every_slip_is_recognised_on_random_specs() -> None:
    from attncli.check.compare import find

    recognised: Counter[str] = Counter()
    coincided: Counter[str] = Counter()  # the slip gives the right numbers at that precision
    for seed in range(SPECS):
        spec = random_spec(seed)
        right = compute(spec)
        ids = [s.id for s in right.steps]
        rng = np.random.default_rng(2000 + seed)
        for step, head in targets(spec):
            at = find(right, step, head)
            if at is None:
                continue
            decimals = int(rng.integers(1, 5))
            situation = Situation(spec, (head or 1) - 1, decimals)
            for slip in CATALOGUE:
                if slip.first in ids and ids.index(slip.first) > at[0]:
                    continue
                for variant in slip.variants(situation):
                    try:
                        slipped = compute(variant.spec, calc=variant.calc)
                    except AttnError:
                        continue
                    located = find(slipped, step, head)
                    if located is None:
                        continue
                    values = located[1].whole()
                    answer = from_text(written(values, np.full(values.shape, decimals)), step,
                                       Location("t"), head)
                    verdict = check(spec, answer)
                    if verdict.ok:
                        coincided[slip.id] += 1
                        continue
                    named = [s.name for s in verdict.slips if s.whole]
                    assert variant.name in named, (seed, step, head, slip.id, named)
                    recognised[slip.id] += 1
    print("recognised", dict(recognised), "coincided", dict(coincided))
    for slip in CATALOGUE:
        assert recognised[slip.id] > 0, slip.id

"""The scoped ContextVar (attncli/spec/scope.py) that the readers of one run share, and the one
grouping of shared K/V heads (attncli/compute/gradients_modern.py `groups_of`)."""

from __future__ import annotations

from contextvars import ContextVar

import pytest

from attncli.compute.gradients_modern import groups_of
from attncli.spec import load_spec
from attncli.spec.scope import scoped
from tests.conftest import CONFIGS

_HELD: ContextVar[list[int] | None] = ContextVar("held", default=None)


def test_a_scoped_value_is_held_in_its_block_and_reset_after_it_however_it_ends() -> None:
    with scoped(_HELD, [1]) as outer:
        assert _HELD.get() is outer == [1]
        with pytest.raises(KeyError), scoped(_HELD, [2]):
            assert _HELD.get() == [2]
            raise KeyError("an error inside the block")
        assert _HELD.get() is outer  # the block before it, not None
    assert _HELD.get() is None


def test_the_heads_sharing_k_and_v_are_grouped_once_for_the_numbers_and_the_names() -> None:
    spec = load_spec(CONFIGS / "backward_llama_style.yaml")
    written = [head.group for head in spec.heads]
    assert None not in written  # the example shares K and V between its query heads
    expected = [(g, [i for i, w in enumerate(written) if w == g]) for g in sorted(set(written))]
    assert groups_of(spec) == expected
    assert len(expected) < len(spec.heads)  # fewer K/V heads than query heads

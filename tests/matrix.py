"""Which cases of the large renderer matrices a run takes: all of them in CI, a turning sample
on a developer's machine.

The Typst compiles (every example as a document, as slides and as a fragment, in en, pl and
ru), the Beamer decks (every example at 16:9 and 4:3) and the terminal widths (every example in
every language at four widths) are each a product of three lists. Under CI=true, or with
ATTN_MATRIX=all, a run takes the whole product. Otherwise it takes a sample in which every
example is still compiled or printed: the language (and the kind, the aspect, the option) turns
with the example's place, so that a third to a ninth of the product runs, and every part of it
runs on some example. The summary at the end of the run says how many cases the sample left
to CI (conftest.py).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

WHOLE = os.environ.get("CI") == "true" or os.environ.get("ATTN_MATRIX") == "all"

# matrix name -> (cases taken, cases in the whole product), for the summary
TAKEN: dict[str, tuple[int, int]] = {}


def in_turn(items: Sequence[T], index: int, offset: int = 0) -> T:
    """The item the case at `index` takes when the items turn: the one at (index + offset)
    modulo their number."""
    return items[(index + offset) % len(items)]


def turn(name: str, items: Sequence[T], index: int, offset: int = 0) -> list[T]:
    """The items a case takes from `items` (the languages, the aspects): all of them in the
    whole matrix, else the one at (index + offset) modulo their number. `name` ("tests/test_x.py:
    what") counts the case under its matrix for the summary."""
    taken = list(items) if WHOLE else [in_turn(items, index, offset)]
    got, whole = TAKEN.get(name, (0, 0))
    TAKEN[name] = (got + len(taken), whole + len(items))
    return taken


def sample(name: str, whole: Sequence[T], keep: Callable[[T], bool]) -> list[T]:
    """The cases a run takes of a matrix of more than one turn (the examples in turn and, of
    each, an aspect in turn): all of `whole`, the cases CI runs, in the whole matrix, else those
    `keep` keeps. `name` counts them under their matrix for the summary, out of all of `whole`."""
    taken = list(whole) if WHOLE else [case for case in whole if keep(case)]
    got, total = TAKEN.get(name, (0, 0))
    TAKEN[name] = (got + len(taken), total + len(whole))
    return taken


def every_other(name: str, index: int) -> bool:
    """Whether the case at `index` runs: always in the whole matrix, else every other one."""
    taken = WHOLE or index % 2 == 0
    got, whole = TAKEN.get(name, (0, 0))
    TAKEN[name] = (got + taken, whole + 1)
    return taken


def summary(modules: set[str]) -> list[str]:
    """The lines that say what the sample left out of the test modules that ran (their paths,
    tests/test_x.py), and how to run it all. Under xdist this process collected nothing: the
    modules are imported here, which works their samples out again, the same."""
    if WHOLE:
        return []
    for module in sorted(modules):
        if module.startswith("tests/test_") and module.endswith(".py"):
            importlib.import_module(module[:-3].replace("/", "."))
    ran = {name: counts for name, counts in TAKEN.items() if name.split(":")[0] in modules}
    if not ran:
        return []
    lines = ["the renderer matrices ran a sample (every example, the languages and kinds in turn):"]
    for name, (got, whole) in sorted(ran.items()):
        lines.append(f"  {name}: {got} of {whole} cases")
    lines.append("to run them all, as CI does: ATTN_MATRIX=all .venv/bin/python -m pytest -q "
                 "-n auto")
    return lines

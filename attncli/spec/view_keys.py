"""The keys that choose what a walkthrough shows, as a spec's `display`, a snippets manifest
entry and an attn fill block write them; each is read into the text its command-line option
takes (attncli/spec/view.py), so one parser (attncli/steps/show.py) reads them all."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from attncli.errors import SpecError
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_TEXT
from attncli.spec.source import Node
from attncli.spec.values import boolean, choice, expect, fail, integer, items, text
from attncli.spec.view import ALL, MD_FLAVORS, STEP_IDS, View

T = TypeVar("T")


def words(node: Node, what: Msg) -> list[Node]:
    """A list of texts, or one text: `[scores, weights]` or `scores`."""
    return [node] if isinstance(node.value, str) else items(node, what)


def steps(node: Node) -> str:
    """`steps: [scores, weights]` (or `all`) as --steps takes it: `scores,weights`."""
    if node.value == ALL:
        return ALL
    return ",".join(choice(child, STEP_IDS) for child in words(node, Msg.of("a list of step ids")))


def expand(node: Node) -> tuple[str, ...]:
    """`expand: none`, `expand: [weights:chases, scores:chases,mouse]`: --expand's values, each
    a text of at most MAX_TEXT characters as any label (a manifest's cell of 500,000 commas was
    looked for as 500,000 ways to split it)."""
    cells = []
    for child in words(node, Msg.of("a list of cells to write out")):
        cell = text(child)
        if len(cell) > MAX_TEXT:
            problem = Msg.plural_of(
                "expected a text of at most {count} character, found {length}",
                "expected a text of at most {count} characters, found {length}", Count(MAX_TEXT),
                length=Count(len(cell)))
            raise SpecError(Msg.of("{path}: {problem}", path=child.where.path, problem=problem)
                            if child.where.path else problem, child.where)
        cells.append(cell)
    return tuple(cells)


def head(node: Node) -> str:
    """`head: 2` (1-based) or `head: all`."""
    if node.value == ALL:
        return ALL
    if isinstance(node.value, str):
        expect(node, Msg.of("a head number or all"))
    return str(integer(node, 1))


def md_flavor(node: Node) -> str:
    return choice(node, MD_FLAVORS)


def matrix(node: Node) -> str:
    """`matrix: A`, `matrix: "A:2"`: one matrix by its symbol (checked against the spec later)."""
    written = text(node)
    if not written.strip():
        fail(node, "expected a matrix symbol such as A or A:2, found nothing")
    return written


# the keys that choose what to show, as a snippets manifest entry and an attn fill block write them
VIEW_KEYS = ("steps", "expand", "head", "reading", "header", "md_flavor", "matrix")


def view(keys: dict[str, Node], precision: int | None = None) -> View:
    """The choices written under `keys`, each as its `attn explain` option takes it; errors in a
    spec's terms (an unknown step of that spec, a head it lacks) are reported at the key when the
    walkthrough is built."""
    def read(key: str, reader: Callable[[Node], T]) -> T | None:
        return reader(keys[key]) if key in keys else None

    return View(
        precision=precision,
        steps=read("steps", steps),
        expand=read("expand", expand) or (),
        head=read("head", head),
        reading=read("reading", boolean),
        header=read("header", boolean),
        md_flavor=read("md_flavor", md_flavor),
        matrix=read("matrix", matrix),
        where={key: keys[key].where for key in VIEW_KEYS if key in keys},
    )

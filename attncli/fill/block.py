"""One attn block: what it asks for, and the walkthrough it gets.

A block's body is YAML (or JSON): either a spec written inline, or `spec: PATH` naming a spec
file; beside either, the choices of `attn export`:

    spec: cat.attn.yaml     # a file in the document's folder or below it
    lang: pl                # the language of the walkthrough (default en)
    precision: 3
    steps: [weights]        # and expand, head, reading, header, md_flavor, matrix, as in a
    expand: none            # snippets manifest entry or a spec's display

Files are read relative to the document, never outside its folder, never through a symbolic
link, never the document itself. The walkthrough is exactly what `attn export` writes for the
same spec and options (`--markdown` or `--latex`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from attncli.errors import AttnError, EmptySpec, Location, SpecError
from attncli.files.reading import NotRegular, check_regular, same_file
from attncli.i18n import DEFAULT_LANG, Msg
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS, MAX_PRECISION
from attncli.spec.node import Node
from attncli.spec.scope import scoped
from attncli.spec.values import check_keys, expect, fail, integer, text
from attncli.spec.view import View, parse_languages
from attncli.spec.view_keys import VIEW_KEYS, view

if TYPE_CHECKING:
    from attncli.spec.model import Spec

OPTION_KEYS = ("spec", "lang", "precision", *VIEW_KEYS)
# The spec file the last block named, as read, while a document is filled (`one_reading`)
Kept = list[tuple[tuple[int, int, int, int], "Spec"]]
_LAST: ContextVar[Kept | None] = ContextVar("attn_fill_last_spec", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within it, blocks that name one spec file one after another read it once: it is kept
    until a block names another (one at a time, so a document of many specs holds no more than
    one of them). 200 blocks of one document naming one spec of 150,000 values with other
    choices read it 200 times, 74 s."""
    with scoped(_LAST, []):
        yield


@record
class Request:
    """What a block asks for: a spec, what of it to show, in which languages."""

    spec: Spec
    view: View
    langs: tuple[str, ...]


def read_block(body: str, name: str, document: Path | None, flavor: str | None = None,
               max_cells: int = DEFAULT_MAX_CELLS, fence: Location | None = None) -> Request:
    """The request written in `body` (located as `name`, whose folder its files are read from);
    `flavor` is the Markdown flavour when neither the block nor its spec chooses one. SpecError
    (at `name`:line:column) if the block is malformed, at its `fence` if it is empty (a post of
    200 blocks named no block for it)."""
    from attncli.spec.parse import TOP_KEYS, load
    from attncli.spec.source import parse

    try:
        root = parse(name, body, max_cells)
    except EmptySpec:
        if fence is None:
            raise
        raise SpecError(Msg.of("this attn block is empty; expected spec: or a spec's keys"),
                        fence) from None
    if not isinstance(root.value, dict):
        expect(root, Msg.of("a spec, or spec: and the file that holds it"))
    options = {key: node for key, node in root.value.items() if key in OPTION_KEYS}
    rest = {key: node for key, node in root.value.items() if key not in OPTION_KEYS}
    if "spec" in options:
        if rest:
            first = next(iter(rest))
            if first not in TOP_KEYS:  # a choice mistyped: say which one was meant
                check_keys(root, OPTION_KEYS)
            raise SpecError(Msg.of("{key}: give either spec: and a file, or the spec itself "
                                   "in the block, not both", key=first), root.keys.get(first))
        spec = linked_spec(options["spec"], name, document, max_cells)
    else:
        inline = Node(rest, root.where)
        inline.keys = {key: where for key, where in root.keys.items() if key in rest}
        spec = load(inline, False, max_cells)
    precision = integer(options["precision"], 0, MAX_PRECISION) if "precision" in options else None
    chosen = view(options, precision)
    if chosen.md_flavor is None and spec.display.md_flavor is None and flavor is not None:
        chosen = replace(chosen, md_flavor=flavor)
    return Request(spec, chosen, languages(options.get("lang")))


def languages(node: Node | None) -> tuple[str, ...]:
    if node is None:
        return (DEFAULT_LANG,)
    try:
        return parse_languages(text(node), "lang")
    except AttnError as error:
        raise SpecError(error.message, node.where) from None


def linked_spec(node: Node, name: str, document: Path | None, max_cells: int) -> Spec:
    """The spec in the file that `spec:` names, relative to the document's folder and inside
    it, a regular file (no link), not the document."""
    from attncli.spec import load_spec

    written = text(node)
    if PurePosixPath(written).is_absolute() or os.path.isabs(written):
        fail(node, "expected a path relative to the document's folder, found {found}",
             found=written)
    if ".." in PurePosixPath(written).parts:
        fail(node, "expected a path inside the document's folder, found {found}", found=written)
    folder = Path(name).parent
    path = folder / written
    if not os.path.lexists(path):
        raise SpecError(Msg.of("{path}: {problem}", path=written, problem=Msg.of("no such file")),
                        node.where)
    try:
        check_regular(path, follow=False)
    except NotRegular as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=written, problem=problem.message),
                        node.where) from None
    if not path.resolve().is_relative_to(folder.resolve()):
        fail(node, "{path} leads outside the document's folder; attn fill reads only files "
             "inside it", path=written)
    if document is not None and same_file(path, document):
        fail(node, "{path} is the document itself; expected a spec file", path=written)
    kept = _LAST.get()
    try:
        info = os.stat(path)
    except OSError:
        kept = None  # gone meanwhile: load_spec says so
    if kept is None:
        return load_spec(path.as_posix(), allow_outside=False, max_cells=max_cells)
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if kept and kept[0][0] == key:
        return kept[0][1]
    kept.clear()  # the last one let go before the next is read
    spec = load_spec(path.as_posix(), allow_outside=False, max_cells=max_cells)
    kept.append((key, spec))
    return spec


def walkthrough_text(request: Request, fmt: str, max_cells: int = DEFAULT_MAX_CELLS) -> str:
    """What `attn export SPEC --FORMAT` with the block's options writes, ending in a newline."""
    from attncli.render import stream
    from attncli.render.bare import render_matrix
    from attncli.steps.budget import check_view
    from attncli.steps.show import prepare

    chosen = replace(request.view, summary=request.view.matrix is None)
    # a block shows every number only of the one matrix its `matrix:` asks for
    check_view(request.spec, chosen, max_cells, "--" + fmt, chosen.where.get("matrix"))
    shown = prepare(request.spec, chosen, max_cells)
    options = {"full": False, "width": 80, "decimal": None}
    if shown.matrix is not None:
        written = render_matrix(shown.walkthrough, shown.matrix, fmt, **options)
    else:
        written = "".join(stream(shown.walkthrough, fmt, request.langs, standalone=False,
                                 front_matter=False, frames_only=False, aspect="169",
                                 **options))
    return written if written.endswith("\n") else written + "\n"


def work_out(texts: list[str], order: list[str], made: dict[str, str],
             make: Callable[[str], str]) -> dict[str, AttnError]:
    """Each block's walkthrough (`texts` in the document's order) made into `made`, in `order`
    (those naming one spec file one after another, which is then read once); at the first that
    fails, only the blocks before it in the document are made still, so the error returned is
    the document's first, for no more work than the document's order would have cost."""
    failed: dict[str, AttnError] = {}
    with one_reading():
        for text in order:
            try:
                made[text] = make(text)
            except AttnError as error:
                failed[text] = error
                break
        if failed:
            for text in texts[:texts.index(next(iter(failed)))]:
                if text not in made:
                    try:
                        made[text] = make(text)
                    except AttnError as error:
                        return {text: error}
    return failed


SPEC_LINE = re.compile(r"^spec:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def named_spec(text: str) -> str:
    """The spec file a block's `spec:` line names, as written ("" for none): the order in
    which the blocks are worked out, so that those naming one file come one after another."""
    found = SPEC_LINE.search(text)
    return found.group(1) if found else ""

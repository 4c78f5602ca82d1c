"""Writing (or checking) the snippets a manifest lists, in one process.

Each spec is loaded and built once, then rendered in every format and language asked for. A
file is rewritten only when its bytes would change. Nothing here prints: `generate` returns an
Outcome per snippet and the command decides what to say
(attncli/commands/snippets.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from attncli.budget import check_view
from attncli.errors import AttnError, Location, SpecError
from attncli.files import NotRegular, read_regular, write_atomic
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem
from attncli.limits import MIN_BYTES, max_bytes
from attncli.manifest import Target
from attncli.show import Shown
from attncli.spec.model import Spec
from attncli.view import Loading, View

# written/unchanged when writing; stale/missing/unchanged when checking; failed in both
Status = Literal["written", "unchanged", "stale", "missing", "failed"]


@dataclass(frozen=True)
class Outcome:
    target: Target
    status: Status
    new: str | None = None  # the snippet as it should be
    old: str | None = None  # the file as it was, when it existed
    error: AttnError | None = None


@dataclass(frozen=True)
class Report:
    outcomes: tuple[Outcome, ...]

    def count(self, *statuses: Status) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status in statuses)

    def errors(self) -> list[AttnError]:
        """Each error once, although every snippet of a broken spec carries it."""
        seen: dict[int, AttnError] = {}
        for outcome in self.outcomes:
            if outcome.error is not None:
                seen.setdefault(id(outcome.error), outcome.error)
        return list(seen.values())


def snippet(shown: Shown, target: Target) -> str:
    """The snippet's text: exactly what `attn explain --format F --lang L` (or `attn export`)
    with the entry's options prints, ending in one newline."""
    from attncli.render import render
    from attncli.render.bare import render_matrix

    options = {"precision": target.precision}
    if shown.matrix is not None:
        text = render_matrix(shown.walkthrough, shown.matrix, target.format, **options)
    else:
        text = render(shown.walkthrough, target.format, target.lang, **options)
    return text if text.endswith("\n") else text + "\n"


def generate(targets: Iterable[Target], write: bool,
             tick: Callable[[], None] = lambda: None, loading: Loading | None = None) -> Report:
    """Render every target; with `write`, rewrite the files whose content changed.

    `tick` is called once per snippet (for a progress bar); `loading` says how specs are read.
    """
    from attncli.render import ELIDING
    from attncli.show import prepare
    from attncli.spec import load_spec
    from attncli.walkthrough import summarizes

    # A spec is read once and built once for each choice of what to show; a large one twice
    # when formats that elide (built as `attn explain` builds for them, see build's `summary`)
    # and formats that show every number are both asked for.
    loaded: dict[Path, Spec | AttnError] = {}
    built: dict[tuple[Path, View], Shown | AttnError] = {}
    outcomes = []
    for target in targets:
        if target.spec not in loaded:
            try:
                loaded[target.spec] = load_spec(target.spec.as_posix(),
                                                **vars(loading or Loading()))
            except AttnError as error:
                loaded[target.spec] = error
        spec = loaded[target.spec]
        # one matrix alone (--matrix) is whole in every format but text's labelled grid
        alone = target.view.matrix is not None and target.format != "text"
        summary = (not isinstance(spec, AttnError) and target.format in ELIDING
                   and not alone and summarizes(spec))
        key = (target.spec, replace(target.view, summary=summary))
        if key not in built:
            try:
                if not isinstance(spec, AttnError):
                    check_view(spec, key[1], (loading or Loading()).max_cells, target.format)
                built[key] = spec if isinstance(spec, AttnError) else prepare(spec, key[1])
            except AttnError as error:
                built[key] = error
        walkthrough = built[key]
        if isinstance(walkthrough, AttnError):
            outcomes.append(Outcome(target, "failed", error=walkthrough))
        else:
            limit = max_bytes((loading or Loading()).max_cells)
            outcomes.append(compare_and_write(target, walkthrough, write, limit))
        tick()
    return Report(tuple(outcomes))


def compare_and_write(target: Target, shown: Shown, write: bool,
                      limit: int = MIN_BYTES) -> Outcome:
    """The snippet's outcome. The file there is read only if it is a regular file (no link is
    followed, no device or FIFO opened) of at most `limit` bytes, so a link to a secret is never
    diffed into a CI log and nothing blocks."""
    try:
        new = snippet(shown, target)
    except AttnError as error:
        return Outcome(target, "failed", error=error)
    path = target.output
    try:
        old_bytes = read_regular(path, limit)
    except NotRegular as problem:
        return Outcome(target, "failed", new=new, error=SpecError(
            Msg.of("cannot write the file: {reason}", reason=problem.message),
            Location(path.as_posix())))
    except OSError as exc:
        return Outcome(target, "failed", new=new, error=cannot_write(path, exc))
    if old_bytes == new.encode("utf-8"):
        return Outcome(target, "unchanged", new=new, old=new)
    old = None if old_bytes is None else old_bytes.decode("utf-8", errors="replace")
    if not write:
        return Outcome(target, "missing" if old is None else "stale", new=new, old=old)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, new, follow=False)
    except OSError as exc:
        return Outcome(target, "failed", new=new, old=old, error=cannot_write(path, exc))
    except AttnError as error:
        return Outcome(target, "failed", new=new, old=old, error=error)
    return Outcome(target, "written", new=new, old=old)


def cannot_write(path: Path, exc: OSError) -> SpecError:
    return SpecError(Msg.of("cannot write the file: {reason}", reason=os_problem(exc)),
                     Location(path.as_posix()))


def unified_diff(outcome: Outcome) -> str:
    """The change that writing would make, as a unified diff that `git apply` reads from the
    current folder (no timestamps: the same input gives the same diff)."""
    name = outcome.target.output.as_posix()
    before = "/dev/null" if outcome.old is None else f"a/{name}"
    lines = difflib.unified_diff(
        (outcome.old or "").splitlines(keepends=True),
        (outcome.new or "").splitlines(keepends=True),
        fromfile=before, tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)

"""Writing (or checking) the snippets a manifest lists, in one process.

Each spec is loaded and built once, then rendered in every format and language asked for. A
file is rewritten only when its bytes would change. Nothing here prints: `generate` returns an
Outcome per snippet and the command decides what to say (cli.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from attncli.errors import AttnError, Location, SpecError
from attncli.files import write_atomic
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem
from attncli.manifest import Target
from attncli.model import Walkthrough
from attncli.spec.model import Spec
from attncli.view import Loading

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


def snippet(walkthrough: Walkthrough, target: Target) -> str:
    """The snippet's text: exactly what `attn explain --format F --lang L` prints, ending in
    one newline."""
    from attncli.render import render

    text = render(walkthrough, target.format, target.lang, precision=target.precision)
    return text if text.endswith("\n") else text + "\n"


def generate(targets: Iterable[Target], write: bool,
             tick: Callable[[], None] = lambda: None, loading: Loading | None = None) -> Report:
    """Render every target; with `write`, rewrite the files whose content changed.

    `tick` is called once per snippet (for a progress bar); `loading` says how specs are read.
    """
    from attncli.render import ELIDING
    from attncli.spec import load_spec
    from attncli.walkthrough import build, summarizes

    # A spec is read once and built once; a large one twice when formats that elide (built as
    # `attn explain` builds for them, see build's `summary`) and formats that show every number
    # are both asked for.
    loaded: dict[Path, Spec | AttnError] = {}
    built: dict[tuple[Path, bool], Walkthrough | AttnError] = {}
    outcomes = []
    for target in targets:
        if target.spec not in loaded:
            try:
                loaded[target.spec] = load_spec(target.spec.as_posix(),
                                                **vars(loading or Loading()))
            except AttnError as error:
                loaded[target.spec] = error
        spec = loaded[target.spec]
        summary = (not isinstance(spec, AttnError) and target.format in ELIDING
                   and summarizes(spec))
        key = (target.spec, summary)
        if key not in built:
            try:
                built[key] = spec if isinstance(spec, AttnError) else build(spec, summary=summary)
            except AttnError as error:
                built[key] = error
        walkthrough = built[key]
        if isinstance(walkthrough, AttnError):
            outcomes.append(Outcome(target, "failed", error=walkthrough))
        else:
            outcomes.append(compare_and_write(target, walkthrough, write))
        tick()
    return Report(tuple(outcomes))


def compare_and_write(target: Target, walkthrough: Walkthrough, write: bool) -> Outcome:
    try:
        new = snippet(walkthrough, target)
    except AttnError as error:
        return Outcome(target, "failed", error=error)
    path = target.output
    try:
        old_bytes: bytes | None = path.read_bytes()
    except FileNotFoundError:
        old_bytes = None
    except OSError as exc:
        return Outcome(target, "failed", new=new, error=cannot_write(path, exc))
    if old_bytes == new.encode("utf-8"):
        return Outcome(target, "unchanged", new=new, old=new)
    old = None if old_bytes is None else old_bytes.decode("utf-8", errors="replace")
    if not write:
        return Outcome(target, "missing" if old is None else "stale", new=new, old=old)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, new)
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

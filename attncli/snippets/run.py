"""Writing (or checking) the snippets a manifest lists, in one process.

Each spec is loaded and built once, then rendered in every format and language asked for. A
file is rewritten only when its bytes would change. Nothing here prints: `generate` returns an
Outcome per snippet and the command decides what to say
(attncli/cli/snippets.py).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Literal

from attncli.errors import AttnError, Location, SpecError, UsageError
from attncli.files.reading import NotRegular, read_regular
from attncli.files.writing import write_atomic
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem
from attncli.records import record
from attncli.snippets.manifest import Target
from attncli.snippets.rules import check_inputs, check_unread
from attncli.spec.arrays import shared_reads
from attncli.spec.files import model_folders, recording
from attncli.spec.limits import MIN_BYTES, max_bytes
from attncli.spec.model import Spec
from attncli.spec.scope import scoped
from attncli.spec.view import Loading, View
from attncli.steps.budget import check_view, located
from attncli.steps.show import Shown
from attncli.workers.pool import each

# written/unchanged when writing; stale/missing/unchanged when checking; failed in both
Status = Literal["written", "unchanged", "stale", "missing", "failed"]
# What an outcome carries back from the process that made it: the texts (to write them), the
# diff (--diff), or nothing but its status (--check).
Keep = Literal["texts", "diff", "status"]


@record
class Outcome:
    target: Target
    status: Status
    new: str | None = None  # the snippet as it should be, when it is to be written
    old: str | None = None  # the file as it was, when it existed and is to be written
    error: AttnError | None = None
    diff: str | None = None  # the change writing would make, when asked for (unified_diff)


@record
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
             tick: Callable[[], None] = lambda: None, loading: Loading | None = None,
             jobs: int = 1, diff: bool = False) -> Report:
    """Render every target; with `write`, rewrite the files whose content changed; with
    `diff`, each changed snippet's outcome carries its unified diff.

    `tick` is called once per snippet (for a progress bar); `loading` says how specs are read;
    `jobs` is how many specs are rendered at once, each in a process of its own (forked, so
    where a platform cannot fork, one at a time). The outcomes are in the order of `targets`,
    whatever the number of jobs. Nothing is written until every spec has been read: SpecError,
    and nothing written, if a snippet would replace a file that a spec reads.
    """
    planned = list(targets)
    groups: dict[Path, list[int]] = {}  # a spec's snippets are made in one process
    for k, target in enumerate(planned):
        groups.setdefault(target.spec, []).append(k)
    keep: Keep = "texts" if write else "diff" if diff else "status"
    work = [([planned[k] for k in ks], keep, loading or Loading()) for ks in groups.values()]
    outcomes: list[Outcome | None] = [None] * len(planned)
    read: dict[Path, Path] = {}
    models: dict[Path, Path] = {}  # folders read as a model's: nothing is written inside them
    unread: list[Path] = []  # specs that could not be read: what they read is not known
    with shared_reads():  # the specs of a process read a file they share once
        for ks, (made, named, folders, failed) in zip(groups.values(), _each(work, jobs),
                                                      strict=True):
            read.update((path, shown_path(path)) for path in named)
            models.update((path, shown_path(path)) for path in folders)
            unread.extend(failed)
            for k, outcome in zip(ks, made, strict=True):
                outcomes[k] = outcome
                tick()
    check_inputs(((target.output, target.real, target.where) for target in planned), read,
                 models)
    check_unread(((target.output, target.real, target.where) for target in planned), unread,
                 max_bytes((loading or Loading()).max_cells))
    made_all = tuple(o for o in outcomes if o is not None)
    return Report(tuple(map(write_snippet, made_all)) if write else made_all)


Work = tuple[list[Target], Keep, Loading]
# the specs of this piece of work that could not be read (see _made)
_UNREAD: ContextVar[list[Path] | None] = ContextVar("attn_snippets_unread", default=None)


def _each(work: list[Work],
          jobs: int) -> Iterator[tuple[list[Outcome], list[Path], list[Path], list[Path]]]:
    """`_made` of each piece of work, in order: in up to `jobs` forked processes at once when
    there is more than one piece (attncli/workers/pool.py). The first is made here: the
    renderers, catalogs and notation it loads then serve every worker (forked after it), none
    of which loads them again."""
    return each([partial(_made, piece) for piece in work], jobs, first_here=True)


def _made(work: Work) -> tuple[list[Outcome], list[Path], list[Path], list[Path]]:
    """The outcomes of one spec's snippets, the files the spec reads and the folders it reads
    as a model's (resolved), and the spec itself if it could not be read."""
    from attncli.render.drawn import several_languages

    with (scoped(_UNREAD, []) as unread, recording() as named, model_folders() as folders,
          several_languages()):
        made = _spec_snippets(work)
    return made, named, folders, unread


def shown_path(path: Path) -> Path:
    """A resolved path as a user names it: from the current folder when it is below it."""
    try:
        return path.relative_to(Path.cwd().resolve())
    except (ValueError, OSError):  # not below it, or the current folder deleted
        return path


def _spec_snippets(work: Work) -> list[Outcome]:
    """The outcomes of one spec's snippets: the spec is read once and built once for each
    choice of what to show; a large one twice when formats that elide (built as `attn
    explain` builds for them, see build's `summary`) and formats that show every number are
    both asked for."""
    from attncli.render import ELIDING
    from attncli.spec import load_spec
    from attncli.steps.build import summarizes
    from attncli.steps.show import held, prepare

    targets, keep, loading = work
    try:
        spec: Spec | AttnError = load_spec(targets[0].spec.as_posix(), **vars(loading))
    except AttnError as error:
        spec = without_frames(error)
        unread = _UNREAD.get()
        if unread is not None:
            unread.append(targets[0].spec)
    built: dict[View, Shown | AttnError] = {}
    outcomes = []
    for target in targets:
        # one matrix alone (--matrix) is whole in every format but text's labelled grid
        alone = target.view.matrix is not None and target.format != "text"
        summary = (not isinstance(spec, AttnError) and target.format in ELIDING
                   and not alone and summarizes(spec))
        view = replace(target.view, summary=summary)
        if target.format == "html" and not view.expand:  # as `attn export --html` writes it
            view = replace(view, expand=("shown",))
        if view not in built:
            try:
                if not isinstance(spec, AttnError):
                    check_view(spec, view, loading.max_cells, target.format,
                               view.where.get("format"), target.spec.as_posix())
                built[view] = spec if isinstance(spec, AttnError) else held(
                    prepare(spec, view, loading.max_cells))
            except UsageError as error:  # the cells HTML shows by default, past the limit:
                # said of the spec and the format that asked for them
                built[view] = without_frames(located(error, view.where.get("format"),
                                                     target.spec.as_posix()))
            except AttnError as error:
                built[view] = without_frames(error)
        walkthrough = built[view]
        if isinstance(walkthrough, AttnError):
            outcomes.append(Outcome(target, "failed", error=walkthrough))
        else:
            outcomes.append(carried(compare_and_write(target, walkthrough, False,
                                                      max_bytes(loading.max_cells)), keep))
    return outcomes


def without_frames(error: AttnError) -> AttnError:
    """The error without the frames it was raised through and the error it was raised from,
    which hold what was being read, a spec's whole text among it: it is kept for every spec of
    the tree that fails, and is only ever printed as its line. 20 specs of 39 MB refused for a
    NUL held 2.3 GB under `attn snippets --check --jobs 1`."""
    error.__traceback__ = None
    error.__context__ = error.__cause__ = None
    return error


def carried(outcome: Outcome, keep: Keep) -> Outcome:
    """The outcome with only what the command will use: the texts of a snippet to be written,
    the diff of a changed one. What a worker sends back and the command holds for the whole
    tree then grows with the changes, not with the documents (48 specs in 4 formats, all
    stale: --check 148 MB -> 47 MB, --diff 151 MB -> 49 MB, as for 12 specs)."""
    if outcome.status == "unchanged" or keep == "status":
        return replace(outcome, new=None, old=None)
    if keep == "diff":
        return replace(outcome, new=None, old=None, diff=unified_diff(outcome))
    return outcome


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
    outcome = Outcome(target, "missing" if old is None else "stale", new=new, old=old)
    return write_snippet(outcome) if write else outcome


def write_snippet(outcome: Outcome) -> Outcome:
    """A stale or missing snippet written (without an exec bit: files.writing.write_atomic's
    `plain`); any other outcome as it is."""
    if outcome.status not in ("stale", "missing") or outcome.new is None:
        return outcome
    path = outcome.target.output
    made = missing_folders(path.parent)
    try:
        for folder in reversed(made):  # one at a time: mkdir(parents=True) recurses a level each
            folder.mkdir(exist_ok=True)
        write_atomic(path, outcome.new, follow=False, plain=True)
    except OSError as exc:
        remove_empty(made)
        return replace(outcome, status="failed", error=cannot_write(path, exc))
    except AttnError as error:
        remove_empty(made)
        return replace(outcome, status="failed", error=error)
    return replace(outcome, status="written")


def missing_folders(folder: Path) -> list[Path]:
    """The folders of `folder`'s path that do not exist yet, the deepest first: those that
    writing a snippet there makes."""
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_empty(folders: list[Path]) -> None:
    """Remove `folders` (the deepest first) made for a snippet that was then not written, so a
    refusal leaves the tree as it was; stop at the first that is not empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


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

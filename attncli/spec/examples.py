"""The example specs bundled with attn (the `configs/` folder of the source tree)."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from attncli.errors import UsageError
from attncli.i18n import DEFAULT_LANG, Msg
from attncli.i18n.comments import translated_comments
from attncli.i18n.suggest import closest

if TYPE_CHECKING:
    from attncli.spec.node import Node

DEFAULT_EXAMPLE = "cat_chases_mouse"
# The keys whose text names a file the spec reads, relative to the spec: `{file: ...}` of a
# matrix, an image or a checkpoint, `tokens: {tokenizer: ...}`.
READ_KEYS = ("file", "tokenizer")


def examples_dir() -> Path:
    installed = Path(__file__).parent.parent / "configs"  # inside a wheel
    if installed.is_dir():
        return installed
    return Path(__file__).parent.parent.parent / "configs"  # a source checkout


def example_path(name: str = DEFAULT_EXAMPLE) -> Path:
    return examples_dir() / f"{name}.yaml"


def example_names() -> list[str]:
    """The bundled examples' names, sorted."""
    return sorted(path.stem for path in examples_dir().glob("*.yaml"))


def example_text(name: str, lang: str = DEFAULT_LANG) -> str:
    """The spec of the example `name`, as written, to copy and edit: its comments in `lang`
    (the data is the same in every language)."""
    names = example_names()
    if name not in names:
        close = closest(name, names)
        if close:
            raise UsageError(Msg.of("no example named {name}; did you mean {suggestion}?",
                                    name=name, suggestion=close))
        raise UsageError(Msg.of("no example named {name}; run attn examples to list them",
                                name=name))
    return translated_comments(example_path(name).read_text(encoding="utf-8"), lang)


def example_title(name: str, lang: str) -> str:
    """The example's title in `lang` (or its only title), read without building it."""
    from attncli.spec.source import parse
    from attncli.spec.values import localized

    root = parse(example_path(name).name, example_text(name))
    node = root.get("title")
    if node is None:
        return ""
    titles = localized(node)
    for key in (lang, "", "en"):
        if key in titles:
            return titles[key]
    return ""


def example_files(name: str) -> list[str]:
    """The files the example `name` reads, as its spec names them (beside it: `data/...`), each
    once, in the order it names them."""
    from attncli.spec.source import parse

    found: list[str] = []

    def walk(node: Node) -> None:
        if node.numbers is not None:  # a row of numbers
            return
        if isinstance(node.value, dict):
            for key, child in node.value.items():
                if key in READ_KEYS and isinstance(child.value, str):
                    found.extend([child.value] if child.value not in found else [])
                else:
                    walk(child)
        elif isinstance(node.value, list):
            for child in node.value:
                walk(child)

    walk(parse(example_path(name).name, example_text(name)))
    return found


def write_example(name: str, folder: Path, lang: str = DEFAULT_LANG) -> list[Path]:
    """Write the example `name` into `folder`: its spec (`NAME.yaml`, comments in `lang`) and
    every file it reads, at the same place beside it, so the copy runs as the bundled one does.
    Refuses, before writing anything, a file that is there already, a place that a link takes
    outside `folder` and a folder on the way that is a file, a pipe or a device; if a write
    fails after all (a full disk, a file made meanwhile), what this call wrote is removed.
    Returns the files written, the spec first."""
    pieces: list[tuple[str, bytes]] = [(f"{name}.yaml", example_text(name, lang).encode())]
    pieces += [(read, (examples_dir() / read).read_bytes()) for read in example_files(name)]
    targets = [folder / relative for relative, _ in pieces]
    for target in targets:  # before any folder on the way is looked at
        check_length(target)
    top = real_path(folder, targets[0])
    for target in targets:
        if os.path.lexists(target):
            raise exists(target)
        if not real_path(target, target).is_relative_to(top):
            raise UsageError(Msg.of("{file} would be written outside {folder}, where a link "
                                    "leads", file=str(target), folder=str(folder)))
        check_folders(target)
    made: list[str] = []  # removed, the last first, if a later write fails
    with contextlib.ExitStack() as closing:
        staged = staged_copies(folder, targets, [data for _, data in pieces], closing)
        try:
            for k, (target, (_, data)) in enumerate(zip(targets, pieces, strict=True)):
                make_folders(target, made)
                write_piece(target, data, staged[k] if staged else None)
                made.append(str(target))
        except BaseException:
            for path in reversed(made):
                with contextlib.suppress(OSError):
                    is_folder = os.path.isdir(path) and not os.path.islink(path)
                    os.rmdir(path) if is_folder else os.unlink(path)
            raise
    return targets


def staged_copies(folder: Path, targets: list[Path], datas: list[bytes],
                  closing: contextlib.ExitStack) -> list[BinaryIO] | None:
    """Every piece written whole, before any name or folder is made, to a file with no name yet
    (Linux's O_TMPFILE) in the nearest folder that is there, to be named in place: a write that
    fails (a full disk, `ulimit -f`, a signal) then leaves nothing, even in an append-only folder
    (`chattr +a`), where what was made could not be removed again (the spec and a data folder
    stayed, or half a file). None where the system makes no such file."""
    from attncli.files.writing import cannot_write, file_mode, unnamed_file
    from attncli.i18n.library_messages import os_problem

    base = Path(next((place for place in itertools.chain((str(folder),), ancestors(folder))
                      if os.path.isdir(place)), "."))
    staged: list[BinaryIO] = []
    for target, data in zip(targets, datas, strict=True):
        try:
            handle = unnamed_file(base)
            if handle is None:
                return None
            out = closing.enter_context(os.fdopen(handle, "w+b", buffering=0))
            view = memoryview(data)
            while view:  # unbuffered: a refusal is raised here, not again as it is closed
                view = view[out.write(view):]
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), file_mode(target, plain=False))
        except OSError as error:
            raise cannot_write(target, os_problem(error)) from None
        staged.append(out)
    return staged


def real_path(path: Path, target: Path) -> Path:
    """`path` with its links followed (attncli/files/reading.py `real`); where that cannot be,
    the reason `target` cannot be written."""
    from attncli.files.reading import real
    from attncli.files.writing import cannot_write
    from attncli.i18n.library_messages import os_problem

    try:
        try:
            return Path(os.path.realpath(path))  # a link loop is left for the write to say
        except FileNotFoundError:
            return real(path)
    except OSError as error:
        raise cannot_write(target, os_problem(error)) from None


def exists(target: Path) -> UsageError:
    return UsageError(Msg.of("{file} exists already; attn examples --to writes over no file: "
                             "choose another folder", file=str(target)))


def check_folders(target: Path) -> None:
    """UsageError if a folder `target` is written into is there but no folder (a file, a pipe,
    a device, a link that leads nowhere or in a loop)."""
    from attncli.files.reading import kind_of
    from attncli.files.writing import cannot_write

    for parent in ancestors(target):  # the nearest first; above a folder, all are folders
        if os.path.isdir(parent):
            return
        if os.path.lexists(parent):
            raise cannot_write(target, Msg.of("{path}: this is {kind}, expected a folder",
                                              path=parent,
                                              kind=kind_of(os.lstat(parent).st_mode)))


def check_length(target: Path) -> None:
    """UsageError (the name is too long, as the system says it) for a path longer than the
    system takes (PATH_MAX): refused before any folder on the way is looked at or made, as
    every one of them would be looked at for nothing."""
    from attncli.files.writing import cannot_write
    from attncli.i18n.library_messages import os_problem

    if len(os.fsencode(target)) >= path_max():
        error = OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        raise cannot_write(target, os_problem(error))


def path_max() -> int:
    """The bytes a path may have, its final NUL included (Linux's PATH_MAX, 4,096)."""
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):
        return 4096


def ancestors(path: Path) -> Iterator[str]:
    """The folders `path` is in, the nearest first, ending with `/` or `.`: each made only as
    it is asked for, so a path n folders deep is walked holding one of them at a time
    (Path.parents made every one a path of its own, n paths of up to n names)."""
    text = str(path)
    at = text.rfind(os.sep)
    while at > 0:
        yield text[:at]
        at = text.rfind(os.sep, 0, at)
    yield os.sep if at == 0 else "."


def make_folders(target: Path, made: list[str]) -> None:
    """Make the folders `target` needs, the outermost first, each added to `made`. Each is
    looked at as it comes: in `new/../b/d`, `new/..` is there once `new` is made. Each is made
    and entered from the one before it, held open: n folders are n steps, where made by their
    whole paths each was looked up again from the start (quadratic in the depth)."""
    from attncli.files.writing import CLOEXEC, cannot_write
    from attncli.i18n.library_messages import os_problem

    text = str(target)
    start = 1 if text.startswith(os.sep) else 0
    folder = os.O_RDONLY | os.O_DIRECTORY | CLOEXEC
    try:
        here = os.open(os.sep if start else ".", folder)
        try:
            at = text.find(os.sep, start)
            while at != -1:
                if name := text[start:at]:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, dir_fd=here)
                        made.append(text[:at])
                    inner = os.open(name, folder, dir_fd=here)
                    os.close(here)
                    here = inner
                start, at = at + 1, text.find(os.sep, at + 1)
        finally:
            os.close(here)
    except OSError as error:
        raise cannot_write(target, os_problem(error)) from None


def write_piece(target: Path, data: bytes, staged: BinaryIO | None) -> None:
    """`data` at `target`, which must not exist: the `staged` copy given that name (another
    file system on the way: written again there), or written there now."""
    from attncli.files.writing import cannot_write, link, write_new
    from attncli.i18n.library_messages import os_problem

    try:
        if staged is None:
            write_new(target, data)
            return
        try:
            link(staged, target.parent if str(target.parent) else Path("."), target.name)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            write_new(target, data)
    except FileExistsError:
        raise exists(target) from None
    except OSError as error:
        raise cannot_write(target, os_problem(error)) from None

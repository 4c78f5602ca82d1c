"""The example specs bundled with attn (the `configs/` folder of the source tree)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

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
    Refuses, before writing anything, a file that is there already and a place that a link
    takes outside `folder`; returns the files written, the spec first."""
    from attncli.files import cannot_write, write_atomic
    from attncli.i18n.library_messages import os_problem

    pieces: list[tuple[str, str | bytes]] = [(f"{name}.yaml", example_text(name, lang))]
    pieces += [(read, (examples_dir() / read).read_bytes()) for read in example_files(name)]
    top = Path(os.path.realpath(folder))
    targets = [folder / relative for relative, _ in pieces]
    for target in targets:
        if os.path.lexists(target):
            raise UsageError(Msg.of("{file} exists already; attn examples --to writes over no "
                                    "file: choose another folder", file=str(target)))
        if not Path(os.path.realpath(target)).is_relative_to(top):
            raise UsageError(Msg.of("{file} would be written outside {folder}, where a link "
                                    "leads", file=str(target), folder=str(folder)))
    for target, (_, data) in zip(targets, pieces, strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # the folder named is a file or a device (--to /dev/null)
            raise cannot_write(target, Msg.of("a part of the path is a file, not a folder")) \
                from None
        except OSError as error:
            raise cannot_write(target, os_problem(error)) from None
        write_atomic(target, data)
    return targets

"""The example specs bundled with attn (the `configs/` folder of the source tree)."""

from __future__ import annotations

from pathlib import Path

from attncli.errors import UsageError
from attncli.i18n import DEFAULT_LANG, Msg
from attncli.i18n.comments import translated_comments
from attncli.i18n.suggest import closest

DEFAULT_EXAMPLE = "cat_chases_mouse"


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

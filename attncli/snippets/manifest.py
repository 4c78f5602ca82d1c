"""The snippets manifest (`attn.toml` or `snippets.yaml`): which specs to write, in which formats
and languages, and where.

Both files hold the same thing, a list named `snippets`; each entry reads

    specs = "posts/**/*.attn.yaml"           # a glob or a list of globs, from the manifest's folder
    formats = ["text", "json"]               # formats with a file extension (render.EXTENSIONS)
    languages = ["en"]                       # optional, default ["en"]
    output = "snippets/{name}.{lang}.{ext}"  # {name} {dir} {lang} {format} {ext}
    precision = 3                            # optional, default: each spec's display.precision
    steps = ["weights"]                      # optional, what `attn explain` options choose:
    expand = "none"                          #   --steps, --expand, --head, --no-reading,
    head = 2                                 #   --no-header, --md-flavor, --matrix
    reading = false                          #   (default: each spec's display, else all)
    header = false
    md_flavor = "katex"
    matrix = "A:2"

Errors name the file, line:column and key path. YAML's Node tree keeps marks; TOML's reader
keeps none, so toml_tree finds each key and value in the text. A manifest holds at most
MAX_ENTRIES entries, counted before any is checked; each glob written is expanded once, however
many entries write it.
"""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from attncli.errors import Location, SpecError, UsageError
from attncli.files.reading import NotRegular, check_regular, read_regular
from attncli.i18n import DEFAULT_LANG, LANGUAGES, Msg
from attncli.i18n.library_messages import os_problem
from attncli.records import record
from attncli.render import EXTENSIONS, file_formats
from attncli.snippets.output_template import check_name_lengths, name_max, template
from attncli.snippets.rules import check_output
from attncli.snippets.spec_glob import matching
from attncli.snippets.toml_tree import MAX_ENTRIES, toml_tree, too_many_entries
from attncli.spec.limits import MAX_PRECISION, MIN_BYTES
from attncli.spec.source import Node, decode, parse
from attncli.spec.values import (
    check_keys,
    choice,
    fail,
    integer,
    items,
    text,
)
from attncli.spec.view import View
from attncli.spec.view_keys import VIEW_KEYS, view

MANIFEST_NAMES = ("attn.toml", "snippets.yaml")
TOP_KEYS = ("snippets",)
ENTRY_KEYS = ("specs", "formats", "languages", "output", "precision", *VIEW_KEYS)
SPEC_SUFFIXES = (".yaml", ".yml", ".json")
GLOB_CHARACTERS = frozenset("*?[")


@record
class Pattern:
    text: str
    where: Location


@record
class Entry:
    """One entry of the manifest, validated; the globs are expanded by `targets`."""

    specs: tuple[Pattern, ...]
    formats: tuple[str, ...]
    languages: tuple[str, ...]
    output: str
    output_where: Location
    precision: int | None
    view: View  # what to show: steps, head ... (see entry_view)
    format_where: tuple[Location, ...] = ()  # where each of `formats` is written


@record
class Manifest:
    path: Path
    entries: tuple[Entry, ...]

    @property
    def root(self) -> Path:
        """The folder that every path in the manifest is relative to."""
        return self.path.parent


@record
class Target:
    """One snippet file: a spec written in one format and language. Paths are as shown to the
    user (the manifest's folder joined with the path written in the manifest)."""

    spec: Path
    format: str
    lang: str
    output: Path
    precision: int | None
    view: View  # the entry's choices of what to show
    real: Path  # the output as links resolve it
    where: Location  # the entry's output, where the manifest names it


def find_manifest(folder: Path) -> Path:
    """The manifest in `folder`: attn.toml or snippets.yaml (not both); one that is there but no
    regular file (a folder, a FIFO) is found, and load_manifest says what it is."""
    found = [folder / name for name in MANIFEST_NAMES if os.path.lexists(folder / name)]
    if not found:
        first, second = MANIFEST_NAMES  # named apart: "or" is a word to translate
        raise UsageError(Msg.of("no manifest here: expected {first} or {second} in the current "
                                "folder, or a manifest path", first=first, second=second))
    if len(found) > 1:
        raise UsageError(Msg.of("found both {first} and {second}; name the one to use",
                                first=MANIFEST_NAMES[0], second=MANIFEST_NAMES[1]))
    return found[0]


def load_manifest(path: Path) -> Manifest:
    """The validated manifest at `path`; SpecError (exit 2) naming file and key path if not.
    It is read like a snippet: a regular file (no link, device or FIFO) of at most MIN_BYTES."""
    name = path.as_posix()
    try:
        data = read_regular(path, MIN_BYTES)
    except NotRegular as problem:
        raise SpecError(problem.message, Location(name)) from None
    except (OSError, ValueError) as exc:
        raise SpecError(Msg.of("cannot read the file: {reason}",
                               reason=os_problem(exc) if isinstance(exc, OSError) else str(exc)),
                        Location(name)) from None
    if data is None:
        raise SpecError(Msg.of("no such file"), Location(name))
    content = decode(name, data) if data.strip() else ""
    if all(not line.strip() or line.lstrip().startswith("#") for line in content.splitlines()):
        # no byte, or only comments (`#` in TOML and YAML alike): one message for both
        raise SpecError(Msg.of("the manifest is empty, expected a list named snippets"),
                        Location(name))
    root = toml_tree(name, content) if path.suffix == ".toml" else parse(name, content)
    top = check_keys(root, TOP_KEYS)
    if "snippets" not in top:
        fail(root, "the key {key} is missing", key="snippets")
    entries = items(top["snippets"], Msg.of("a list of snippet entries"))
    if len(entries) > MAX_ENTRIES:  # a YAML manifest's (a TOML one's is counted as it is read)
        raise SpecError(too_many_entries(entries[MAX_ENTRIES].where.path),
                        entries[MAX_ENTRIES].where)
    return Manifest(path, tuple(entry(node) for node in entries))


def entry(node: Node) -> Entry:
    keys = check_keys(node, ENTRY_KEYS)
    for key in ("specs", "formats", "output"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    languages: tuple[str, ...] = (DEFAULT_LANG,)
    if "languages" in keys:
        languages = unique(choice(lang, LANGUAGES)
                           for lang in items(keys["languages"], Msg.of("a list of languages")))
    output = keys["output"]
    formats: dict[str, Location] = {}
    for node in items(keys["formats"], Msg.of("a list of formats")):
        formats.setdefault(format_name(node), node.where)
    return Entry(
        specs=patterns(keys["specs"]),
        formats=tuple(formats),
        format_where=tuple(formats.values()),
        languages=languages,
        output=template(output),
        output_where=output.where,
        precision=(integer(keys["precision"], 0, MAX_PRECISION)
                   if "precision" in keys else None),
        view=entry_view(node, keys),
    )


def entry_view(node: Node, keys: dict[str, Node]) -> View:
    """The entry's choices, each as its `attn explain` option takes it (see view_keys.view)."""
    return view(keys)


def unique(values: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def format_name(node: Node) -> str:
    return choice(node, file_formats())


def patterns(node: Node) -> tuple[Pattern, ...]:
    nodes = [node] if isinstance(node.value, str) else items(
        node, Msg.of("a glob or a list of globs"))
    found = []
    for child in nodes:
        pattern = text(child)
        if PurePosixPath(pattern).is_absolute():
            fail(child, "expected a path relative to the manifest's folder, found {found}",
                 found=pattern)
        if ".." in PurePosixPath(pattern).parts:  # never a search, or a name, outside the tree
            fail(child, "expected a path inside the manifest's folder, found {found}",
                 found=pattern)
        found.append(Pattern(pattern, child.where))
    return tuple(found)


def spec_name(path: Path) -> str:
    """`posts/cat.attn.yaml` -> `cat`: the file name less its spec suffix and a final `.attn`."""
    name = path.name
    for suffix in SPEC_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name[: -len(".attn")] if name.endswith(".attn") else name


def expand(pattern: Pattern, root: Path) -> list[Path]:
    """The spec files `pattern` names, relative to `root`, sorted; SpecError if none, or if one
    is not a regular file inside `root` (a symbolic link, a FIFO, a device, or a file reached
    through a linked folder that leads out of the tree)."""
    if GLOB_CHARACTERS.isdisjoint(pattern.text):
        found = [Path(pattern.text)] if os.path.lexists(root / pattern.text) else []
    else:
        found = sorted(matching(root, pattern.text), key=lambda path: path.as_posix())
    if not found:
        raise SpecError(Msg.of("{path}: {pattern} matches no spec file",
                               path=pattern.where.path, pattern=pattern.text), pattern.where)
    real_root = root.resolve()
    for spec in found:
        try:
            check_regular(root / spec, follow=False)
            inside(real_root, root / spec)
        except NotRegular as problem:
            raise SpecError(Msg.of("{path}: {problem}", path=spec.as_posix(),
                                   problem=problem.message), pattern.where) from None
    return found


def inside(real_root: Path, path: Path) -> Path:
    """The resolved `path`; NotRegular if it leads outside `real_root` (through `..` or a link)
    or into a loop of links."""
    try:
        real = path.resolve()
    except RuntimeError:  # Python before 3.13 says so of a loop of links
        raise NotRegular(os_problem(OSError(errno.ELOOP, os.strerror(errno.ELOOP)))) from None
    if not real.is_relative_to(real_root):
        raise NotRegular(Msg.of("this path leads outside the manifest's folder; attn snippets "
                                "reads and writes only files inside it"))
    return real


def targets(manifest: Manifest) -> list[Target]:
    """Every snippet the manifest asks for, in manifest order; SpecError when one would be
    written outside the manifest's folder, where snippets are never written (snippets/rules.py)
    or over the manifest or a spec, or two to one file (compared as resolved paths, so `out/x`
    and `out/../out/x` are one file)."""
    root = manifest.root
    real_root = root.resolve()
    found: dict[str, list[Path]] = {}  # each glob written expanded once (refused at its first)

    def once(pattern: Pattern) -> list[Path]:
        if pattern.text not in found:
            found[pattern.text] = expand(pattern, root)
        return found[pattern.text]

    entries = [(item, unique(path.as_posix() for pattern in item.specs for path in once(pattern)))
               for item in manifest.entries]
    inputs = {manifest.path.resolve(): manifest.path.as_posix()}
    inputs.update({(root / spec).resolve(): (root / spec).as_posix()
                   for spec in unique(spec for _, specs in entries for spec in specs)})
    written: dict[Path, Target] = {}
    limit = name_max(root)
    for item, specs in entries:
        for spec in map(PurePosixPath, specs):
            for fmt, fmt_where in zip(item.formats, item.format_where, strict=True):
                # a format that prints every number is refused at the entry's format
                view = replace(item.view, precision=item.precision,
                               where={**item.view.where, "format": fmt_where})
                for lang in item.languages:
                    output = PurePosixPath(item.output.format(
                        name=spec_name(Path(spec)), dir=spec.parent.as_posix(), lang=lang,
                        format=fmt, ext=EXTENSIONS[fmt]))
                    check_name_lengths(output, limit, item.output_where)
                    real = output_inside(item, real_root, root / output)
                    target = Target(root / spec, fmt, lang, root / output, item.precision,
                                    view, real, item.output_where)
                    if real in inputs:
                        raise SpecError(Msg.of(
                            "{path}: the snippet {output} would be written over the input "
                            "{input}", path=item.output_where.path,
                            output=target.output.as_posix(), input=inputs[real]),
                            item.output_where)
                    if real in written:
                        clash(item, target, written[real])
                    check_output(output, real, real_root, EXTENSIONS[fmt], fmt,
                                 item.output_where)
                    written[real] = target
    return list(written.values())


def output_inside(item: Entry, real_root: Path, output: Path) -> Path:
    """Where the snippet `output` is written, inside `real_root`. The system's refusals are said
    in attn's words: Python's ("embedded null byte", "[Errno 36] File name too long: '…'")
    were quoted as they were, in English, and naming the path twice."""
    if "\0" in output.as_posix():
        raise SpecError(Msg.of("{path}: {problem}", path=item.output_where.path, problem=Msg.of(
            "{name}: a file name cannot hold the character NUL", name=output.as_posix())),
            item.output_where)
    try:
        return inside(real_root, output)
    except (NotRegular, OSError) as problem:
        reason = problem.message if isinstance(problem, NotRegular) else os_problem(problem)
        raise SpecError(Msg.of("{path}: the snippet {output}: {problem}",
                               path=item.output_where.path, output=output.as_posix(),
                               problem=reason), item.output_where) from None


def clash(item: Entry, target: Target, earlier: Target) -> None:
    raise SpecError(
        Msg.of("{path}: two snippets would be written to {output} ({first} and {second}); "
               "use {{name}}, {{dir}}, {{lang}} or {{ext}} to tell them apart",
               path=item.output_where.path, output=target.output.as_posix(),
               first=describe_target(earlier), second=describe_target(target)),
        item.output_where)


def describe_target(target: Target) -> str:
    return f"{target.spec.as_posix()} [{target.format}, {target.lang}]"

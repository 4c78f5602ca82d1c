"""What `attn snippets` may write: only what it makes (docs/snippets.md, "What attn writes").

In CI the manifest and the tree come from a pull request, so a manifest must not be able to
plant a git hook, rewrite `.git/config` or another tool's settings, or wipe the data a spec
reads. A snippet's path is checked before anything is written:

- no part of it (a folder or the file's name), as written and as links resolve it, begins
  with a dot: `.git/`, `.github/`, `.venv/`, `.pre-commit-config.yaml` are out of reach;
- no part of it is one of the tool folders without a dot (TOOL_FOLDERS: `node_modules`, whose
  files npm runs, and the like), in any case (`Node_Modules` is that folder on macOS and Windows);
- no character of it is a control, format or invisible one (a newline, an escape, a
  right-to-left override), which a shell or `ls` would show wrong;
- its name ends in its format's extension (`.txt`, `.json`, `.tex`, `.md`, `.svg`), so it is
  never a hook, a script, a Makefile or a manifest;
- it is neither the manifest nor a spec nor a file any spec reads, nor inside a folder a spec
  reads as a model's (`check_inputs`, once every spec has been read: the files are those
  spec/files.py's `resolve` named, the folders those `read_as_model` did), nor a file there is
  whose name a spec that could not be read writes, as written or through YAML's and JSON's
  escapes (`check_unread`, escapes.py: what it reads is not known).

How attn knows that a file holds a snippet, and may be overwritten: the output pattern alone
names it, and it passes the rules above. Snippets are written without an exec bit (see
files.writing.write_atomic's `plain`).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from attncli.errors import Location, SpecError
from attncli.i18n import Msg
from attncli.i18n.visible import visible
from attncli.snippets.escapes import Escapes

UNREAD_BYTES = 1 << 26  # of specs that could not be read, held to be searched for file names
SCANNED_BYTES = 1 << 24  # of such a spec past those, read at a time and searched
# a spec saved as UTF-16 or UTF-32 (refused for its encoding) is searched in UTF-8 too
UNICODE_MARKS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                 (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
ORDERED = {b"\xff\xfe\x00\x00": "utf-32-le", b"\x00\x00\xfe\xff": "utf-32-be",
           b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}  # without their marks
# Folders that tools fill and run code from, though their names have no dot
TOOL_FOLDERS = ("node_modules", "bower_components", "__pycache__", "site-packages", "venv")


def check_output(output: PurePosixPath, real: Path, real_root: Path, extension: str,
                 format_name: str, where: Location) -> None:
    """SpecError (at the entry's `output`) unless `output` (as the template writes it, from the
    manifest's folder; `real` as links resolve it) may hold a snippet of `format_name`."""
    shown = output.as_posix()
    # a backslash separates names on Windows
    written = PurePosixPath(shown.replace("\\", "/")).parts
    if visible(shown) != shown:  # a name a shell, git or `ls` would show wrong, or run
        raise SpecError(Msg.of(
            "{path}: the snippet {output} has a control or invisible character in its path; "
            "attn snippets writes only names that show as they are", path=where.path,
            output=shown), where)
    for part in (*written, *real.relative_to(real_root).parts):
        if part.startswith("."):
            raise SpecError(Msg.of(
                "{path}: the snippet {output} has {part} in its path; attn snippets writes "
                "nothing whose path has a name beginning with a dot (such as .git or .github)",
                path=where.path, output=shown, part=part), where)
        if part.casefold() in TOOL_FOLDERS:  # Node_Modules is node_modules where case is folded
            raise SpecError(Msg.of(
                "{path}: the snippet {output} has {part} in its path; attn snippets writes "
                "nothing into a tool's folder ({folders})", path=where.path, output=shown,
                part=part, folders=", ".join(TOOL_FOLDERS)), where)
    if not output.name.endswith("." + extension):
        raise SpecError(Msg.of(
            "{path}: the snippet {output} does not end in {extension}, the extension of the "
            "format {format}", path=where.path, output=shown, extension="." + extension,
            format=format_name), where)


def check_inputs(outputs: Iterable[tuple[Path, Path, Location]], read: dict[Path, Path],
                 models: dict[Path, Path]) -> None:
    """SpecError if a snippet (its path as shown, as resolved, and where the manifest names it)
    would be written over a file a spec reads, or anywhere inside a folder a spec reads as a
    model's (`read`, `models`: resolved path -> as named): attn reads files there that no spec
    names (a spec of token ids reads no tokenizer.json, the next one of a text does)."""
    for shown, real, where in outputs:
        if real in read:
            raise SpecError(Msg.of(
                "{path}: the snippet {output} would be written over the input {input}",
                path=where.path, output=shown.as_posix(), input=read[real].as_posix()), where)
        model = next((models[folder] for folder in real.parents if folder in models), None)
        if model is not None:
            raise SpecError(Msg.of(
                "{path}: the snippet {output} would be written into {folder}, a model folder "
                "a spec reads; attn snippets writes nothing in a model folder",
                path=where.path, output=shown.as_posix(), folder=model.as_posix()), where)


def check_unread(outputs: Iterable[tuple[Path, Path, Location]], unread: list[Path],
                 limit: int) -> None:
    """SpecError if a snippet would replace a file there is whose name a spec that could not be
    read writes (`unread`): such a spec names its files as it is read, so what it reads is not
    known, and a file it may read is not written over (a spec refused for an unknown key after
    its tokenizer had that tokenizer replaced by another spec's snippet).

    The cost is held to the bytes read, never their product with the snippets: the specs are
    read once each (a file under several names, hard links, once), UNREAD_BYTES in all, and
    each text is searched once per extension of the snippets there are, at C speed; only the
    places where an extension stands are then looked at. 20 sparse specs of 70 MB took 1.3 GB,
    and one searched for 800 snippets' names 22 s, where they were read whole and searched
    once for each name. A text that holds an extension more than MAX_PLACES times (no spec
    written by hand does) is taken to name every snippet file of that extension there is.

    Each text is searched as written and with its escapes read (escapes.py), where its reader
    refused it before a name written through one (`"t\\x2ejson"` after a mistake, or in a
    text that is not UTF-8 or not JSON): a copy of each text that holds a backslash is held
    beside it. Past MAX_ESCAPES escapes, the name of every snippet there is is held.

    A spec larger than `limit` (the byte limit --max-cells sets) is refused
    for its size and reads nothing; one within it is searched to its end: past the bytes held,
    SCANNED_BYTES at a time (a 68 MB spec read with --max-cells 20000000 named a file past its
    first 64 MiB, and a snippet was written over it)."""
    present = [(shown, real, where) for shown, real, where in outputs
               if os.path.lexists(real)]
    read, rest = _unread_texts(unread, limit) if present else ([], [])
    texts = [text for _, text in read]
    texts += [text.decode(codec, "replace").encode("utf-8", "replace")  # refused for its
              for _, text in read for bom, codec in UNICODE_MARKS if text.startswith(bom)]
    escapes = Escapes()  # a name written through an escape, where the reader stopped before it
    texts += [reading for text in list(texts) for reading in escapes.read(text)]
    names = {name for shown, real, _ in present
             for name in (_name_bytes(shown), _name_bytes(real)) if name}
    held, model = _scanned(rest, names, escapes)
    held |= names if escapes.past else _held_names(names, texts)
    if model or any(MODEL in text for text in texts):  # a model folder's files, named by the
        held |= names & MODEL_FILES  # folder alone
    named = _named_files(read) if present else set()
    for shown, real, where in present:
        if _name_bytes(shown) in held or _name_bytes(real) in held or real in named:
            raise SpecError(Msg.of(
                "{path}: the snippet {output} would be written over the input {input}",
                path=where.path, output=shown.as_posix(), input=shown.as_posix()), where)


ESCAPED = 10  # bytes of the longest escape of one byte of a name (`\\U0000002e` for ".")
MAX_PLACES = 4096  # places of one extension in one text that are looked at one by one
# What `model: {path: DIR}` reads in DIR besides the weights (spec/model_folder.py), which no
# spec's text names: a model spec refused at a key before its folder was read left them open
# to another entry's snippet (output = "DIR/config.json")
MODEL, MODEL_FILES = b"model", {b"config.json", b"tokenizer.json", b"model.safetensors.index.json"}


def _name_bytes(path: Path) -> bytes:
    with contextlib.suppress(UnicodeError):
        return path.name.encode("utf-8", "surrogateescape")
    return b""


def _unread_texts(unread: list[Path], limit: int) -> tuple[list[tuple[Path, bytes]],
                                                            list[tuple[Path, int, int]]]:
    """The texts of the specs in `unread` of at most `limit` bytes, each file once,
    UNREAD_BYTES in all; and the specs read only in part: where the text held ends, and where
    the file does."""
    from attncli.files.reading import NotRegular
    from attncli.spec.opened import open_regular

    texts: list[tuple[Path, bytes]] = []
    rest: list[tuple[Path, int, int]] = []
    seen: set[tuple[int, int]] = set()
    left = UNREAD_BYTES
    for spec in unread:
        try:
            with open_regular(spec) as file:
                info = os.fstat(file.fileno())
                if (info.st_dev, info.st_ino) in seen or info.st_size > limit:
                    continue  # read already, or refused for its size: it names nothing
                seen.add((info.st_dev, info.st_ino))
                text = file.read(min(left, info.st_size))
        except (OSError, NotRegular):
            continue
        left -= len(text)
        texts.append((spec, text))
        if len(text) < info.st_size:
            rest.append((spec, len(text), info.st_size))
    return texts, rest


def _scanned(rest: list[tuple[Path, int, int]], names: set[bytes],
             escapes: Escapes) -> tuple[set[bytes], bool]:
    """Those of `names` the parts of specs in `rest` hold, as written and with their escapes
    read, and whether they hold MODEL: read SCANNED_BYTES at a time, each part with the end of
    the one before (so a name across two is found, escaped too: ten bytes a character at most,
    `\\U0000002e`), from a place a spec saved as UTF-16 or UTF-32 starts a character at."""
    from attncli.files.reading import NotRegular
    from attncli.spec.opened import open_regular

    held: set[bytes] = set()
    model = False
    # bytes of UTF-32 at most, each character escaped
    keep = 4 * ESCAPED * (max(map(len, names), default=0) + len(MODEL))
    for spec, start, end in rest:
        try:
            with open_regular(spec) as file:
                head = file.read(4)
                codec = next((ORDERED[bom] for bom, _ in UNICODE_MARKS if head.startswith(bom)),
                             None)
                at = max(0, start - keep) // 4 * 4  # where a character starts
                file.seek(at)
                tail = b""
                while at < end:
                    part = file.read(min(SCANNED_BYTES, end - at))
                    if not part:
                        break
                    at += len(part)
                    text = tail + part
                    tail = text[-keep:]
                    texts = [text, *([text.decode(codec, "replace").encode("utf-8", "replace")]
                                     if codec else [])]
                    texts += [reading for one in list(texts)
                              for reading in escapes.read(one, mid=True)]
                    held |= _held_names(names, texts)
                    model = model or any(MODEL in one for one in texts)
        except (OSError, NotRegular):
            continue
    return held, model


def _named_files(read: list[tuple[Path, bytes]]) -> set[Path]:
    """The files (resolved) that the texts of specs that could not be read name once read as
    YAML or JSON reads them, relative to each spec's folder, and a folder's model files: a name
    escaped (`"t\\x2ejson"`, `"\\u0074.json"`), continued on the next line, or a link to the
    file (`tokenizer: link.json`), which a search of the bytes does not find. A text the
    reader refuses (its mistake is in its syntax, its size) names none past the mistake.

    Each text is asked of the system once, however often it is written: 100,000 texts (as many
    as a spec may write) asked four times each, the spec read into attn's tree again, took
    4.2 s where validate takes 0.9 s."""
    from attncli.spec.limits import DEFAULT_MAX_CELLS, max_bytes

    found: set[Path] = set()
    for spec, content in read:
        if len(content) > max_bytes(DEFAULT_MAX_CELLS):  # refused for its size: it names none
            continue
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            continue
        folder, seen = os.fspath(spec.parent), set()
        for value in _texts_of(spec, text):
            if value and value not in seen:
                seen.add(value)
                found |= _files_at(os.path.join(folder, value))
    return found


def _texts_of(spec: Path, text: str) -> Iterator[str]:
    """The texts of a spec's `text` as YAML reads them, from the parser's events (a scalar's
    value: escapes, folded lines and tags read; an alias names its anchor's, already given),
    as many as a spec may write; a JSON spec's as attn reads JSON."""
    import yaml

    from attncli.errors import AttnError
    from attncli.spec.limits import DEFAULT_MAX_CELLS, max_texts, max_written
    from attncli.spec.source import is_json, parse
    from attncli.spec.yaml_loader import BaseLoader

    if is_json(str(spec), text):
        try:
            ahead = [parse(str(spec), text)]
        except AttnError:
            return
        while ahead:
            node = ahead.pop()
            if node.numbers is not None:
                continue
            if isinstance(node.value, dict):
                ahead.extend(node.value.values())
            elif isinstance(node.value, list):
                ahead.extend(node.value)
            elif isinstance(node.value, str):
                yield node.value
        return
    left = max_written(DEFAULT_MAX_CELLS) + max_texts(DEFAULT_MAX_CELLS)
    try:
        for event in yaml.parse(text, Loader=BaseLoader):
            if isinstance(event, yaml.ScalarEvent):
                yield event.value
                left -= 1
                if left <= 0:  # past what a spec may write: refused for it
                    return
    except yaml.YAMLError:  # the mistake: what came before it is named
        return


def _files_at(path: str) -> set[Path]:
    """The file at `path` as links resolve it (a link to nothing too), and a model folder's
    files if it is a folder; none if nothing is there."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return set()
    candidates = [path]
    if stat.S_ISDIR(mode) or (stat.S_ISLNK(mode) and os.path.isdir(path)):
        candidates += [os.path.join(path, name.decode()) for name in MODEL_FILES]
    return {Path(os.path.realpath(candidate)) for candidate in candidates
            if os.path.lexists(candidate)}


def _held_names(names: set[bytes], texts: list[bytes]) -> set[bytes]:
    """Those of `names` that some text holds: each name ends in its extension, so each text is
    searched for each extension, and the names of that extension are looked for where it
    ends. The places looked at one by one are MAX_PLACES of an extension in all the texts
    together, past which every name of that extension is held: 300 small specs that could not
    be read, each writing `.txt` 4,000 times, beside 60 snippets of 60 name lengths, had each
    place looked at for each length (72 million slices, 8 s)."""
    by_extension: dict[bytes, set[bytes]] = {}
    for name in names:
        dot = name.rfind(b".")
        by_extension.setdefault(name[dot:] if dot > 0 else name, set()).add(name)
    held: set[bytes] = set()
    for extension, group in by_extension.items():
        if sum(text.count(extension) for text in texts) > MAX_PLACES:
            held |= group
            continue
        lengths = {len(name) for name in group}
        for text in texts:
            at = text.find(extension)
            while at >= 0:
                end = at + len(extension)
                held.update(text[end - length:end] for length in lengths
                            if length <= end and text[end - length:end] in group)
                at = text.find(extension, at + 1)
    return held

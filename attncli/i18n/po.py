"""Reading and writing gettext `.po` catalogs, and turning one into a gettext translation object.

attn reads its catalogs as `.po` text at run time instead of shipping compiled `.mo` files: a
translator edits the `.po` file with any tool and sees the result at once, and there is no
binary copy that could fall out of step with its source. The catalog is compiled in memory
into the `.mo` layout and handed to `gettext.GNUTranslations`, so plural rules and lookups are
the standard library's own.

Supported: comments (`#`, `#.`, `#:`, `#,` flags), obsolete entries (`#~`, kept for the
translator, never used), `msgctxt`, `msgid`, `msgid_plural`, `msgstr`, `msgstr[n]`, strings
continued over several lines, and the C escapes `\\n \\t \\" \\\\`. Entries flagged `fuzzy` are
not used, as msgfmt does.
"""

from __future__ import annotations

import io
import re
import struct
from dataclasses import dataclass, field

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "b": "\b"}
_UNESCAPES = {value: "\\" + key for key, value in _ESCAPES.items()}
_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')
_CONTEXT_GLUE = "\x04"  # how gettext joins msgctxt and msgid in a compiled catalog


class PoError(ValueError):
    """A `.po` file that does not follow the format: `line` is 1-based."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line


@dataclass
class Entry:
    """One message: its English source, and its translation (one string per plural form)."""

    msgid: str
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=lambda: [""])
    msgctxt: str | None = None
    comments: list[str] = field(default_factory=list)  # translator comments, without "# "
    extracted: list[str] = field(default_factory=list)  # `#.` notes for translators
    references: list[str] = field(default_factory=list)  # `#:` the files that use it
    flags: list[str] = field(default_factory=list)  # `#,` e.g. fuzzy, python-brace-format
    obsolete: bool = False  # `#~`: no longer in attn's code; kept so its translation is not lost
    line: int = field(default=0, compare=False)  # where the msgid is, for error messages

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def key(self) -> str:
        """The lookup key gettext uses: context and msgid joined by EOT."""
        if self.msgctxt is None:
            return self.msgid
        return self.msgctxt + _CONTEXT_GLUE + self.msgid


def unquote(literal: str, line: int) -> str:
    """The text of one C string literal `"..."`."""
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        raise PoError(line, f"expected a quoted string, found {literal}")
    body = literal[1:-1]
    if "\\" not in body and '"' not in body:
        return body  # most lines: nothing to undo
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 >= len(body) or body[i + 1] not in _ESCAPES:
                raise PoError(line, f"unknown escape in {literal}")
            out.append(_ESCAPES[body[i + 1]])
            i += 2
            continue
        if ch == '"':
            raise PoError(line, f"unescaped quote in {literal}")
        out.append(ch)
        i += 1
    return "".join(out)


def quote(text: str) -> str:
    return '"' + "".join(_UNESCAPES.get(ch, ch) for ch in text) + '"'


def read_po(text: str) -> list[Entry]:
    """Every entry of a `.po` file, the header (msgid "") first if present."""
    entries: list[Entry] = []
    current: Entry | None = None
    last: str | None = None  # the field that a continuation line extends
    pending = Entry("")  # comments seen before the next msgid

    def finish(number: int) -> None:
        nonlocal current, last
        if current is not None:
            if current.line == 0:
                raise PoError(number, "msgctxt without its msgid")
            entries.append(current)
        current, last = None, None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            finish(number)
        elif line.startswith("#"):
            finish(number)
            _comment(pending, line)
        elif line.startswith('"'):
            if current is None or last is None:
                raise PoError(number, "a string continues nothing")
            _extend(current, last, unquote(line, number))
        else:
            match = _KEYWORD.match(line)
            if match is None:
                raise PoError(number, f"expected msgid, msgstr or a comment, found {line[:40]}")
            keyword, index, literal = match.group(1), match.group(2), match.group(3)
            value = unquote(literal, number)
            if keyword == "msgctxt" or (keyword == "msgid" and last != "msgctxt"):
                finish(number)
                current, pending = pending, Entry("")
                current.obsolete = obsolete
            if current is None:
                raise PoError(number, f"{keyword} before its msgid")
            last = _set(current, keyword, index, value, number)
    finish(len(text.splitlines()))
    return entries


def _set(entry: Entry, keyword: str, index: str | None, value: str, number: int) -> str:
    """Store one keyword's value; the name of the field a continuation line extends."""
    if keyword == "msgid":
        entry.msgid, entry.line = value, number
        return keyword
    if keyword == "msgctxt":
        entry.msgctxt = value
        return keyword
    if entry.line == 0:
        raise PoError(number, f"{keyword} before its msgid")
    if keyword == "msgid_plural":
        entry.msgid_plural = value
        return keyword
    slot = int(index) if index is not None else 0
    while len(entry.msgstr) <= slot:
        entry.msgstr.append("")
    entry.msgstr[slot] = value
    return f"msgstr[{slot}]"


def _comment(entry: Entry, line: str) -> None:
    if line.startswith("#|"):
        return  # msgmerge's note of the previous msgid: for the translator only
    if line.startswith("#,"):
        entry.flags += [flag.strip() for flag in line[2:].split(",") if flag.strip()]
    elif line.startswith("#:"):
        entry.references += line[2:].split()
    elif line.startswith("#."):
        entry.extracted.append(line[2:].strip())
    else:
        entry.comments.append(line[1:].strip())


def _extend(entry: Entry, field_name: str, value: str) -> None:
    if field_name.startswith("msgstr["):
        slot = int(field_name[7:-1])
        entry.msgstr[slot] += value
    elif field_name == "msgid_plural":
        entry.msgid_plural = (entry.msgid_plural or "") + value
    elif field_name == "msgctxt":
        entry.msgctxt = (entry.msgctxt or "") + value
    else:
        entry.msgid += value


def header(entries: list[Entry]) -> dict[str, str]:
    """The `Name: value` fields of the header entry (msgid "")."""
    for entry in entries:
        if entry.msgid == "" and entry.msgctxt is None:
            fields = {}
            for line in entry.msgstr[0].splitlines():
                name, sep, value = line.partition(":")
                if sep:
                    fields[name.strip()] = value.strip()
            return fields
    return {}


def mo_bytes(entries: list[Entry]) -> bytes:
    """The entries compiled to the GNU `.mo` layout; fuzzy and untranslated ones left out."""
    pairs: dict[bytes, bytes] = {}
    for entry in entries:
        if entry.obsolete or (entry.fuzzy and entry.msgid != ""):
            continue
        if not all(entry.msgstr) and entry.msgid != "":
            continue  # untranslated: gettext falls back to the English msgid
        source = entry.key if entry.msgid_plural is None else f"{entry.key}\0{entry.msgid_plural}"
        pairs[source.encode("utf-8")] = "\0".join(entry.msgstr).encode("utf-8")
    ids = sorted(pairs)  # the layout wants them sorted
    texts = [pairs[source] for source in ids]
    count = len(ids)
    # header (7 words), the table of (length, offset) of every id, the same for every text,
    # then the ids and the texts themselves, each ending in NUL
    table: list[int] = []
    offset = 7 * 4 + 16 * count
    for blob in (*ids, *texts):
        table += [len(blob), offset]
        offset += len(blob) + 1
    head = struct.pack("<7I", 0x950412DE, 0, count, 7 * 4, 7 * 4 + 8 * count, 0, 0)
    body = b"".join(blob + b"\0" for blob in (*ids, *texts))
    return head + struct.pack(f"<{4 * count}I", *table) + body


def write_po(entries: list[Entry]) -> str:
    """The entries as `.po` text, one string per line (no wrapping), as every tool reads it."""
    out = io.StringIO()
    for number, entry in enumerate(entries):
        if number:
            out.write("\n")
        for comment in entry.comments:
            out.write(f"# {comment}".rstrip() + "\n")
        for note in entry.extracted:
            out.write(f"#. {note}\n")
        if entry.references:
            out.write("#: " + " ".join(entry.references) + "\n")
        if entry.flags:
            out.write("#, " + ", ".join(entry.flags) + "\n")
        mark = "#~ " if entry.obsolete else ""
        if entry.msgctxt is not None:
            out.write(f"{mark}msgctxt {quote(entry.msgctxt)}\n")
        _write_string(out, mark + "msgid", entry.msgid)
        if entry.msgid_plural is not None:
            out.write(f"{mark}msgid_plural {quote(entry.msgid_plural)}\n")
            for slot, text in enumerate(entry.msgstr):
                _write_string(out, f"{mark}msgstr[{slot}]", text)
        else:
            _write_string(out, mark + "msgstr", entry.msgstr[0])
    return out.getvalue()


def _write_string(out: io.StringIO, keyword: str, text: str) -> None:
    """A string on one line, or, if it has line breaks, one line per line as msgfmt writes."""
    if "\n" not in text.rstrip("\n"):
        out.write(f"{keyword} {quote(text)}\n")
        return
    mark = "#~ " if keyword.startswith("#~") else ""
    out.write(f'{keyword} ""\n')
    for part in text.splitlines(keepends=True):
        out.write(mark + quote(part) + "\n")

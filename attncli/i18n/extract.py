"""Find every message attn can show, and bring the catalogs up to date with them.

    python -m attncli.i18n.extract          # write locale/attn.pot, update every locale's attn.po
    python -m attncli.i18n.extract --check  # exit 1 if anything is missing, stale or untranslated

A message is the first argument of `Msg.of(...)`, the first two of `Msg.plural_of(...)`, and the
second of a `fail(node, "...")` helper (a string literal, implicit concatenation included), found
with the `ast` module in every module of attncli, like xgettext's keywords. A `Msg` whose msgid is
not a literal is reported, since no catalog could list it (except inside a helper such as `fail`,
which passes its caller's literal on).

Updating a `.po` keeps every translation whose msgid is still used, adds the new msgids
untranslated, and keeps the ones no longer used at the end as obsolete `#~` entries, so no
translation is lost when a msgid is reworded.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from attncli.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, po_path
from attncli.i18n.comments import comment_blocks, descriptions
from attncli.i18n.po import Entry, header, read_po, write_po

PACKAGE = Path(__file__).resolve().parent.parent
# callee -> which positional arguments are msgids (xgettext's --keyword=fail:2)
KEYWORDS: dict[str, tuple[int, ...]] = {
    "Msg.of": (0,), "Msg.plural_of": (0, 1), "fail": (1,), "_fail": (1,), "N_": (0,),
}
# a function decorated with one of these is a command: its docstring is its --help text
COMMAND_DECORATORS = ("app.command", "app.callback")
# helpers that build a Msg from their caller's msgid (spec/values.py `fail`, spec/inline.py
# `_fail`): only their literal arguments are messages (attncli/cli/running.py has a
# `fail(error, lang)` too)
HELPERS = ("fail", "_fail")
POT_HEADER = (
    "Project-Id-Version: attn\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
)


@dataclass
class Message:
    msgid: str
    plural: str | None
    references: list[str] = field(default_factory=list)
    # a sentence attn fills in with str.format; a spec's comment or a schema description is not
    formatted: bool = True

    @property
    def flags(self) -> list[str]:
        return ["python-brace-format"] if self.formatted else []


@dataclass
class Extraction:
    messages: dict[str, Message]  # by msgid, in the order first found
    dynamic: list[str]  # file:line of a message call whose msgid is not a literal


def callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def literal(node: ast.expr) -> str | None:
    """The text of a string literal (Python joins implicit concatenation already)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self, where: str, found: Extraction) -> None:
        self.where = where
        self.found = found
        self.helpers: list[str] = []  # enclosing functions named like a keyword

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
        if any(isinstance(d, (ast.Attribute, ast.Name)) and ast.unparse(d) in COMMAND_DECORATORS
               for d in decorators):
            doc = ast.get_docstring(node, clean=True)  # what inspect.getdoc gives Typer
            if doc:
                self.add(doc, None)
        self.helpers.append(node.name)
        self.generic_visit(node)
        self.helpers.pop()

    def visit_Call(self, node: ast.Call) -> None:
        name = callee(node)
        if name in KEYWORDS:
            self.record(node, KEYWORDS[name])
        self.generic_visit(node)

    def record(self, node: ast.Call, positions: tuple[int, ...]) -> None:
        texts = [literal(node.args[i]) if i < len(node.args) else None for i in positions]
        if any(text is None for text in texts):
            # A helper that passes its own parameter on (`fail` building its Msg) is fine;
            # anything else would be a message no catalog can list.
            inside_helper = any(helper in HELPERS for helper in self.helpers)
            if callee(node) not in HELPERS and not inside_helper:
                self.found.dynamic.append(f"{self.where}:{node.lineno}")
            return
        msgid, plural = texts[0], texts[1] if len(texts) > 1 else None
        assert msgid is not None
        self.add(msgid, plural)

    def add(self, msgid: str, plural: str | None, formatted: bool = True) -> None:
        message = self.found.messages.setdefault(msgid, Message(msgid, plural, [], formatted))
        message.formatted = message.formatted or formatted
        if self.where not in message.references:
            # the file alone (xgettext --add-location=file): moving code does not stale a catalog
            message.references.append(self.where)


def extract(package: Path = PACKAGE) -> Extraction:
    """Every message in the modules of `package`, with where each is used; then the comments
    of the example specs and the descriptions of the JSON Schema (see comments.py)."""
    found = Extraction({}, [])
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        _Finder(where, found).visit(ast.parse(path.read_text(encoding="utf-8"), where))
    for path, texts in outside_sentences(package):
        finder = _Finder(path.relative_to(package.parent).as_posix(), found)
        for text in texts:
            finder.add(text, None, formatted=False)
    return found


def outside_sentences(package: Path) -> list[tuple[Path, list[str]]]:
    """The example specs' comment blocks and the schema's descriptions, by file."""
    found = []
    schema = package / "spec" / "schema.json"
    if schema.exists():
        found.append((schema, descriptions(json.loads(schema.read_text(encoding="utf-8")))))
    for folder in (package / "configs", package.parent / "configs"):  # a wheel, a checkout
        for path in sorted(folder.glob("*.yaml")):
            lines = path.read_text(encoding="utf-8").split("\n")
            found.append((path, [block.text for block in comment_blocks(lines)]))
    return found


def template(messages: dict[str, Message]) -> list[Entry]:
    """The `.pot` entries: every msgid with empty translations."""
    entries = [Entry("", msgstr=[POT_HEADER])]
    for message in messages.values():
        entries.append(Entry(message.msgid, message.plural,
                             ["", ""] if message.plural is not None else [""],
                             references=list(message.references), flags=message.flags))
    return entries


def nplurals(entries: list[Entry]) -> int:
    forms = header(entries).get("Plural-Forms", "nplurals=2;")
    return int(forms.split("nplurals=")[1].split(";")[0])


def update(entries: list[Entry], messages: dict[str, Message]) -> list[Entry]:
    """The catalog with every message, translations kept, unused ones made obsolete."""
    by_id = {entry.msgid: entry for entry in entries if entry.msgctxt is None}
    forms = nplurals(entries)
    result = [entry for entry in entries if entry.msgid == "" and not entry.obsolete][:1]
    for message in messages.values():
        old = by_id.pop(message.msgid, None)
        if old is None or old.msgid_plural != message.plural:
            slots = forms if message.plural is not None else 1
            old = Entry(message.msgid, message.plural, [""] * slots)
        old.flags = [flag for flag in old.flags if flag != "python-brace-format"] + message.flags
        old.references = list(message.references)
        old.obsolete = False
        result.append(old)
    stale = [entry for entry in by_id.values() if entry.msgid != ""]
    for entry in stale:
        entry.obsolete, entry.references = True, []
    return result + stale


def untranslated(entries: list[Entry]) -> list[str]:
    return [entry.msgid for entry in entries
            if entry.msgid and not entry.obsolete and (entry.fuzzy or not all(entry.msgstr))]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    found = extract()
    problems = [f"{where}: the msgid is not a string literal" for where in found.dynamic]
    pot = write_po(template(found.messages))
    pot_path = LOCALE_DIR / f"{DOMAIN}.pot"
    if check and (not pot_path.exists() or pot_path.read_text(encoding="utf-8") != pot):
        problems.append(f"{pot_path.name} is out of date")
    elif not check:
        pot_path.write_text(pot, encoding="utf-8")
    for lang in LANGUAGES[1:]:
        path = po_path(lang)
        before = path.read_text(encoding="utf-8")
        entries = update(read_po(before), found.messages)
        after = write_po(entries)
        missing = untranslated(entries)
        if check and after != before:
            problems.append(f"{lang}: {path.name} is out of date")
        elif not check and after != before:
            path.write_text(after, encoding="utf-8")
        problems += [f"{lang}: untranslated or fuzzy: {msgid!r}" for msgid in missing]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(found.messages)} messages", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

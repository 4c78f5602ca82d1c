"""Every message the readers attn uses can produce today has a catalogue message: libyaml's (in
PyYAML's compiled module), PyYAML's own Python reader's, the json decoder's, and errno's.

The lists are read from the libraries themselves (their Python sources with `ast`, the strings
compiled into libyaml and _json), so a new version with a new message fails here instead of
putting English into a Polish or Russian sentence.
"""

from __future__ import annotations

import ast
import errno
import json
import re
from pathlib import Path

import pytest
import yaml

from attncli.errors import SpecError
from attncli.i18n import Msg, translate
from attncli.i18n.library_messages import (
    JSON_PROBLEMS,
    OS_ERRORS,
    YAML_PROBLEMS,
    json_problem,
    numpy_problem,
    os_problem,
    toml_problem,
    yaml_problem,
)
from attncli.snippets.toml_tree import toml_tree
from attncli.spec import load_spec

UNTRANSLATED = ("PyYAML's message has no translation: {detail}",
                "the json module's message has no translation: {detail}",
                "NumPy's message has no translation: {detail}",
                "the tomllib module's message has no translation: {detail}")
# libyaml's strings that are not problems a reader meets (a context, an emitter's, an API's)
NOT_READER_PROBLEMS = {
    "expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS", "expected STREAM-START",
    "expected DOCUMENT-START or STREAM-END", "expected DOCUMENT-END", "expected nothing after "
    "STREAM-END", "expected a single document in the stream", "found duplicate anchor; first "
    "occurrence", "duplicate %TAG directive", "invalid event %s", "found another document",
    "control characters are not allowed", "found a tab character that violates indentation",
}


def compiled_strings(path: Path) -> set[str]:
    """The printable strings (8 characters or more) in a compiled module."""
    return {m.decode("ascii") for m in re.findall(rb"[\x20-\x7e]{8,}", path.read_bytes())}


def libyaml_problems() -> set[str]:
    compiled = next(Path(yaml.__file__).parent.glob("_yaml*.so"), None)
    if compiled is None:  # PyYAML without libyaml: its Python reader is covered below
        return set()
    starts = ("did not find", "found ", "could not find", "mapping ", "block sequence",
              "control characters", "invalid ", "incomplete ", "unexpected low",
              "expected low", "input is", "input error", "but found", "second occurrence")
    return {s for s in compiled_strings(compiled) if s.startswith(starts) and "%" not in s
            and "_" not in s and "&&" not in s and not s.startswith("invalid vtable")}


def python_problems(module: str) -> list[str]:
    """The `problem` argument of every ScannerError/ParserError/... PyYAML's `module` raises,
    with its %r and %s filled by a sample."""
    source = (Path(yaml.__file__).parent / f"{module}.py").read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id.endswith("Error") and len(node.args) >= 3):
            problem = node.args[2]
            template = problem.left if isinstance(problem, ast.BinOp) else problem
            if isinstance(template, ast.Constant) and isinstance(template.value, str):
                found.append(template.value.replace("%r", "'x'").replace("%s", "x")
                             .replace("%d", "4"))
    return found


def json_messages() -> list[str]:
    """The messages json's decoder raises (its Python source and its C accelerator)."""
    source = Path(json.decoder.__file__).read_text(encoding="utf-8")
    literals = re.findall(r'JSONDecodeError\(\s*("[^"]+")', source)
    literals += re.findall(r'msg = ("[^"]+")', source)
    found = [ast.literal_eval(literal) for literal in literals]
    import _json

    compiled = getattr(_json, "__file__", None)
    if compiled is not None:
        found += [s for s in compiled_strings(Path(compiled))
                  if s.startswith(("Expecting", "Invalid", "Unterminated", "Extra data",
                                   "Illegal trailing"))]
    return [m.replace("{0!r}", "'x'") for m in found]


def toml_messages() -> list[str]:
    """The message of every error tomllib's parser raises (suffixed_err(src, pos, message)),
    with what an f-string quotes filled by a sample."""
    import tomllib

    source = (Path(tomllib.__file__).parent / "_parser.py").read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "suffixed_err" and len(node.args) == 3):
            message = node.args[2]
            if isinstance(message, ast.Constant):
                found.append(message.value)
            elif isinstance(message, ast.JoinedStr):
                found.append("".join(part.value if isinstance(part, ast.Constant) else "'x'"
                                     for part in message.values))
    return found


def is_translated(message: Msg) -> bool:
    return message.msgid not in UNTRANSLATED


def test_every_libyaml_problem_has_a_catalogue_message() -> None:
    problems = libyaml_problems()
    assert problems, "no libyaml found: the C reader's messages were not listed"
    missing = sorted(p for p in problems - NOT_READER_PROBLEMS if p not in YAML_PROBLEMS)
    assert missing == []


@pytest.mark.parametrize("module", ["scanner", "parser", "composer"])
def test_every_pyyaml_python_problem_has_a_catalogue_message(module: str) -> None:
    problems = python_problems(module)
    assert len(problems) >= 3
    assert [p for p in problems if not is_translated(yaml_problem(p))] == []


def test_pyyaml_reader_errors_are_mapped() -> None:
    assert is_translated(yaml_problem("special characters are not allowed"))
    assert is_translated(yaml_problem("control characters are not allowed"))


def test_every_json_message_has_a_catalogue_message() -> None:
    messages = json_messages()
    assert {"Expecting value", "Extra data", "Unterminated string starting at"} <= set(messages)
    assert [m for m in messages if not is_translated(json_problem(m))] == []
    assert len(JSON_PROBLEMS) >= 9


def test_every_tomllib_message_has_a_catalogue_message() -> None:
    messages = toml_messages()
    assert {"Invalid value", "Unclosed array", "Invalid statement"} <= set(messages)
    assert [m for m in messages if not is_translated(toml_problem(m))] == []


@pytest.mark.parametrize(("text", "ru"), [
    ("[[snippets]\nspecs = 3\n", "некорректный TOML: имя таблицы [[...]] без закрывающих ]]"),
    ("[[snippets]]\nspecs = c/*.yaml\n",
     "некорректный TOML: значение, которое TOML не может прочитать (текст без кавычек?)"),
    ('[[snippets]]\nspecs = "a"\nspecs = "b"\n',
     "некорректный TOML: ключ или таблица, заданные дважды"),
])
def test_toml_mistakes_are_said_in_russian(text: str, ru: str) -> None:
    with pytest.raises(SpecError) as caught:
        toml_tree("attn.toml", text)
    assert translate(caught.value.message, "ru").replace("\u00a0", " ") == ru


def test_an_unknown_library_message_says_so_and_names_the_library() -> None:
    assert translate(yaml_problem("a brand new problem"), "pl") == \
        "komunikat biblioteki PyYAML nie ma tłumaczenia: a brand new problem"
    assert translate(json_problem("Brand new"), "ru") == \
        "у\u00a0сообщения модуля json нет перевода: Brand new"
    assert translate(numpy_problem("brand new"), "pl") == \
        "komunikat biblioteki NumPy nie ma tłumaczenia: brand new"


@pytest.mark.parametrize(("code", "pl", "ru"), [
    (errno.ENOENT, "nie ma takiego pliku ani katalogu", "нет такого файла или папки"),
    (errno.EISDIR, "to katalog, a\u00a0nie plik", "это папка, а\u00a0не файл"),
    (errno.EACCES, "brak uprawnień", "нет прав доступа"),
    (errno.ELOOP, "dowiązania symboliczne tworzą pętlę", "символические ссылки образуют цикл"),
    (errno.ENOSPC, "brak miejsca na dysku", "на диске не осталось места"),
    # a file mounted by root from a process that has ended since, read through /proc
    (errno.ESRCH, "proces, do którego należy ten plik, już się zakończył",
     "процесс, которому принадлежит этот файл, уже завершился"),
    (errno.EAGAIN, "plik jest chwilowo niedostępny", "файл временно недоступен"),
])
def test_system_errors_are_catalogue_messages(code: int, pl: str, ru: str) -> None:
    error = OSError(code, "English words from the C library")
    assert (translate(os_problem(error), "pl"), translate(os_problem(error), "ru")) == (pl, ru)


def test_an_unmapped_system_error_names_its_errno() -> None:
    error = OSError(errno.ECONNRESET, "Connection reset by peer")
    assert errno.ECONNRESET not in OS_ERRORS
    assert translate(os_problem(error), "pl") == ("system zgłasza błąd ECONNRESET, dla którego "
                                                  "attn nie ma tłumaczenia: Connection reset by "
                                                  "peer")


def test_a_loop_of_links_is_said_in_the_language(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    with pytest.raises(SpecError) as caught:
        load_spec(str(tmp_path / "a.yaml"))
    assert translate(caught.value.message, "ru") == \
        "не удаётся прочитать файл: символические ссылки образуют цикл"


@pytest.mark.parametrize(("text", "pl"), [
    ("tokens: [a, b\nembeddings: [[1], [2]]\n",
     "błędny YAML: lista w\u00a0[ ] bez przecinka albo zamykającego ]"),
    ("tokens:\n\t- a\n", "błędny YAML: tabulator: YAML dopuszcza we wcięciach tylko spacje"),
    ("tokens: a: b\n", "błędny YAML: dwukropek nie może tu wystąpić (drugi klucz w\u00a0tym "
     "samym wierszu albo wartość z\u00a0dwukropkiem, którą trzeba ująć w\u00a0cudzysłów?)"),
])
def test_yaml_mistakes_are_said_in_polish(tmp_path: Path, text: str, pl: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    assert translate(caught.value.message, "pl") == pl


def test_json_mistakes_are_said_in_russian(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text('{"tokens": ["a"], "embeddings": [[1]]} extra', encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(path))
    assert translate(caught.value.message, "ru") == \
        "некорректный JSON: лишний текст после конца документа JSON"

"""`attn snippets`: a manifest, three specs, and what a course repository's CI relies on."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from attncli.cli.snippets import PROGRESS_MIN, progress_bar
from attncli.files.writing import write_atomic
from tests.conftest import CONFIGS, attn_executable

TOML = """\
[[snippets]]
specs = "posts/**/*.attn.yaml"
formats = ["text", "json"]
languages = ["en"]
output = "snippets/{name}.{lang}.{ext}"
"""

YAML = """\
snippets:
  - specs: "posts/**/*.attn.yaml"
    formats: [text, json]
    languages: [en]
    output: "snippets/{name}.{lang}.{ext}"
"""

# posts/<folder>/<name>.attn.yaml <- configs/<example>.yaml
POSTS = {
    "posts/intro/cat.attn.yaml": "cat_chases_mouse",
    "posts/intro/two.attn.yaml": "two_tokens_unscaled",
    "posts/column.attn.yaml": "column_convention",
}
SNIPPETS = sorted(f"snippets/{name}.en.{ext}" for name in ("cat", "two", "column")
                  for ext in ("txt", "json"))


def make_repo(root: Path, manifest: str = TOML, name: str = "attn.toml") -> Path:
    for post, example in POSTS.items():
        (root / post).parent.mkdir(parents=True, exist_ok=True)
        (root / post).write_text((CONFIGS / f"{example}.yaml").read_text("utf-8"), "utf-8")
    (root / name).write_text(manifest, "utf-8")
    return root


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder.parent).as_posix() for p in folder.rglob("*") if p.is_file())


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return make_repo(tmp_path)


def explain(spec: str, fmt: str) -> str:
    result = invoke("explain", spec, "--format", fmt, "--lang", "en")
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_writes_every_snippet_as_explain_prints_it(repo: Path) -> None:
    result = invoke("snippets")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == "attn: 6 written, 0 unchanged, 0 failed\n"
    assert result.stdout == ""
    assert files_under(repo / "snippets") == SNIPPETS
    for post in POSTS:
        name = Path(post).name.removesuffix(".attn.yaml")
        for fmt, ext in (("text", "txt"), ("json", "json")):
            written = (repo / f"snippets/{name}.en.{ext}").read_bytes()
            assert written == explain(post, fmt).encode("utf-8")


def test_the_numbers_in_a_snippet_are_the_worked_example(repo: Path) -> None:
    invoke("snippets")
    doc = json.loads((repo / "snippets/two.en.json").read_text("utf-8"))
    # softmax([1, 0]) = [e/(e+1), 1/(e+1)]; Z row 1 = 0.731 * [10, 0] + 0.269 * [0, 20]
    e = 2.718281828459045
    assert doc["heads"][0]["weights"][0] == pytest.approx([e / (e + 1), 1 / (e + 1)])
    assert doc["output"][0] == pytest.approx([10 * e / (e + 1), 20 / (e + 1)])
    text = (repo / "snippets/two.en.txt").read_text("utf-8")
    assert "first   7.31   5.38" in text


def test_second_run_reports_all_unchanged_and_rewrites_nothing(repo: Path) -> None:
    invoke("snippets")
    before = {name: os.stat(repo / name).st_ino for name in SNIPPETS}
    result = invoke("snippets")
    assert result.exit_code == 0
    assert result.stderr == "attn: 0 written, 6 unchanged, 0 failed\n"
    # an atomic write replaces the file (a new inode): the same inode means it was not rewritten
    assert {name: os.stat(repo / name).st_ino for name in SNIPPETS} == before


def test_only_the_changed_snippet_is_rewritten(repo: Path) -> None:
    invoke("snippets")
    spec = repo / "posts/intro/two.attn.yaml"
    spec.write_text(spec.read_text("utf-8").replace("[10, 0]", "[12, 0]"), "utf-8")
    before = {name: os.stat(repo / name).st_ino for name in SNIPPETS}
    result = invoke("snippets")
    assert result.stderr == "attn: 2 written, 4 unchanged, 0 failed\n"
    changed = {name for name in SNIPPETS if os.stat(repo / name).st_ino != before[name]}
    assert changed == {"snippets/two.en.txt", "snippets/two.en.json"}


def test_check_names_the_snippet_edited_by_hand(repo: Path) -> None:
    invoke("snippets")
    edited = repo / "snippets/cat.en.txt"
    edited.write_text(edited.read_text("utf-8") + "a line added by hand\n", "utf-8")
    (repo / "snippets/column.en.json").unlink()
    untouched = edited.read_bytes()
    result = invoke("snippets", "--check")
    assert result.exit_code == 1
    # in the manifest's order: each glob's files sorted by path, then format, then language
    assert result.stderr.splitlines() == [
        "attn: snippets/column.en.json is missing; run: attn snippets",
        "attn: snippets/cat.en.txt is stale; run: attn snippets",
        "attn: 2 stale, 4 up to date, 0 failed",
    ]
    assert result.stdout == ""
    assert edited.read_bytes() == untouched
    assert not (repo / "snippets/column.en.json").exists()


def test_check_passes_when_everything_is_up_to_date(repo: Path) -> None:
    invoke("snippets")
    result = invoke("snippets", "--check")
    assert (result.exit_code, result.stderr) == (0, "attn: 0 stale, 6 up to date, 0 failed\n")


def test_check_on_a_fresh_repository_lists_every_snippet_as_missing(repo: Path) -> None:
    result = invoke("snippets", "--check")
    assert result.exit_code == 1
    assert len([line for line in result.stderr.splitlines() if "is missing" in line]) == 6
    assert not (repo / "snippets").exists()


def test_the_fix_command_names_a_manifest_given_on_the_command_line(repo: Path) -> None:
    (repo / "attn.toml").rename(repo / "site snippets.toml")
    result = invoke("snippets", "--check", "site snippets.toml")
    assert result.exit_code == 1
    assert ("attn: snippets/cat.en.txt is missing; run: attn snippets 'site snippets.toml'"
            in result.stderr.splitlines())


def test_diff_prints_what_writing_would_change_and_git_applies_it(repo: Path) -> None:
    invoke("snippets")
    edited = repo / "snippets/two.en.txt"
    good = edited.read_text("utf-8")
    edited.write_text(good.replace("7.31", "7.30"), "utf-8")
    result = invoke("snippets", "--check", "--diff")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == ["--- a/snippets/two.en.txt",
                                             "+++ b/snippets/two.en.txt"]
    assert "-   first   7.30   5.38" in result.stdout.splitlines()
    assert "+   first   7.31   5.38" in result.stdout.splitlines()
    assert edited.read_text("utf-8") != good  # --diff writes nothing
    (repo / "fix.diff").write_text(result.stdout, "utf-8")
    subprocess.run(["git", "apply", "fix.diff"], cwd=repo, check=True)
    assert edited.read_text("utf-8") == good


def test_diff_without_check_exits_0(repo: Path) -> None:
    result = invoke("snippets", "--diff")
    assert result.exit_code == 0
    assert "+++ b/snippets/cat.en.json" in result.stdout.splitlines()
    assert not (repo / "snippets").exists()


def test_a_broken_spec_fails_with_file_line_and_the_rest_is_still_written(repo: Path) -> None:
    spec = repo / "posts/intro/two.attn.yaml"
    spec.write_text(spec.read_text("utf-8").replace("[first, second]", "[first, second, third]"),
                    "utf-8")
    result = invoke("snippets")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "posts/intro/two.attn.yaml:9:3: embeddings: has 2 rows, expected one per token (3)",
        "attn: 4 written, 0 unchanged, 2 failed",
    ]
    assert files_under(repo / "snippets") == [s for s in SNIPPETS if "/two." not in s]


def test_check_exits_2_for_a_broken_spec_even_when_a_snippet_is_stale(repo: Path) -> None:
    invoke("snippets")
    (repo / "snippets/cat.en.txt").write_text("stale\n", "utf-8")
    (repo / "posts/column.attn.yaml").write_text("tokens: [a]\nembeddings: [[1, x]]\n", "utf-8")
    result = invoke("snippets", "--check")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "posts/column.attn.yaml:2:18: embeddings[0][1]: expected a number, found the text \"x\"",
        "attn: snippets/cat.en.txt is stale; run: attn snippets",
        "attn: 1 stale, 3 up to date, 2 failed",
    ]


def test_a_yaml_manifest_writes_the_same_files(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    make_repo(tmp_path, YAML, "snippets.yaml")
    result = invoke("snippets")
    assert result.exit_code == 0, result.stderr
    assert files_under(tmp_path / "snippets") == SNIPPETS


def test_paths_are_relative_to_the_manifests_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    make_repo(tmp_path / "site")
    monkeypatch.chdir(tmp_path)
    result = invoke("snippets", "site/attn.toml")
    assert result.exit_code == 0, result.stderr
    assert files_under(tmp_path / "site/snippets") == SNIPPETS
    (tmp_path / "site/snippets/two.en.txt").write_text("old\n", "utf-8")
    result = invoke("snippets", "--check", "site/attn.toml")
    assert "attn: site/snippets/two.en.txt is stale; run: attn snippets site/attn.toml" in (
        result.stderr.splitlines())


def test_output_template_placeholders_and_precision(repo: Path) -> None:
    (repo / "attn.toml").write_text(textwrap.dedent("""\
        [[snippets]]
        specs = ["posts/intro/two.attn.yaml", "posts/column.attn.yaml"]
        formats = ["text"]
        output = "out/{dir}/{format}/{name}-{lang}.{ext}"
        precision = 4
    """), "utf-8")
    result = invoke("snippets")
    assert result.exit_code == 0, result.stderr
    assert files_under(repo / "out") == ["out/posts/intro/text/two-en.txt",
                                         "out/posts/text/column-en.txt"]
    # 10·e/(e+1) = 7.31059 to four decimals
    assert "7.3106" in (repo / "out/posts/intro/text/two-en.txt").read_text("utf-8")


@pytest.mark.parametrize(("manifest", "message"), [
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text", "docx"]\noutput = "s/{name}"\n',
     'attn.toml:3:20: snippets[0].formats[1]: expected one of text, json, latex, markdown, svg, '
     'html, typst, found the text "docx"'),
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text"]\nlanguages = ["en", "de"]\n'
     'output = "s/{name}.{lang}"\n',
     'attn.toml:4:20: snippets[0].languages[1]: expected one of en, pl, ru, found the text "de"'),
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text"]\noutput = "s/{nmae}"\n',
     "attn.toml:4:10: snippets[0].output: unknown placeholder {nmae}; expected one of {name}, "
     "{dir}, {lang}, {format}, {ext}"),
    ('[[snippets]]\nspecs = "post/*.attn.yaml"\nformats = ["text"]\noutput = "s/{name}"\n',
     "attn.toml:2:9: snippets[0].specs: post/*.attn.yaml matches no spec file"),
    ('[[snippets]]\nspecs = "posts/**/*.attn.yaml"\nformats = ["text", "json"]\n'
     'output = "s/{name}.txt"\n',
     "attn.toml:4:10: snippets[0].output: two snippets would be written to s/column.txt "
     "(posts/column.attn.yaml [text, en] and posts/column.attn.yaml [json, en]); "
     "use {name}, {dir}, {lang} or {ext} to tell them apart"),
    ('[[snippets]]\nspecs = "posts/**/*.attn.yaml"\nformat = ["text"]\noutput = "s/{name}"\n',
     "attn.toml:3:1: snippets[0].format: unknown key; did you mean formats?"),
    ('[[snippets]]\nspecs = "posts/**/*.attn.yaml"\noutput = "s/{name}"\n',
     "attn.toml:1:1: snippets[0]: the key formats is missing"),
    ('[[snippets]]\nspecs = "/etc/*.yaml"\nformats = ["text"]\noutput = "s/{name}"\n',
     "attn.toml:2:9: snippets[0].specs: expected a path relative to the manifest's folder, "
     "found /etc/*.yaml"),
    ('[snippet]\nspecs = "x"\n', "attn.toml:1:1: snippet: unknown key; did you mean snippets?"),
    # an inline table: the key is found inside its braces, after a quoted key beside it
    ('snippets = [\n  {"specs" = "posts/*.attn.yaml", formats = ["text"], output = "s/{name}",'
     ' precison = 3},\n]\n',
     "attn.toml:2:76: snippets[0].precison: unknown key; did you mean precision?"),
    # a dotted header after an array of tables names a table of its latest entry
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text"]\noutput = "s/{name}"\n'
     '[[snippets]]\nspecs = "posts/*.attn.yaml"\n[snippets.view]\nhead = 1\n',
     "attn.toml:7:1: snippets[1].view: unknown key; expected one of specs, formats, languages, "
     "output, precision, steps, expand, head, reading, header, md_flavor, matrix"),
    ("# what CI writes\n[tool.attn]\nx = 1\n",
     "attn.toml:2:1: tool: unknown key; expected one of snippets"),
    ('[[snippets]]\nspecs = "posts/*.yaml\n', "attn.toml:2:22: malformed TOML: a quoted text "
     "without its closing quote on this line"),
    ("", "attn.toml: the manifest is empty, expected a list named snippets"),
    # only comments and blank lines: as empty as no byte, the same message
    ("# the gallery's snippets\n\n  # none yet\n",
     "attn.toml: the manifest is empty, expected a list named snippets"),
])
def test_a_bad_toml_manifest_exits_2_naming_the_key(repo: Path, manifest: str,
                                                    message: str) -> None:
    (repo / "attn.toml").write_text(manifest, "utf-8")
    for args in (["snippets"], ["snippets", "--check"]):
        result = invoke(*args)
        assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert not (repo / "s").exists()


EMPTY = {
    "en": "the manifest is empty, expected a list named snippets",
    "pl": "manifest jest pusty; oczekiwano listy o\u00a0nazwie snippets",  # no line ends with "o"
    "ru": "манифест пуст; ожидается список с\u00a0именем snippets",
}


@pytest.mark.parametrize("lang", list(EMPTY))
@pytest.mark.parametrize(("name", "manifest"), [("attn.toml", ""), ("attn.toml", "# none\n"),
                                                ("snippets.yaml", "# none\n")])
def test_an_empty_manifest_and_one_of_comments_say_the_same(repo: Path, name: str, manifest: str,
                                                            lang: str) -> None:
    (repo / name).write_text(manifest, "utf-8")
    result = invoke("snippets", name, "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, f"{name}: {EMPTY[lang]}\n")


@pytest.mark.parametrize(("manifest", "message"), [
    # a list over several lines, with a comment between its items
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = [\n  "text",  # one, "two"\n'
     '  "docx",\n]\noutput = "s/{name}"\n',
     'attn.toml:5:3: snippets[0].formats[1]: expected one of text, json, latex, markdown, svg, '
     'html, typst, found the text "docx"'),
    # an inline table in a list, a quoted key before the value
    ('snippets = [\n  {"specs" = "posts/*.attn.yaml", formats = ["text"], output = "s/{name}",'
     ' precision = 13},\n]\n',
     "attn.toml:2:88: snippets[0].precision: expected a whole number from 0 to 12, found 13"),
    # the second entry of an array of tables; its header when a key is missing
    ('[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text"]\noutput = "s/{name}"\n\n'
     '  [[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["text"]\n',
     "attn.toml:6:3: snippets[1]: the key output is missing"),
    # a multi-line string before the value does not move it
    ('[[snippets]]\nspecs = """posts/\n*.attn.yaml"""\nformats = ["text"]\nlanguages = '
     '["en",\t"de"]\noutput = "s/{name}.{lang}"\n',
     'attn.toml:5:20: snippets[0].languages[1]: expected one of en, pl, ru, found the text "de"'),
])
def test_a_wrong_toml_value_is_named_at_its_line_and_column(repo: Path, manifest: str,
                                                            message: str) -> None:
    """TOML's reader keeps no positions: the columns here are counted by hand in the text."""
    (repo / "attn.toml").write_text(manifest, "utf-8")
    result = invoke("snippets", "--check")
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert not (repo / "s").exists()


@pytest.mark.parametrize(("lang", "message"), [
    ("pl", 'attn.toml:3:20: snippets[0].formats[1]: oczekiwano jednej z\xa0wartości (text, json, '
           'latex, markdown, svg, html, typst), otrzymano: tekst „docx”'),
    ("ru", 'attn.toml:3:20: snippets[0].formats[1]: ожидается одно из значений (text, json, '
           'latex, markdown, svg, html, typst), получено: текст «docx»'),
])
def test_a_wrong_toml_value_is_located_in_every_language(repo: Path, lang: str,
                                                         message: str) -> None:
    (repo / "attn.toml").write_text('[[snippets]]\nspecs = "posts/*.attn.yaml"\n'
                                    'formats = ["text", "docx"]\noutput = "s/{name}"\n', "utf-8")
    result = invoke("snippets", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert not (repo / "s").exists()


@pytest.mark.parametrize(("manifest", "message"), [
    ("snippets:\n  - specs: posts/**/*.attn.yaml\n    formats: [text]\n    languages: [en, xx]\n"
     "    output: s/{name}.{lang}\n",
     'snippets.yaml:4:21: snippets[0].languages[1]: expected one of en, pl, ru, found the text '
     '"xx"'),
    ("snippets:\n  - specs: posts/**/*.attn.yaml\n    formats: [text]\n    precision: 13\n"
     "    output: s/{name}\n",
     "snippets.yaml:4:16: snippets[0].precision: expected a whole number from 0 to 12, found 13"),
    ("snippets:\n  - specs: [posts/**/*.attn.yaml, drafts/*.yaml]\n    formats: [text]\n"
     "    output: s/{name}\n",
     "snippets.yaml:2:35: snippets[0].specs[1]: drafts/*.yaml matches no spec file"),
    ("snippets:\n  specs: x\n",
     "snippets.yaml:2:3: snippets: expected a list of snippet entries, found a mapping of 1 "
     "key"),
])
def test_a_bad_yaml_manifest_exits_2_with_line_and_column(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          manifest: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    make_repo(tmp_path, manifest, "snippets.yaml")
    result = invoke("snippets", "--check")
    assert (result.exit_code, result.stderr) == (2, message + "\n")


def test_malformed_yaml_in_a_manifest_is_reported_where_it_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    make_repo(tmp_path, "snippets: [\n", "snippets.yaml")
    result = invoke("snippets")
    assert result.exit_code == 2
    # the words after the prefix are PyYAML's (its C and Python parsers word them differently)
    assert result.stderr.startswith("snippets.yaml:2:1: malformed YAML: ")
    assert result.stderr.count("\n") == 1


def test_no_manifest_or_two_manifests_is_a_usage_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("snippets")
    assert result.exit_code == 2
    assert result.stderr == ("attn: no manifest here: expected attn.toml or snippets.yaml in "
                             "the current folder, or a manifest path\n")
    make_repo(tmp_path)
    (tmp_path / "snippets.yaml").write_text(YAML, "utf-8")
    result = invoke("snippets")
    assert (result.exit_code, result.stderr) == (
        2, "attn: found both attn.toml and snippets.yaml; name the one to use\n")


def test_an_output_that_cannot_be_written_is_a_failed_snippet(repo: Path) -> None:
    (repo / "snippets").mkdir()
    (repo / "snippets/cat.en.txt").mkdir()  # a folder where the file should go
    result = invoke("snippets")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("snippets/cat.en.txt: cannot write the file: ")
    assert lines[1] == "attn: 5 written, 0 unchanged, 1 failed"


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = (CONFIGS / "two_tokens_unscaled.yaml").read_text("utf-8")
    posts = tmp_path / "posts"
    posts.mkdir()
    for i in range(PROGRESS_MIN):
        (posts / f"p{i:02}.attn.yaml").write_text(spec, "utf-8")
    (tmp_path / "attn.toml").write_text(TOML, "utf-8")
    result = invoke("snippets")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == f"attn: {2 * PROGRESS_MIN} written, 0 unchanged, 0 failed\n"


def test_the_real_attn_command_runs_the_whole_cycle(tmp_path: Path) -> None:
    make_repo(tmp_path)

    def attn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([attn_executable(), "snippets", *args], cwd=tmp_path,
                              capture_output=True, text=True, check=False)

    first = attn()
    assert (first.returncode, first.stderr) == (0, "attn: 6 written, 0 unchanged, 0 failed\n")
    assert (attn("--check").returncode, attn().stderr) == (
        0, "attn: 0 written, 6 unchanged, 0 failed\n")
    write_atomic(tmp_path / "snippets/two.en.json", "{}\n")
    stale = attn("--check")
    assert stale.returncode == 1
    assert "attn: snippets/two.en.json is stale; run: attn snippets" in stale.stderr
    (tmp_path / "posts/intro/cat.attn.yaml").write_text("tokens: [a]\nembeddings: 1\n", "utf-8")
    broken = attn("--check")
    assert broken.returncode == 2
    assert broken.stderr.splitlines()[0] == (
        "posts/intro/cat.attn.yaml:2:13: embeddings: expected a matrix (a list of rows of "
        "numbers), found the number 1")
    assert "Traceback" not in broken.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_is_drawn_on_a_terminal_for_many_snippets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("TERM", "xterm-256color")  # Rich draws nothing on a dumb terminal
    with progress_bar(PROGRESS_MIN - 1) as tick:
        tick()
    assert terminal.getvalue() == ""  # too few to be worth a bar
    with progress_bar(PROGRESS_MIN) as tick:
        for _ in range(PROGRESS_MIN):
            tick()
    assert "attn snippets" in terminal.getvalue()


def _pid_of_each_snippet(work: tuple[list[object], bool, object]) -> list[int]:
    time.sleep(0.2)  # long enough that another worker takes the next spec
    return [os.getpid()] * len(work[0])


def test_jobs_render_each_spec_in_a_process_of_its_own(repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from attncli.snippets import run as snippets
    from attncli.snippets.manifest import load_manifest, targets

    planned = targets(load_manifest(repo / "attn.toml"))  # 3 specs x 2 formats
    monkeypatch.setattr(snippets, "_spec_snippets", _pid_of_each_snippet)
    pids: tuple[int, ...] = snippets.generate(planned, write=False, jobs=3).outcomes  # type: ignore[assignment]
    by_spec: dict[Path, set[int]] = {}
    for target, pid in zip(planned, pids, strict=True):
        by_spec.setdefault(target.spec, set()).add(pid)
    assert len(by_spec) == 3 and all(len(p) == 1 for p in by_spec.values())
    # the first spec is made here, before any fork (what it loads then serves every worker);
    # the other two in two workers at once
    first, *others = (pid for (pid,) in by_spec.values())
    assert first == os.getpid()
    assert os.getpid() not in others and len(set(others)) == 2
    assert set(snippets.generate(planned, write=False, jobs=1).outcomes) == {os.getpid()}


def test_any_number_of_jobs_writes_the_same_bytes_and_says_the_same(repo: Path) -> None:
    spec = repo / "posts/intro/two.attn.yaml"  # a broken spec among them: its error once
    spec.write_text(spec.read_text("utf-8").replace("[first, second]", "[first, second, third]"),
                    "utf-8")
    said = []
    written = []
    for jobs in ("1", "2", "5"):
        shutil.rmtree(repo / "snippets", ignore_errors=True)
        result = invoke("snippets", "--jobs", jobs)
        assert result.exit_code == 2
        said.append(result.stderr)
        written.append({name: (repo / name).read_bytes()
                        for name in files_under(repo / "snippets")})
    assert said[0].splitlines() == [
        "posts/intro/two.attn.yaml:9:3: embeddings: has 2 rows, expected one per token (3)",
        "attn: 4 written, 0 unchanged, 2 failed",
    ]
    assert said[1] == said[2] == said[0]
    assert len(written[0]) == 4 and written[1] == written[2] == written[0]


@pytest.mark.parametrize(("lang", "message"), [
    ("en", "attn: --jobs: expected a whole number of at least 1, found 0"),
    ("pl", "attn: --jobs: oczekiwano liczby całkowitej nie mniejszej niż 1, otrzymano: 0"),
])
def test_jobs_below_one_is_a_usage_error(repo: Path, lang: str, message: str) -> None:
    result = invoke("snippets", "--jobs", "0", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert not (repo / "snippets").exists()


def test_an_html_snippet_is_the_page_attn_export_html_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its every shown number written out (--expand shown), as the export's page is."""
    monkeypatch.chdir(tmp_path)
    make_repo(tmp_path, '[[snippets]]\nspecs = "posts/intro/cat.attn.yaml"\nformats = ["html"]\n'
              'output = "out/{name}.{ext}"\n')
    assert invoke("snippets").exit_code == 0
    page = (tmp_path / "out" / "cat.html").read_text("utf-8")
    exported = invoke("export", "posts/intro/cat.attn.yaml", "--html")
    assert exported.exit_code == 0 and page == exported.stdout
    # every number of Q, K and V (3 × 2 each), S and S′ (3 × 3 each), A (3 × 3) and Z (3 × 2)
    assert page.count("data-lines=") == 3 * 3 * 2 + 3 * 3 * 2 + 3 * 3 + 3 * 2


def test_checking_carries_no_document_back(repo: Path) -> None:
    """--check and --diff hold, for the whole tree, statuses and diffs, never the documents:
    the memory of 48 specs in 4 formats is that of 12 (docs/snippets.md)."""
    from attncli.snippets.manifest import load_manifest, targets
    from attncli.snippets.run import generate

    planned = targets(load_manifest(repo / "attn.toml"))
    assert len(planned) == 6  # 3 specs x 2 formats, none written yet
    checked = generate(planned, write=False, jobs=2).outcomes
    assert [(o.status, o.new, o.old, o.diff) for o in checked] == [
        ("missing", None, None, None)] * 6
    diffs = generate(planned, write=False, jobs=2, diff=True).outcomes
    assert invoke("snippets").exit_code == 0
    for outcome in diffs:
        assert (outcome.status, outcome.new, outcome.old) == ("missing", None, None)
        name = outcome.target.output.as_posix()
        head, body = outcome.diff.split("@@\n", 1) if outcome.diff else ("", "")
        assert head.startswith(f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1,")
        written = outcome.target.output.read_text("utf-8")
        assert body == "".join("+" + line for line in written.splitlines(keepends=True))
    for keep_diff in (False, True):
        again = generate(planned, write=False, jobs=2, diff=keep_diff).outcomes
        assert [(o.status, o.new, o.old, o.diff) for o in again] == [
            ("unchanged", None, None, None)] * 6


@pytest.mark.parametrize(("make", "kind"), [(os.mkfifo, "a named pipe (FIFO)"),
                                            (os.mkdir, "a folder"),
                                            (lambda p: os.symlink("/nonexistent", p),
                                             "a symbolic link")])
def test_a_manifest_that_is_no_file_is_named_as_what_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None],
        kind: str) -> None:
    # attn.toml a FIFO, a folder or a dangling link was "no manifest here"
    monkeypatch.chdir(tmp_path)
    make(tmp_path / "attn.toml")
    result = invoke("snippets")
    assert (result.exit_code, result.stderr) == (
        2, f"attn.toml: this is {kind}, expected a regular file\n")

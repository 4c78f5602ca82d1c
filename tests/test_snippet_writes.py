"""`attn snippets` writes only what it makes (attncli/snippets/rules.py, docs/snippets.md).

The cases of issue #28 (items 1 and 2 of its list): a manifest from a pull request wrote
`.git/hooks/pre-commit` over a hook (mode 755, kept), and the next `git commit` ran what the
spec's description said; `.git/config` could be written the same way; a snippet named like a
file that a spec reads (a tokenizer.json) was written over it. Each refusal is one line naming
the manifest's entry, exit 2, and not a byte written: the tree is compared before and after.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run

HOOK = "#!/bin/sh\necho the hook that was there\n"
SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"
# a spec whose title is a shell's first line and whose description a command
PLANTED = 'title: "#!/bin/sh"\ndescription: "touch /tmp/attn-planted"\n' + SPEC


def entry(output: str, specs: str = "*.attn.yaml", formats: str = '["text"]') -> str:
    return f'[[snippets]]\nspecs = "{specs}"\nformats = {formats}\noutput = "{output}"\n'


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every entry under `root` with what it holds and its permission bits."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        held = ("link:" + os.readlink(path) if path.is_symlink() else "dir" if path.is_dir()
                else path.read_bytes().hex())
        found[path.relative_to(root).as_posix()] = (held, stat.S_IMODE(info.st_mode))
    return found


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository's tree: a hook installed as pre-commit installs it, one spec."""
    root = tmp_path / "repo"
    (root / ".git/hooks").mkdir(parents=True)
    (root / ".git/config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    hook = root / ".git/hooks/pre-commit"
    hook.write_text(HOOK, encoding="utf-8")
    hook.chmod(0o755)
    (root / "planted.attn.yaml").write_text(PLANTED, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def refused(root: Path, manifest: str, line: str, *options: str) -> None:
    (root / "attn.toml").write_text(manifest, encoding="utf-8")
    before = snapshot(root)
    for args in (["snippets", *options], ["snippets", "--check", *options],
                 ["snippets", "--diff", *options]):
        result = run(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n"), args
    assert snapshot(root) == before


DOT = ("attn.toml:4:10: snippets[0].output: the snippet {output} has {part} in its path; attn "
       "snippets writes nothing whose path has a name beginning with a dot (such as .git or "
       ".github)")


@pytest.mark.parametrize(("output", "part"), [
    (".git/hooks/pre-commit", ".git"),
    (".git/hooks/{name}.txt", ".git"),  # the extension is no way in
    (".git/config", ".git"),
    (".github/workflows/{name}.txt", ".github"),
    ("docs/.{name}.txt", ".planted.txt"),
    ("{dir}/.venv/bin/{name}.txt", ".venv"),
])
def test_nothing_is_written_where_a_name_begins_with_a_dot(repo: Path, output: str,
                                                           part: str) -> None:
    shown = output.replace("{name}", "planted").replace("{dir}", ".")
    shown = shown[2:] if shown.startswith("./") else shown
    refused(repo, entry(output), DOT.format(output=shown, part=part))
    assert (repo / ".git/hooks/pre-commit").read_text(encoding="utf-8") == HOOK


def test_a_folder_linked_into_git_is_no_way_in(repo: Path) -> None:
    (repo / "out").symlink_to(".git/hooks")
    refused(repo, entry("out/{name}.txt"), DOT.format(output="out/planted.txt", part=".git"))


TOOL = ("attn.toml:4:10: snippets[0].output: the snippet {output} has {part} in its path; attn "
        "snippets writes nothing into a tool's folder (node_modules, bower_components, "
        "__pycache__, site-packages, venv)")


@pytest.mark.parametrize(("output", "part"), [
    ("node_modules/.bin/{name}.txt", "node_modules"),  # the first part that breaks a rule
    (".cache/node_modules/{name}.txt", ".cache"),
    ("node_modules/left-pad/{name}.txt", "node_modules"),
    ("docs/__pycache__/{name}.txt", "__pycache__"),
    ("venv/lib/site-packages/{name}.txt", "venv"),
    # a file system that folds case (macOS, Windows) takes these for the tool folders
    ("NODE_MODULES/left-pad/{name}.txt", "NODE_MODULES"),
    ("Venv/bin/{name}.txt", "Venv"),
])
def test_nothing_is_written_into_a_tool_folder_without_a_dot(repo: Path, output: str,
                                                             part: str) -> None:
    shown = output.replace("{name}", "planted")
    line = (DOT if part.startswith(".") else TOOL).format(output=shown, part=part)
    refused(repo, entry(output), line)


@pytest.mark.parametrize(("output", "formats", "shown", "extension", "fmt"), [
    ("hooks/pre-commit", '["text"]', "hooks/pre-commit", ".txt", "text"),
    ("scripts/{name}.sh", '["text"]', "scripts/planted.sh", ".txt", "text"),
    ("Makefile", '["text"]', "Makefile", ".txt", "text"),
    ("{name}.txt", '["json"]', "planted.txt", ".json", "json"),
    ("data/{name}.csv", '["text"]', "data/planted.csv", ".txt", "text"),
    ("{name}.attn.yaml.{lang}", '["markdown"]', "planted.attn.yaml.en", ".md", "markdown"),
])
def test_a_snippet_ends_in_its_formats_extension(repo: Path, output: str, formats: str,
                                                 shown: str, extension: str, fmt: str) -> None:
    refused(repo, entry(output, formats=formats),
            f"attn.toml:4:10: snippets[0].output: the snippet {shown} does not end in {extension}, "
            f"the extension of the format {fmt}")


def tokenizer_spec(root: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"cat": 0, "mouse": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    (root / "model").mkdir()
    tokenizer.save(str(root / "model/tokenizer.json"))
    (root / "model/cat.attn.yaml").write_text(
        'tokens: {tokenizer: tokenizer.json, text: "cat mouse"}\n'
        "embeddings: [[1, 0], [0, 1]]\n", encoding="utf-8")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_snippet_is_written_over_a_file_a_spec_reads(repo: Path, jobs: str) -> None:
    tokenizer_spec(repo)
    manifest = (entry("{dir}/{name}.{ext}", specs="model/*.attn.yaml")  # written first
                + entry("model/tokenizer.json", specs="planted.attn.yaml", formats='["json"]'))
    refused(repo, manifest, "attn.toml:8:10: snippets[1].output: the snippet model/tokenizer.json "
            "would be written over the input model/tokenizer.json", "--jobs", jobs)


@pytest.mark.parametrize("broken", ["{spec}maks: 1\n", "maks: 1\n{spec}"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_snippet_is_written_over_a_file_a_spec_that_cannot_be_read_names(
        repo: Path, broken: str, jobs: str) -> None:
    # the spec fails at a key before its tokenizer is read, so what it reads is not known:
    # the other entry's snippet replaced its tokenizer (and the next run of it failed on that)
    tokenizer_spec(repo)
    spec = repo / "model/cat.attn.yaml"
    spec.write_text(broken.format(spec=spec.read_text(encoding="utf-8")), encoding="utf-8")
    manifest = (entry("{dir}/{name}.{ext}", specs="model/*.attn.yaml")
                + entry("model/tokenizer.json", specs="planted.attn.yaml", formats='["json"]'))
    refused(repo, manifest, "attn.toml:8:10: snippets[1].output: the snippet model/tokenizer.json "
            "would be written over the input model/tokenizer.json", "--jobs", jobs)


@pytest.mark.parametrize(("named", "protected"), [
    ('tokens: {tokenizer: "tokenizer\\x2ejson", text: "cat mouse"}\n', "model/tokenizer.json"),
    ('tokens: {tokenizer: "tokenizer.js\\\n  on", text: "cat mouse"}\n', "model/tokenizer.json"),
    ('tokens: {tokenizer: linked.json, text: "cat mouse"}\n', "model/tokenizer.json"),
    ("model: {path: saved, layer: 0}\ntokens: {ids: [0, 1]}\n", "model/saved/config.json"),
])
def test_no_snippet_is_written_over_a_file_a_broken_spec_names_in_other_words(
        repo: Path, named: str, protected: str) -> None:
    # the name as YAML reads it (an escape, a line continued), a link to the file, or a file a
    # model folder holds that no spec writes: a byte search of the spec's text finds none of them
    tokenizer_spec(repo)
    (repo / "model/linked.json").symlink_to("tokenizer.json")
    (repo / "model/saved").mkdir()
    (repo / "model/saved/config.json").write_text('{"model_type": "llama"}', encoding="utf-8")
    (repo / "model/cat.attn.yaml").write_text(named + "maks: 1\n", encoding="utf-8")
    manifest = (entry("{dir}/{name}.{ext}", specs="model/*.attn.yaml")
                + entry(protected, specs="planted.attn.yaml", formats='["json"]'))
    refused(repo, manifest, f"attn.toml:8:10: snippets[1].output: the snippet {protected} "
            f"would be written over the input {protected}")


def test_a_tree_that_keeps_the_rules_is_written(repo: Path) -> None:
    tokenizer_spec(repo)
    (repo / "attn.toml").write_text(entry("snippets/{name}.{lang}.{ext}", specs="**/*.attn.yaml",
                                          formats='["text", "json"]'), encoding="utf-8")
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (0, "attn: 4 written, 0 unchanged, 0 failed\n")
    assert sorted(p.name for p in (repo / "snippets").iterdir()) == [
        "cat.en.json", "cat.en.txt", "planted.en.json", "planted.en.txt"]


def test_a_snippet_never_has_an_exec_bit(repo: Path) -> None:
    (repo / "attn.toml").write_text(entry("out/{name}.{ext}"), encoding="utf-8")
    (repo / "out").mkdir()
    old = repo / "out/planted.txt"
    old.write_text("#!/bin/sh\nrm -rf ~\n", encoding="utf-8")
    old.chmod(0o4775)  # setuid, group-writable, executable
    kept = os.umask(0o022)
    try:
        assert run("snippets").exit_code == 0
        replaced = stat.S_IMODE(old.stat().st_mode)
        old.unlink()
        assert run("snippets").exit_code == 0
        fresh = stat.S_IMODE(old.stat().st_mode)
    finally:
        os.umask(kept)
    assert replaced == 0o664  # the permissions it had, less exec and setuid
    assert fresh == 0o644  # 0666 less the umask
    assert old.read_text(encoding="utf-8").startswith("#!/bin/sh\n")  # the title, inert


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "attn.toml:4:10: snippets[0].output: ścieżka fragmentu .git/config zawiera .git; attn "
           "snippets nie zapisuje niczego pod ścieżką, w\u00a0której któraś nazwa zaczyna się "
           "od kropki (jak .git czy .github)"),
    ("ru", "attn.toml:4:10: snippets[0].output: путь фрагмента .git/config содержит .git; attn "
           "snippets не записывает файлы, в\u00a0пути к\u00a0которым есть имя, начинающееся "
           "с\u00a0точки (например,\u00a0.git или .github)"),
])
def test_the_refusal_in_the_users_language(repo: Path, lang: str, line: str) -> None:
    # a one-letter word is bound to the next by a no-break space (U+00A0), as typeset
    refused(repo, entry(".git/config"), line, "--lang", lang)


def test_a_backslash_is_read_as_windows_reads_it(repo: Path) -> None:
    # TOML's "\\" is one backslash: the template x\.git\planted.txt
    refused(repo, entry("x\\\\.git\\\\{name}.txt"),
            DOT.format(output="x\\.git\\planted.txt", part=".git"))


@pytest.mark.parametrize(("name", "shown"), [
    ("a\x1b[2J", "a\\x1b[2J"),  # an escape a terminal runs when `ls` lists the folder
    ("a\nb", "a\\nb"),  # a newline, which splits the name in every line-based script
    ("a\u202eb", "a\\u202eb"),  # a right-to-left override, which shows the name reversed
])
def test_nothing_is_written_whose_name_holds_a_hidden_character(repo: Path, name: str,
                                                                shown: str) -> None:
    (repo / f"{name}.attn.yaml").write_text(SPEC, encoding="utf-8")
    refused(repo, entry("out/{name}.txt", specs=f"{name[0]}?{name[2:]}.attn.yaml"),
            f"attn.toml:4:10: snippets[0].output: the snippet out/{shown}.txt has a control or "
            "invisible character in its path; attn snippets writes only names that show as they "
            "are")


def test_a_nul_in_the_output_is_said_in_attns_words(repo: Path) -> None:
    # TOML's "\u0000": Python's own "embedded null byte" was quoted, in English
    refused(repo, entry("out/{name}\\u0000.txt"),
            "attn.toml:4:10: snippets[0].output: out/planted\\x00.txt: a file name cannot hold "
            "the character NUL")


def test_a_snippet_that_cannot_be_written_leaves_no_folder_made_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a name of 484 bytes: the system refused it once the folders before it were made; they
    # were left behind, empty, beside the refusal, then made and removed again. It is refused
    # as the manifest is read, at its output key, and no folder is made
    (tmp_path / "abcdefgh.attn.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "attn.toml").write_text(entry("out/deeper/" + "{name}" * 60 + ".{ext}"),
                                        encoding="utf-8")
    before, changed = snapshot(tmp_path), tmp_path.stat().st_mtime_ns
    monkeypatch.chdir(tmp_path)
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (2, (
        "attn.toml:4:10: snippets[0].output: the snippet out/deeper/abcdefgha…cdefgh.txt: the "
        "name abcdefghabcdefghabcd…cdefgh.txt has 484 bytes; the file system takes names of up "
        "to 255 bytes\n"))
    assert snapshot(tmp_path) == before
    assert tmp_path.stat().st_mtime_ns == changed


def test_a_snippet_a_thousand_folders_deep_is_written(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """mkdir(parents=True) recursed a level a folder: 1,000 folders were Python's RecursionError,
    exit 3. They are made one at a time."""
    (tmp_path / "cat.attn.yaml").write_text(SPEC, encoding="utf-8")
    deep = "snippets/" + "d/" * 1000
    (tmp_path / "attn.toml").write_text(entry(deep + "{name}.{ext}"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    try:
        result = run("snippets")
        assert (result.exit_code, result.stderr) == (0, "attn: 1 written, 0 unchanged, 0 failed\n")
        assert (tmp_path / deep / "cat.txt").read_text(encoding="utf-8").startswith("Attention")
        assert run("snippets", "--check").exit_code == 0
    finally:  # the test runner's own clean-up recurses a level a folder too
        subprocess.run(["rm", "-rf", str(tmp_path / "snippets")], check=True)

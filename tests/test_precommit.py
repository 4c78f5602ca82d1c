"""The pre-commit hook runs `attn snippets --check`: the same check, the same exit codes."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import yaml

from tests.conftest import ROOT, attn_executable
from tests.test_snippets import make_repo


def hook(name: str = "attn-snippets") -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert [h["id"] for h in hooks] == ["attn-snippets", "attn-fill"]
    found: dict[str, object] = next(h for h in hooks if h["id"] == name)
    return found


def test_the_hook_checks_snippets_without_file_names() -> None:
    found = hook()
    assert found["entry"] == "attn snippets --check"
    assert (found["language"], found["pass_filenames"]) == ("python", False)
    # a snippet edited by hand must trigger it too, so it is not limited to spec files
    assert "files" not in found and "types" not in found


def test_the_hooks_entry_passes_fails_and_refuses_as_the_check_does(tmp_path: Path) -> None:
    make_repo(tmp_path)
    program, *args = shlex.split(str(hook()["entry"]))
    assert program == "attn"

    def run_hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run([attn_executable(), *args], cwd=tmp_path, capture_output=True,
                              text=True, check=False)

    assert run_hook().returncode == 1  # nothing generated yet
    subprocess.run([attn_executable(), "snippets"], cwd=tmp_path, check=True, capture_output=True)
    assert run_hook().returncode == 0
    snippet = tmp_path / "snippets/cat.en.json"
    snippet.write_text(snippet.read_text("utf-8").replace("0.64", "0.65"), "utf-8")
    stale = run_hook()
    assert (stale.returncode, stale.stderr.splitlines()[0]) == (
        1, "attn: snippets/cat.en.json is stale; run: attn snippets")
    (tmp_path / "posts/column.attn.yaml").write_text("tokens: [a\n", "utf-8")
    broken = run_hook()
    assert broken.returncode == 2
    assert broken.stderr.startswith("posts/column.attn.yaml:2:1: malformed YAML: ")


def test_the_documented_sample_config_uses_the_hook() -> None:
    readme = (ROOT / "docs" / "snippets.md").read_text("utf-8")
    sample = readme.split("```yaml\n# .pre-commit-config.yaml", 1)[1].split("```", 1)[0]
    sample = sample.split("\n", 1)[1]  # past the comment line that names the file
    config = yaml.safe_load(sample)
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    shipped = {h["id"]: h for h in yaml.safe_load(
        (ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    # the local hook in docs/snippets.md runs what the shipped hook runs
    assert hooks["attn-snippets"]["entry"] == shipped["attn-snippets"]["entry"]
    assert hooks["attn-snippets"]["pass_filenames"] is shipped["attn-snippets"][
        "pass_filenames"] is False


def test_the_fill_hook_checks_the_documents_of_a_commit(tmp_path: Path) -> None:
    """pre-commit passes the staged files its `files` pattern matches: the hook is the check."""
    import re

    found = hook("attn-fill")
    assert (found["entry"], found["language"]) == ("attn fill --check", "python")
    assert found.get("pass_filenames", True) is True
    pattern = re.compile(str(found["files"]))
    names = ["post.md", "notes.qmd", "chapter.tex", "lesson.ipynb", "a.markdown", "cat.attn.yaml",
             "README.txt", "post.md.orig"]
    assert [n for n in names if pattern.search(n)] == names[:5]

    (tmp_path / "cat.attn.yaml").write_text(
        (ROOT / "configs" / "cat_chases_mouse.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / "post.md").write_text("```attn\nspec: cat.attn.yaml\nsteps: weights\n```\n",
                                      "utf-8")
    program, *args = shlex.split(str(found["entry"]))
    assert program == "attn"

    def run_hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run([attn_executable(), *args, "post.md"], cwd=tmp_path,
                              capture_output=True, text=True, check=False)

    missing = run_hook()
    assert (missing.returncode, missing.stderr.splitlines()[0]) == (
        1, "post.md:1:1: this attn block has no output yet; run: attn fill post.md")
    subprocess.run([attn_executable(), "fill", "post.md"], cwd=tmp_path, check=True,
                   capture_output=True)
    assert run_hook().returncode == 0
    spec = tmp_path / "cat.attn.yaml"
    spec.write_text(spec.read_text("utf-8").replace("[0.8, 0.0]", "[0.9, 0.0]"), "utf-8")
    assert run_hook().returncode == 1

"""attn validate and attn examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from tests.conftest import CONFIGS, EXAMPLES


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


# --- attn validate ---

def test_validate_accepts_every_example() -> None:
    result = invoke("validate", *map(str, EXAMPLES))
    assert result.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", f"attn: {len(EXAMPLES)} specs are valid\n")


def test_validate_lists_every_broken_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("rows.yaml").write_text("tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1]]\n")
    Path("key.yaml").write_text("tokens: [a]\nembeddings: [[1]]\nmask: causal\nscael: none\n")
    Path("shape.yaml").write_text("tokens: [a]\nembeddings: [[1, 2]]\n"
                                  "weights: {W_Q: [[1], [0]], W_K: [[1, 0], [0, 1]]}\n")
    good = str(CONFIGS / "cat_chases_mouse.yaml")
    result = invoke("validate", "rows.yaml", good, "key.yaml", "missing.yaml", "shape.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "rows.yaml:2:13: embeddings: has 2 rows, expected one per token (3)",
        "key.yaml:4:1: scael: unknown key; did you mean scale?",
        "missing.yaml: no such file",
        "shape.yaml:3:33: weights.W_K is 2 × 2, expected d_model × d_k = 2 × 1",
        "attn: 4 specs of 5 have errors",
    ]
    assert result.stdout == ""


def test_validate_builds_the_spec_too(tmp_path: Path) -> None:
    # loads fine, but building it finds a query that sees no key, which masked_rows forbids
    spec = tmp_path / "rows.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                    "mask: {padding: [false, false]}\nmasked_rows: error\n")
    result = invoke("validate", str(spec))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{spec}: mask: the query “a” sees no key (masked_rows: error)",
        "attn: 1 spec of 1 has errors",
    ]


def test_validate_needs_a_file() -> None:
    result = invoke("validate")
    assert result.exit_code == 2
    assert result.stderr == "attn: the argument specs is missing (see attn validate --help)\n"


# --- attn examples ---

def test_examples_lists_every_bundled_example_with_its_title() -> None:
    result = invoke("examples")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [p.stem for p in EXAMPLES]
    titles = dict(line.split(None, 1) for line in lines)
    assert titles["cat_chases_mouse"] == "cat chases mouse: attention step by step"


def test_examples_name_prints_the_spec_as_written() -> None:
    result = invoke("examples", "two_tokens_unscaled")
    assert result.exit_code == 0
    assert result.stdout == (CONFIGS / "two_tokens_unscaled.yaml").read_text("utf-8")


def test_a_copied_example_is_a_working_spec(tmp_path: Path) -> None:
    copy = tmp_path / "mine.yaml"
    copy.write_text(invoke("examples", "cat_chases_mouse").stdout, "utf-8")
    assert invoke("explain", str(copy), "-f", "text").stdout == invoke(
        "explain", str(CONFIGS / "cat_chases_mouse.yaml"), "-f", "text").stdout


@pytest.mark.parametrize(("name", "message"), [
    ("cat_chases_mice", "attn: no example named cat_chases_mice; did you mean cat_chases_mouse?\n"),
    ("xyz", "attn: no example named xyz; run attn examples to list them\n"),
])
def test_an_unknown_example_is_a_usage_error(name: str, message: str) -> None:
    result = invoke("examples", name)
    assert (result.exit_code, result.stderr, result.stdout) == (2, message, "")


# The examples that read files beside them, and those files, as their specs name them (read off
# configs/ by hand: every `file:` of each spec).
READING = {
    "bert_head": ["data/checkpoints/bert/model.safetensors"],
    "cross_attention": ["data/encoder_states.csv"],
    "gpt2_head": ["data/checkpoints/gpt2/model.safetensors"],
    "life_is_short": ["data/life_is_short/embeddings.npy", "data/life_is_short/W_query.npy",
                      "data/life_is_short/W_key.npy", "data/life_is_short/W_value.npy"],
    "life_is_short_three_heads": ["data/life_is_short/embeddings.npy",
                                  "data/life_is_short/heads.npz"],
    "vit_digit": ["data/vit/digit7.png"],
}


def test_the_examples_that_read_files_are_known() -> None:
    from attncli.spec.examples import example_files, example_names

    assert {name: example_files(name) for name in example_names() if example_files(name)} \
        == READING


@pytest.mark.parametrize("name", sorted(READING))
def test_an_example_written_with_its_files_runs_as_the_bundled_one(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = invoke("explain", str(CONFIGS / f"{name}.yaml"), "-f", "text").stdout
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", name, "--to", "mine")
    count = len(READING[name])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (f"attn: wrote mine/{name}.yaml and {count} file"
                             f"{'s' * (count != 1)} it reads; run attn explain mine/{name}.yaml\n")
    written = sorted(p.relative_to("mine").as_posix() for p in Path("mine").rglob("*")
                     if p.is_file())
    assert written == sorted([f"{name}.yaml", *READING[name]])
    for read in READING[name]:
        assert (Path("mine") / read).read_bytes() == (CONFIGS / read).read_bytes()
    assert invoke("explain", f"mine/{name}.yaml", "-f", "text").stdout == bundled
    # the text alone, copied: its files stay behind, as stderr says
    printed = invoke("examples", name)
    assert printed.stdout == (CONFIGS / f"{name}.yaml").read_text("utf-8")
    files = ", ".join(READING[name])
    assert printed.stderr == (
        f"attn: this spec reads {count} file{'s' * (count != 1)} beside it ({files}); to copy "
        f"{'them' if count != 1 else 'it'} with the spec, run attn examples {name} --to DIR\n")


def test_an_example_without_files_is_written_alone(tmp_path: Path) -> None:
    result = invoke("examples", "two_tokens_unscaled", "--to", str(tmp_path / "a"), "--lang", "pl")
    spec = tmp_path / "a" / "two_tokens_unscaled.yaml"
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (f"attn: zapisano {spec}; uruchom attn explain {spec}\n")
    assert [p.name for p in (tmp_path / "a").iterdir()] == [spec.name]
    assert spec.read_text("utf-8") == invoke("examples", "two_tokens_unscaled", "--lang",
                                             "pl").stdout
    assert invoke("examples", "two_tokens_unscaled").stderr == ""


def test_examples_to_writes_over_no_file_and_nothing_at_all_then(tmp_path: Path) -> None:
    (tmp_path / "data" / "vit").mkdir(parents=True)
    (tmp_path / "data" / "vit" / "digit7.png").write_bytes(b"mine")
    result = invoke("examples", "vit_digit", "--to", str(tmp_path), "--lang", "ru")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"attn: {tmp_path}/data/vit/digit7.png уже существует; attn examples "
                             "--to не перезаписывает файлы: выберите другую папку\n")
    assert not (tmp_path / "vit_digit.yaml").exists()
    assert (tmp_path / "data" / "vit" / "digit7.png").read_bytes() == b"mine"


def test_examples_to_writes_nothing_where_a_link_leads_out(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "data").symlink_to(tmp_path / "elsewhere")
    result = invoke("examples", "vit_digit", "--to", str(tmp_path / "mine"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"attn: {tmp_path}/mine/data/vit/digit7.png would be written outside "
                             f"{tmp_path}/mine, where a link leads\n")
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert not (tmp_path / "mine" / "vit_digit.yaml").exists()


def test_examples_to_needs_a_name() -> None:
    result = invoke("examples", "--to", "x")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("attn: --to writes one example: name it, as in attn examples "
                             "vit_digit --to my_vit\n")

"""attn as its users run it: the in-process runner for exit codes and streams, and the installed
console script for what only a real process shows (imports, pipes, environment)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CONFIGS, attn_executable, run
from tests.terminal import read_terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_default_example_is_cat_chases_mouse() -> None:
    result = run("explain", "--format", "text")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    weights = result.stdout.split("7. Attention weights")[1].split("Heatmap: a fuller block")[0]
    rows = {line.split()[0]: line.split()[1:] for line in weights.splitlines()
            if line.strip().startswith(("cat", "chases", "mouse"))}
    assert rows == {"cat": ["1.00", "—", "—"], "chases": ["0.36", "0.64", "—"],
                    "mouse": ["0.40", "0.25", "0.35"]}
    output = result.stdout.split("8. Output")[1]
    assert "chases  0.48  0.64" in output and "mouse   0.73  0.25" in output


def test_precision_option_overrides_the_spec() -> None:
    result = run("explain", "--format", "text", "--precision", "4")
    assert "chases  0.3557  0.6443       —" in result.stdout  # e^0.1414/(e^0.1414+e^0.7354)


def test_json_is_strict_and_complete() -> None:
    doc = run("explain", "--format", "json").json()
    assert [step["id"] for step in doc["steps"]] == [
        "embeddings", "parameters", "projections", "scores", "scaled", "masked", "weights",
        "output"]
    head = doc["heads"][0]
    assert head["scores"][0][1] is None  # hidden by the causal mask
    assert head["scores"][1][0] == 0.2 / 2 ** 0.5
    assert head["weights"][0] == [1.0, 0.0, 0.0]
    assert doc["output"] == head["context"]
    masked = next(s for s in doc["steps"] if s["id"] == "masked")["matrices"][0]
    assert masked["rows"] == masked["columns"] == ["cat", "chases", "mouse"]
    assert doc["shape"] == {"n_queries": 3, "n_keys": 3, "d_model": 2, "d_k": 2, "d_v": 2,
                            "heads": 1, "convention": "row"}


def test_masked_rows_nan_is_null_in_json(write: Callable[[str], Path]) -> None:
    path = write("tokens: [a, b]\nembeddings: [[1], [0]]\nmask: [[0, 0], [1, 1]]\n"
                 "masked_rows: nan\n")
    doc = run("explain", str(path), "--format", "json").json()
    assert doc["heads"][0]["weights"][0] == [None, None]
    assert doc["output"][0] == [None]
    assert doc["heads"][0]["weights"][1] == [0.5, 0.5]  # q_b = 0: equal scores
    assert doc["output"][1] == [0.5]


def test_masked_rows_zeros_by_default(write: Callable[[str], Path]) -> None:
    path = write("tokens: [a, b]\nembeddings: [[1], [2]]\nmask: [[0, 0], [1, 1]]\n")
    result = run("explain", str(path), "--format", "text")
    assert "1 query sees no key; its weights and output are 0." in result.stdout
    doc = run("explain", str(path), "--format", "json").json()
    assert doc["heads"][0]["weights"][0] == [0.0, 0.0]
    # b sees a and b with scores 2·1 and 2·2 (no scaling at d_k = 1): softmax([2, 4])
    e2, e4 = 2.718281828459045 ** 2, 2.718281828459045 ** 4
    assert doc["output"][0] == [0.0]
    assert abs(doc["output"][1][0] - (e2 * 1 + e4 * 2) / (e2 + e4)) < 1e-12


def test_stdin_reads_yaml_and_json() -> None:
    text = (CONFIGS / "two_tokens_unscaled.yaml").read_text(encoding="utf-8")
    doc = run("explain", "-", "--format", "json", input=text).json()
    assert round(doc["output"][0][0], 2) == 7.31
    spec = json.dumps({"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "scale": "none"})
    doc = run("explain", "-", "--format", "json", input=spec).json()
    assert doc["heads"][0]["weights"][0][0] == 2.718281828459045 / (1 + 2.718281828459045)


def test_wide_matrix_is_split_into_blocks_at_80_columns(write: Callable[[str], Path]) -> None:
    d = 30
    row = "[" + ", ".join(str(i % 7 - 3) for i in range(d)) + "]"
    path = write(f"tokens: [alpha, beta]\nembeddings: [{row}, {row}]\n")
    for fmt in ("text", "rich"):
        out = run("explain", str(path), "--format", fmt).stdout
        assert max(len(line) for line in out.splitlines()) <= 80, fmt
        assert "columns d1–" in out and "of 30" in out, fmt
    # in text, the blocks of X's first row, read in order, give back every value
    out = run("explain", str(path), "--format", "text").stdout
    embeddings = out.split("2. ")[0]
    printed = [v for line in re.findall(r"^   alpha(.*)$", embeddings, re.M) for v in line.split()]
    assert printed == [f"{i % 7 - 3:.2f}".replace("-", "−") for i in range(d)]  # U+2212


def test_rich_output_without_a_terminal_has_no_escape_codes() -> None:
    out = run("explain").stdout
    assert ANSI.search(out) is None
    assert "chases" in out and "0.64" in out


def test_version_and_help_do_not_import_numpy_or_yaml() -> None:
    probe = (
        "import sys\n"
        "from attncli.cli.app import main\n"
        "for args in (['--help'], ['--version'], ['explain', '--help'],\n"
        "             ['--lang', 'pl', '--help'], ['explain', '--lang', 'ru', '--help']):\n"
        "    sys.argv = ['attn', *args]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exit:\n"
        "        assert exit.code == 0, exit.code\n"
        "print(sorted(m for m in ('numpy', 'yaml', 'rich.table') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    assert result.stdout.splitlines()[-1] == "[]"


def test_real_entry_point_and_python_m() -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
    for command in ([attn_executable()], [sys.executable, "-m", "attncli"]):
        result = subprocess.run([*command, "explain", "--format", "text"], capture_output=True,
                                text=True, env=env)
        assert result.returncode == 0, result.stderr
        assert "mouse   0.40    0.25   0.35" in result.stdout
    version = subprocess.run([attn_executable(), "--version"], capture_output=True, text=True)
    assert re.fullmatch(r"attn \d+\.\d+\.\d+\n", version.stdout)


def test_real_entry_point_error_has_no_traceback(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("tokens: [a]\nembeddings: [[1, 2]]\nweights: {W_Q: [[1], [2], [3]]}\n",
                    encoding="utf-8")
    result = subprocess.run([attn_executable(), "explain", str(spec)], capture_output=True,
                            text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"{spec}:3:16: weights.W_Q is 3 × 1, expected d_model × d_k = 2 × 1\n"


def test_rich_in_a_terminal_uses_colour_unless_no_color() -> None:
    """Only a real pseudo-terminal shows what a user's terminal gets."""
    import pty

    def in_terminal(env: dict[str, str]) -> str:
        leader, follower = pty.openpty()
        proc = subprocess.Popen([attn_executable(), "explain"], stdout=follower,
                                stderr=follower, env=env)
        os.close(follower)
        shown = read_terminal(leader)
        proc.wait()
        return shown.decode("utf-8")

    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CI", "FORCE_COLOR")}
    base["TERM"] = "xterm-256color"
    coloured = in_terminal(base)
    assert ANSI.search(coloured)
    plain = in_terminal({**base, "NO_COLOR": "1"})
    assert ANSI.search(plain) is None
    assert "0.64" in plain


def test_a_long_value_is_quoted_by_its_ends_in_every_refusal() -> None:
    """A 400-digit --width and a 10,000-letter --steps are quoted as 20 characters, an ellipsis
    and 10 (the length a spec's long text is quoted at), so the refusal stays one short line;
    the list of the known steps after it is kept whole."""
    result = run("explain", "--width", "9" * 400, "--format", "text")
    assert (result.exit_code, result.stderr) == (
        2, "attn: --width: expected a whole number from 40 to 1000, found "
           f"{'9' * 20}…{'9' * 10}\n")
    result = run("explain", "--steps", "Q" * 10_000, "--format", "text")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"attn: --steps: unknown step {'Q' * 20}…{'Q' * 10}; "
                                    "expected one of embeddings, parameters, projections, ")
    assert result.stderr.endswith(", output\n") and result.stderr.count("\n") == 1


def test_a_long_value_holding_commas_is_cut_like_any_other() -> None:
    """A value is told from a list of the known names by what the message says, not by a ", "
    inside it: `--head "1, 1, …"` (9,000 characters) is quoted by its ends, as `--head QQQ…`."""
    value = ", ".join(["1"] * 3000)
    result = run("explain", "--head", value, "--format", "text")
    assert (result.exit_code, result.stderr) == (
        2, "attn: --head: expected a head number or all, found 1, 1, 1, 1, 1, 1, 1,…1, 1, 1, 1\n")


def test_the_cut_is_counted_and_made_as_the_reader_sees_it() -> None:
    """A hidden character counts as the escape it is shown as (110 of U+202E are 660 characters
    on the screen), the cut never falls inside an escape (`\\u20…`), even in Click's own
    refusals, and an accent stays on its letter on both sides of the ellipsis."""
    result = run("explain", "--head", "\u202e" * 110, "--format", "text")
    assert result.stderr == ("attn: --head: expected a head number or all, found "
                             + "\\u202e" * 3 + "…" + "\\u202e" + "\n")
    ctrl = "a" * 19 + "\x1b" + "b" * 100 + "\x07" + "c" * 9
    result = run("explain", "--width", ctrl, "--format", "text")
    assert result.stderr == ("attn: --width: expected a whole number, found " + "a" * 19 + "…"
                             + "c" * 9 + " (see attn explain --help)\n")
    accented = "a" * 19 + "e\u0301" + "b" * 100 + "e\u0301" + "c" * 9
    result = run("explain", "--head", accented, "--format", "text")
    assert result.stderr == ("attn: --head: expected a head number or all, found "
                             + "a" * 19 + "e\u0301…e\u0301" + "c" * 9 + "\n")


def test_a_file_name_no_file_has_is_quoted_by_its_ends(tmp_path: Path) -> None:
    """The file name that begins a refusal is held like any quoted value: a name of 100,000
    characters (which no file can have) is its first 20, an ellipsis and its last 10."""
    name = str(tmp_path / ("q" * 100_000)) + ".yaml"
    result = run("explain", name, "--format", "text")
    assert result.exit_code == 2
    assert result.stderr == (f"{name[:20]}…{'q' * 5}.yaml: cannot read the file: the name is too "
                             "long\n")


def test_a_list_of_thousands_of_rows_keeps_its_first_names_and_its_last(
        write: Callable[[str], Path]) -> None:
    """`--expand scores:nosuch` on 3,000 tokens names the rows it has: the first ones that fit
    in 200 characters, an ellipsis and the last, not a line of 20,000 characters."""
    tokens = [f"t{i}" for i in range(3000)]
    spec = write("tokens: [" + ", ".join(tokens) + "]\nembeddings: {random: {seed: 1}, dim: 2}\n"
                 "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    result = run("explain", str(spec), "--expand", "scores:nosuch", "--format", "text")
    first = ", ".join(tokens[:42])  # 42 names and their commas: 199 characters
    assert (result.exit_code, result.stderr) == (
        2, f"attn: --expand: scores has no row nosuch; its rows are {first}, …, t2999\n")


"""The cell limit (attncli.spec.limits): huge specs are refused before memory grows, --max-cells
moves the limit, --allow-outside lifts the folder rule, on every command that reads specs.

The memory tests run the real `attn` script in a child process and read its own peak resident
size (VmHWM) as it exits; a refusal that happened after allocating would show hundreds of MB
(10^8 numbers are 800 MB). Time is not asserted (docs/limits.md's Robustness section has
measured times).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attncli.spec.limits import DEFAULT_MAX_CELLS, max_bytes
from tests.conftest import attn_executable, run

PEAK_MB = 200


# Runs the installed `attn` script in a fresh interpreter that, on exit, writes its own peak
# resident size (VmHWM) to the file named by argv[1]. The child's rusage from os.wait4 cannot be
# used: Linux carries the parent's resident size at fork into the child's ru_maxrss across exec,
# so a large test process (one that has imported torch, say) would be counted as the child's.
PROBE = """
import atexit, runpy, sys

def report(path=sys.argv[1]):
    status = open("/proc/self/status").read().splitlines()
    kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    open(path, "w").write(str(kb))

atexit.register(report)
script = sys.argv[2]
sys.argv = [script, *sys.argv[3:]]
runpy.run_path(script, run_name="__main__")
"""


def peak_rss_mb(*args: str, cwd: Path) -> tuple[int, str, float]:
    """(exit code, stderr, peak resident size in MB) of `attn args` run in `cwd`."""
    peak = cwd / "peak.kb"
    child = subprocess.run([sys.executable, "-c", PROBE, str(peak), attn_executable(), *args],
                           cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return child.returncode, child.stderr, int(peak.read_text()) / 1024


def bomb() -> str:
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    # a list of 9 copies of the one before: sizes s_a = 10, s_next = 1 + 9·s, so b..i are 91,
    # 820, 7381, 66430, 597871, 5380840, 48427561, 435848050; with the root, 490329055 values
    return "\n".join(lines) + "\n"


SPECS = {
    "bomb.yaml": (bomb(), "bomb.yaml:1:1: the spec holds 490,329,055 values once its aliases are "
                  "expanded; the limit is 10,000,000, which --max-cells sets"),
    # 1,000 empty lists aliased 100 times, that aliased 10 times: a million values once
    # expanded, within --max-cells, each built as a Node of its own (2.2 s and 525 MB before
    # the unknown key was named)
    "empties.yaml": ("x: &a [" + ", ".join(["[]"] * 1000) + "]\ny: &b [" + ", ".join(["*a"] * 100)
                     + "]\nnotes: [" + ", ".join(["*b"] * 10) + "]\n",
                     "empties.yaml:1:1: the spec holds 1,102,114 values once its aliases are "
                     "expanded; the limit is 150,000, which --max-cells sets"),
    "random.yaml": ("tokens: [a]\nembeddings: {random: {}, shape: [1, 100000000]}\n",
                    "random.yaml:2:13: embeddings: a matrix of 1 × 100,000,000 is too large; the "
                    "limit is 10,000,000 numbers, which --max-cells sets"),
    "scores.yaml": ("tokens: [" + ", ".join(f"t{i}" for i in range(10_000)) + "]\n"
                    "embeddings: {random: {}, dim: 1}\n",
                    # n = 10^4, d = 1: E and 3 identities (10^4 + 3), then Q, K, V, Z,
                    # the heads side by side, O (6·10^4) and 4 n x n: 400070003
                    "scores.yaml:1:1: the walkthrough of this spec would compute 400,070,003 "
                    "numbers; the limit is 320,000,000, 32 times what --max-cells sets"),
    "header.yaml": ("tokens: [a]\nembeddings: {file: big.npy}\n",
                    "header.yaml:2:20: embeddings.file: big.npy holds 100,000,000 numbers "
                    "(10,000 × 10,000); the limit is 10,000,000, which --max-cells sets"),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_huge_specs_are_refused_before_memory_grows(name: str, tmp_path: Path) -> None:
    text, expected = SPECS[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    with open(tmp_path / "big.npy", "wb") as out:  # a real 800 MB array, sparse on disk
        np.lib.format.write_array_header_1_0(
            out, {"descr": "<f8", "fortran_order": False, "shape": (10_000, 10_000)})
        out.truncate(out.tell() + 8 * 10**8)
    code, stderr, peak = peak_rss_mb("validate", name, cwd=tmp_path)
    assert (code, stderr) == (2, expected + "\nattn: 1 spec of 1 has errors\n")
    assert peak < PEAK_MB


def test_a_100_mb_spec_is_refused_unread(tmp_path: Path) -> None:
    with open(tmp_path / "big.yaml", "wb") as out:  # sparse: 100 MB of NUL, never read
        out.truncate(100 * 2**20)
    code, stderr, peak = peak_rss_mb("explain", "big.yaml", cwd=tmp_path)
    assert (code, stderr) == (2, "big.yaml: the spec has 104,857,600 bytes; the limit is "
                              "4,800,000 bytes, which --max-cells sets\n")
    assert peak < PEAK_MB


def test_the_byte_limit_follows_max_cells() -> None:
    assert max_bytes(DEFAULT_MAX_CELLS) == 4 * DEFAULT_MAX_CELLS
    assert max_bytes(10) == 2**20  # never below 1 MiB: comments cost nothing


def test_standard_input_is_read_only_up_to_the_limit() -> None:
    result = run("explain", "-", "--max-cells", "10", input="#" * (2**20 + 1))
    assert (result.exit_code, result.stderr) == (
        2, "<stdin>: the spec is larger than 1,048,576 bytes, the limit that --max-cells sets\n")


# Written: the mapping, 2 lists, 2 rows, 4 numbers = 9 values (the 2 keys and 2 tokens are
# texts, which have a limit of their own). Made: E (4) and the identities W_Q, W_K, W_V (4
# each) = 16 numbers.
SMALL = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
# 40 tokens with d_model = 1. Written: the mapping, 2 lists, 40 tokens, 40 rows and 40 numbers
# = 123 nodes. Made: E (40) and the 1x1 identities (3) = 43. Computed: Q, K, V (40 each), S,
# S', A and the masked scores' slot (4 · 40 · 40 = 6400), Z (40), the heads side by side (40)
# and the output slot (40) = 6640; 6683 in all, which needs a limit of 6683 / 32 ≥ 208.8.
MANY = ("tokens: [" + ", ".join(f"t{i}" for i in range(40)) + "]\nembeddings: ["
        + ", ".join(["[1]"] * 40) + "]\n")
EXPORT = ["export", "--json"]


@pytest.mark.parametrize("command", [["explain", "--format", "json"], EXPORT, ["validate"]])
def test_max_cells_is_an_option_of_every_command_that_reads_specs(command: list[str]) -> None:
    summary = "attn: 1 spec of 1 has errors\n" if command == ["validate"] else ""

    def refused(limit: int, spec: str) -> str:
        result = run(*command, "-", "--max-cells", str(limit), input=spec)
        assert result.exit_code == 2
        assert result.stderr.endswith(summary)
        return result.stderr[:len(result.stderr) - len(summary)]

    assert refused(8, SMALL) == "<stdin>:2:26: the spec holds more than 8 values, the limit " \
        "that --max-cells sets\n"
    assert refused(15, SMALL) == "<stdin>:1:1: the identity W_V of 2 × 2 brings the spec to 16 " \
        "numbers; the limit is 15, which --max-cells sets\n"
    assert run(*command, "-", "--max-cells", "16", input=SMALL).exit_code == 0
    assert refused(208, MANY) == "<stdin>:1:1: the walkthrough of this spec would compute " \
        "6,683 numbers; the limit is 6,656, 32 times what --max-cells sets\n"
    assert run(*command, "-", "--max-cells", "209", input=MANY).exit_code == 0
    zero = run(*command, "-", "--max-cells", "0", input=SMALL)
    assert (zero.exit_code, zero.stderr) == (
        2, "attn: --max-cells: expected a whole number of at least 1, found 0\n")


def test_the_calculator_form_counts_too() -> None:
    tokens = " ".join(f"t{i}" for i in range(40))
    result = run("explain", "--tokens", tokens, "--embeddings", "; ".join(["1"] * 40),
                 "--max-cells", "208")
    assert (result.exit_code, result.stderr) == (
        2, "attn explain: the walkthrough of this spec would compute 6,683 numbers; the limit is "
        "6,656, 32 times what --max-cells sets\n")


def outside_spec(tmp_path: Path) -> Path:
    np.save(tmp_path / "E.npy", np.array([[1.0, 0.0], [0.0, 1.0]]))
    inner = tmp_path / "posts"
    inner.mkdir()
    spec = inner / "spec.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: {file: ../E.npy}\n", encoding="utf-8")
    return spec


@pytest.mark.parametrize("command", [["explain", "--format", "json"], ["export", "--json"],
                                     ["validate"]])
def test_allow_outside_on_every_command_that_reads_specs(command: list[str],
                                                         tmp_path: Path) -> None:
    spec = str(outside_spec(tmp_path))
    refused = run(*command, spec)
    assert (refused.exit_code, refused.stderr) == (2, f"{spec}:2:20: embeddings.file: ../E.npy is "
                                                   "outside the spec's folder; only files in "
                                                   "that folder or below it are read\n"
                                                   + ("attn: 1 spec of 1 has errors\n"
                                                      if command == ["validate"] else ""))
    assert run(*command, spec, "--allow-outside").exit_code == 0


def test_snippets_take_allow_outside_and_max_cells(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    outside_spec(tmp_path)
    (tmp_path / "posts" / "attn.toml").write_text(
        '[[snippets]]\nspecs = "spec.yaml"\nformats = ["json"]\n'
        'output = "out/{name}.{lang}.{ext}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path / "posts")
    assert run("snippets").exit_code == 2
    assert not (tmp_path / "posts" / "out").exists()
    assert run("snippets", "--allow-outside", "--max-cells", "10").exit_code == 2
    assert run("snippets", "--allow-outside").exit_code == 0
    assert (tmp_path / "posts" / "out" / "spec.en.json").exists()


@pytest.mark.parametrize("stdin", [False, True])
def test_any_max_cells_reads_a_spec_without_setting_aside_its_limit(stdin: bool,
                                                                   tmp_path: Path) -> None:
    """--max-cells 10^11 allows a spec of 4·10^12 bytes: the spec is read in pieces, not into a
    buffer of the limit's size (which was a MemoryError, exit 3)."""
    spec = Path(__file__).resolve().parent.parent / "configs" / "cat_chases_mouse.yaml"
    text = spec.read_text(encoding="utf-8")
    args = [attn_executable(), "explain", "-" if stdin else str(spec), "--format", "text",
            "--max-cells", "100000000000"]
    done = subprocess.run(args, input=text if stdin else None, capture_output=True, text=True,
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert "q_mouse and k_chases are 78.69° apart" in done.stdout


# 300,000 keys took 2 to 3 s of CPU and 200 to 400 MB before the first was named unknown. The
# keys are counted as the document is read: the refusal comes at the key past MAX_KEYS (1,000)
# of its mapping, or MAX_ALL_KEYS (20,000) of the file, before anything else is built.
def _keys(count: int, start: int = 0) -> list[str]:
    return [f"k{i}: 1" for i in range(start, start + count)]


# one line {"tokens": ["a"], "weights": {"k0": 1, ...}}: the weights' first key is at offset 30;
# "kI": 1, takes len(str(I)) + 8 characters, so k1000 starts at 30 + (10·1 + 90·2 + 900·3) +
# 8·1000 = 10,920, column 10,921
_JSON = ('{"tokens": ["a"], "weights": {'
         + ", ".join(f'"k{i}": 1' for i in range(300_000)) + "}}")
# 10,000 heads of 30 keys: tokens, embeddings and heads are keys 1 to 3, each head 30 more, so
# key 20,001 is the 18th (k17) of head 667 (line 4 + 666); `  - {` and "kI: 1, " for I < 17
# (10·7 + 7·8 characters) put it at column 5 + 126 + 1 = 132
_SPREAD = SMALL + "heads:\n" + "".join("  - {" + ", ".join(_keys(30)) + "}\n"
                                       for _ in range(10_000))
# a mapping of 1,000 keys (a legal size) aliased 50 times: x, tokens, embeddings and 51 uses
# of the mapping hold 3 + 51·1,000 keys, counted from the composed document before it is built
_ALIASED = ("x: &a {" + ", ".join(_keys(1000)) + "}\ntokens: [" + ", ".join(["*a"] * 50)
            + "]\nembeddings: [[1]]\n")
ONE = "this mapping has more than 1,000 keys, the limit of one mapping"
KEY_SPECS = {
    # SMALL's 2 lines, then k0 at line 3: the 1,001st key, k998, at line 1,001
    "top.yaml": (SMALL + "".join(f"{k}\n" for k in _keys(300_000)), f"top.yaml:1001:1: {ONE}"),
    "weights.json": (_JSON, f"weights.json:1:10921: {ONE}"),
    # display: {k0: 1, ...}: k1000 after `display: {` (10) and "kI: 1, " for I < 1000
    # (10·7 + 90·8 + 900·9 = 8,890), column 8,901
    "display.yaml": (SMALL + "display: {" + ", ".join(_keys(300_000)) + "}\n",
                     f"display.yaml:3:8901: {ONE}"),
    # values that are aliases are composed once: k1000 at line 4 + 1 + 1,000
    "aliases.yaml": (SMALL + "v: &v 1\nweights:\n" + "".join(f"  k{i}: *v\n"
                                                              for i in range(300_000)),
                     f"aliases.yaml:1005:3: {ONE}"),
    # keys merged in (`<<: *a`) are no keys of attn's: the mapping they come from is refused
    "merge.yaml": (SMALL + "x: &a\n" + "".join(f"  {k}\n" for k in _keys(300_000))
                   + "display:\n  <<: *a\n", f"merge.yaml:1004:3: {ONE}"),
    "spread.yaml": (_SPREAD, "spread.yaml:670:132: the mappings hold more than 20,000 keys in "
                    "all, the limit of one file"),
    "aliased.yaml": (_ALIASED, "aliased.yaml:1:1: the mappings hold 51,003 keys once the "
                     "aliases are expanded; the limit of one file is 20,000"),
}




def test_a_mapping_of_1000_keys_is_read() -> None:
    result = run("explain", "-", input=SMALL + "display:\n" + "".join(
        f"  {k}\n" for k in _keys(1000)))
    assert result.stderr.startswith("<stdin>:4:3: display.k0: unknown key")  # not the limit


# Texts (keys and text values) are Nodes of about 400 bytes once read: 7,000,000 one-letter
# tokens in a 28 MB JSON file took 22 s and 2.7 GB, a list of 1,000 texts aliased 9,000 times
# 20 s and 3.4 GB, before the first unknown key was named. They are counted as they are read,
# aliases expanded, to 50,000 (limits.max_texts). Where the 50,001st is:
# - YAML: `x`, its 1,000 items and `tokens` are 1,002 texts, so the 50,001st is item 999 of the
#   49th use of the list; item k of `x: &a [a, a, …]` is at column 8 + 3(k − 1) = 3,002 for 999
# - JSON: `tokens` is the first text, so the 50,001st is string 50,000 of the list; string k
#   of `{"tokens": ["a","a",…` is at column 13 + 4(k − 1) = 200,009
TEXTS = "the spec holds more than 50,000 texts (keys and text values, with aliases expanded), " \
        "the limit that --max-cells sets"
TEXT_SPECS = {
    "aliased_texts.yaml": ("x: &a [" + ", ".join(["a"] * 1000) + "]\ntokens: ["
                           + ", ".join(["*a"] * 300) + "]\n",
                           f"aliased_texts.yaml:1:3002: {TEXTS}"),
    "texts.json": ('{"tokens": [' + ",".join(['"a"'] * 300_000) + "]}",
                   f"texts.json:1:200009: {TEXTS}"),
}


@pytest.mark.parametrize("name", sorted(KEY_SPECS) + sorted(TEXT_SPECS))
def test_many_keys_or_texts_are_refused_as_the_spec_is_read(name: str, tmp_path: Path) -> None:
    text, expected = {**KEY_SPECS, **TEXT_SPECS}[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, stderr, peak = peak_rss_mb("explain", name, cwd=tmp_path)
    assert (code, stderr) == (2, expected + "\n")
    # 300,000 keys read and built took 200 to 400 MB; 300,000 texts about 150 MB
    assert peak < (100 if name in KEY_SPECS else 150)


def test_the_text_count_follows_max_cells() -> None:
    # 50,000 texts by default, a two-hundredth of a larger --max-cells
    tokens = '{"tokens": [' + ",".join(['"a"'] * 50_001) + "]}"
    assert TEXTS in run("explain", "-", input=tokens).stderr
    moved = run("explain", "-", "--max-cells", "20000000", input=tokens).stderr
    assert "texts" not in moved and "the key embeddings is missing" in moved

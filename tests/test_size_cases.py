"""Every size a spec or an option can ask for is bounded before it is paid (attncli/steps/budget.py,
attncli/spec/limits.py): each case below is refused in one line, exit 2, within PEAK_MB of memory,
measured as tests/test_limits.py measures it (the child's own VmHWM). Times are in the Robustness
section of docs/limits.md, never asserted here.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.charsmaps import one_text
from tests.test_limits import PEAK_MB, peak_rss_mb


def tokens(n: int, d: int) -> str:
    return ("tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\n"
            f"embeddings: {{random: {{}}, dim: {d}}}\n")


def alias_title(folder: Path) -> None:
    title = "x" * 1_000_000
    (folder / "spec.yaml").write_text(f"title: &t {title}\ntokens: [" + ", ".join(["*t"] * 3000)
                                      + "]\nembeddings: {random: {}, dim: 2}\n")


def long_token(folder: Path) -> None:
    # 4,000,000 letters: within a spec file's 4,800,000 bytes, so the text's own limit refuses it
    (folder / "spec.yaml").write_text("tokens: [" + "y" * 4_000_000 + "]\nembeddings: [[1]]\n")


def many_heads(folder: Path) -> None:
    (folder / "spec.yaml").write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nheads: ["
                                      + ", ".join(["{}"] * 20_000) + "]\n")


def many_members(folder: Path) -> None:
    # 70,000 members: more than the 16-bit count of a plain zip end record, so the ZIP64 record
    # is read too; the refusal must come from the count, before the directory is read
    with zipfile.ZipFile(folder / "W.npz", "w") as archive:
        for i in range(70_000):
            archive.writestr(f"a{i}.npy", b"")
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: W.npz}\n")


def lying_end_record(folder: Path) -> None:
    # one array, but an end record that says its directory takes 16 MiB: zipfile would read 16 MiB
    # from the file's start as a directory
    with zipfile.ZipFile(folder / "W.npz", "w") as archive:
        archive.writestr("a.npy", b"")
    data = bytearray((folder / "W.npz").read_bytes())
    at = data.rfind(b"PK\x05\x06")
    data[at + 12:at + 16] = (1 << 24).to_bytes(4, "little")
    (folder / "W.npz").write_bytes(bytes(data))
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: W.npz}\n")


def big_csv(folder: Path) -> None:
    with open(folder / "E.csv", "w") as out:  # 40 MB, 20 million cells: twice the limit
        row = ",".join(["0"] * 1000) + "\n"
        out.writelines(row for _ in range(20_000))
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: E.csv}\n")


def short_lines(between: bytes) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        # 40 MB: two rows, then lines of `between` (a number, a comment, a blank of U+00A0), and
        # a last line wider than the first: found at its line, with no index of every line (a
        # 40 MB file of 20,000,000 such lines took 600 MB to 1.3 GB)
        lines = (40_000_000 - 8) // len(between)
        (folder / "E.csv").write_bytes(b"1\n2\n" + between * lines + b"1,2\n")
        (folder / "spec.yaml").write_text("tokens: [a, b]\nembeddings: {file: E.csv, rows: "
                                          "[0, 1]}\n")
    return make


def many_tensors(folder: Path) -> None:
    # 560,000 one-number tensors: a 37 MB header, within the byte limit; parsed, 400 MB
    entry = '"t%d": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}'
    header = ("{" + ", ".join(entry % i for i in range(560_000)) + "}").encode()
    (folder / "m.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + bytes(4))
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: m.safetensors, key: t0}\n")


WEIGHTS = "weights: {W_Q: identity, W_K: identity, W_V: identity}\n"


def long_csv_line(folder: Path) -> None:
    # 5,000,000 cells on one line (20 MB): within the byte limit and --max-cells, but past the
    # numbers a .csv file may give; counted before a cell is converted (converting them took
    # 1.2 s of CPU before the identity W_Q of 5,000,000 x 5,000,000 was refused)
    (folder / "E.csv").write_text(",".join(["0.5"] * 5_000_000) + "\n")
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: E.csv}\n" + WEIGHTS)


def template_items(folder: Path) -> None:
    # 300,000 template items in 14.7 MB: `tokenizers` took 311 MB to read them
    item = '{"SpecialToken": {"id": "[CLS]", "type_id": 0}}'
    (folder / "t.json").write_text(
        '{"version": "1.0", "post_processor": {"type": "TemplateProcessing", "single": ['
        + ", ".join([item] * 300_000) + '], "pair": [], "special_tokens": {}}, "model": '
        '{"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"}}')
    (folder / "spec.yaml").write_text('tokens: {tokenizer: t.json, text: "a"}\n'
                                      "embeddings: {random: {}, dim: 2}\n")


def one_text_charsmap(size: int, deeper: bool) -> Callable[[Path], None]:
    """A tokenizer.json whose charsmap's 65,280 matches are one text of `size` bytes, its walks
    going on past the limit or not (tests/charsmaps.py): each match held a decoded copy of it."""
    def write(folder: Path) -> None:
        normalizer = {"type": "Precompiled", "precompiled_charsmap": one_text(size, deeper)}
        (folder / "t.json").write_text(json.dumps({
            "version": "1.0", "normalizer": normalizer, "pre_tokenizer": {"type": "Whitespace"},
            "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2},
                      "unk_token": "[UNK]"}}))
        (folder / "spec.yaml").write_text('tokens: {tokenizer: t.json, text: "a"}\n'
                                          "embeddings: [[1, 0]]\n")
    return write


def long_rows_list(folder: Path) -> None:
    # 99,000 indices written in YAML (a spec may write 100,000 values): composed, then refused
    np.save(folder / "E.npy", np.ones((1, 2)))
    (folder / "spec.yaml").write_text("tokens: [a]\nembeddings: {file: E.npy, rows: ["
                                      + ", ".join(["0"] * 99_000) + "]}\n" + WEIGHTS)


def sliced_by_heads(file: str, columns: int, heads: int = 128) -> Callable[[Path], None]:
    """`heads` heads each taking two columns of one [4, columns] array (W_Q, W_K and W_V)."""
    def write(folder: Path) -> None:
        whole = np.arange(4 * columns, dtype=np.float64).reshape(4, columns) % 10
        if file.endswith(".csv"):
            (folder / file).write_text("".join(",".join(map(str, row.astype(int))) + "\n"
                                               for row in whole))
        else:
            np.savez_compressed(folder / file, w=whole)
        key = ", key: w" if file.endswith(".npz") else ""
        lines = [f"  - {{W_Q: {{file: {file}{key}, columns: '{2 * h}:{2 * h + 2}'}}, "
                 f"W_K: {{file: {file}{key}, columns: '0:2'}}, "
                 f"W_V: {{file: {file}{key}, columns: '0:2'}}}}" for h in range(heads)]
        (folder / "spec.yaml").write_text("tokens: [a, b]\nembeddings: [[1, 0, 0, 0], "
                                          "[0, 1, 0, 0]]\nheads:\n" + "\n".join(lines) + "\n")

    return write


def shape(n: int, d: int) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / "spec.yaml").write_text(tokens(n, d))

    return write


# n x m weights of one head = n²; walkthrough_cells for one head: n·d_k + m·(d_k + d_v) + 4nm +
# n·d_v, then n·d_v + n·d: with d = d_k = d_v that is 4n² + 6nd.
CASES: dict[str, tuple[Callable[[Path], None], list[str], str]] = {
    "title of 1 MB aliased as 3000 tokens": (
        alias_title, ["explain", "spec.yaml"],
        "spec.yaml:1:8: title: expected a text of at most 1,000 characters, found 1,000,000"),
    "a token of 4 MB": (
        long_token, ["explain", "spec.yaml"],
        "spec.yaml:1:10: tokens[0]: expected a text of at most 1,000 characters, found 4,000,000"),
    "20,000 heads": (
        many_heads, ["explain", "spec.yaml"],
        "spec.yaml:3:8: heads: expected at most 256 heads, found 20000"),
    "-x all on 300 x 16": (
        shape(300, 16), ["explain", "spec.yaml", "-x", "all"],
        # 1 head · 300 rows · (300 + 16)² terms at most
        "attn: --expand all: writing out every cell of this spec takes up to 29,956,800 terms; "
        "the limit is 50,000, which --max-cells sets; choose cells with STEP:ROW"),
    "--full on 3000 x 4": (
        shape(3000, 4), ["explain", "spec.yaml", "--full", "-f", "text"],
        "attn: --full: this document would print about 36,072,000 numbers; the limit is 500,000, "
        "which --max-cells sets"),  # 4·3000² + 6·3000·4
    "--latex --full on 2000 x 8 (without --full, LaTeX elides like the terminal)": (
        shape(2000, 8), ["export", "spec.yaml", "--latex", "--full"],
        "attn: --full: this document would print about 16,096,000 numbers; the limit is 500,000, "
        "which --max-cells sets"),  # 4·2000² + 6·2000·8
    "--json on 2000 x 8": (
        shape(2000, 8), ["explain", "spec.yaml", "-f", "json"],
        "attn: --format json: this document would print about 16,096,000 numbers; the limit is "
        "500,000, which --max-cells sets"),
    "--round-intermediates on 480 x 8": (
        shape(480, 8), ["explain", "spec.yaml", "--round-intermediates", "-f", "text"],
        "attn: --round-intermediates: hand calculation of this spec works 230,400 weights; the "
        "limit is 20,000, which --max-cells sets"),  # 480²
    "display: {expand: all} on 300 x 16 (a spec's own choice counts too)": (
        lambda folder: (folder / "spec.yaml").write_text(tokens(300, 16)
                                                         + "display: {expand: all}\n"),
        ["explain", "spec.yaml"],
        "spec.yaml:3:19: display.expand: writing out every cell of this spec takes up to "
        "29,956,800 terms; "
        "the limit is 50,000, which --max-cells sets; choose cells with STEP:ROW"),
    "display: {round_intermediates: true} on 480 x 8": (
        lambda folder: (folder / "spec.yaml").write_text(
            tokens(480, 8) + "display: {round_intermediates: true}\n"),
        ["explain", "spec.yaml"],
        "spec.yaml:3:32: display.round_intermediates: hand calculation of this spec works "
        "230,400 weights; "
        "the limit is 20,000, which --max-cells sets"),
    ".npz of 70,000 members": (
        many_members, ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: W.npz lists 70,000 arrays; the limit is 1,024"),
    ".npz whose end record gives a directory of 16 MiB": (
        lying_end_record, ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: W.npz's list of arrays takes 16,777,216 bytes; the "
        "limit is 1,048,576"),
    "a .safetensors header of 560,000 entries": (
        many_tensors, ["explain", "spec.yaml"],
        # 7 values a tensor (its entry, dtype, shape and its number, data_offsets and its two):
        # 3 commas, a brace and 2 brackets each, 559,999 commas between, the outer brace, + 1
        "spec.yaml:2:20: embeddings.file: m.safetensors: the header holds up to 3,920,001 JSON "
        "values; the limit is 262,144"),
    "a CSV line of 5,000,000 cells": (
        long_csv_line, ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: E.csv: the spec reads 5,000,000 numbers from this .csv "
        "file; the limit for a .csv file is 2,000,000, which --max-cells sets; save a larger "
        "matrix as .npy"),
    "a tokenizer.json of 300,000 template items": (
        template_items, ["explain", "spec.yaml"],
        # two braces an item, and the file, post_processor, special_tokens, model, vocab
        "spec.yaml:1:21: tokens.tokenizer: t.json: the file holds up to 600,005 JSON objects; "
        "the limit is 65,536"),
    "a charsmap of 7 KB whose 65,280 matches are one text of 3,000 bytes": (
        # 324 MB while it was refused: a copy of the text for each match
        one_text_charsmap(3000, deeper=True), ["explain", "spec.yaml"],
        "spec.yaml:1:21: tokens.tokenizer: t.json:1:82: normalizer.precompiled_charsmap: expected "
        "a precompiled charsmap whose trie holds at most 65,536 keys of up to 5 bytes, found "
        "more"),
    "a YAML rows: list of 99,000 indices": (
        long_rows_list, ["explain", "spec.yaml"],
        "spec.yaml:2:13: embeddings: has 99,000 rows, expected one per token (1)"),
    "128 heads slicing a deflated [4, 2,500,000] .npz": (
        sliced_by_heads("E.npz", 2_500_000), ["explain", "spec.yaml"],
        # the last row's second column: 3 rows of 2,500,000 before it, and 2 numbers
        "spec.yaml:4:18: heads[0].W_Q.file: E.npz (w) is compressed: reaching the chosen numbers "
        "means decompressing 7,500,002 numbers; the limit is 2,000,000, which --max-cells sets; "
        "saved with np.savez (uncompressed), any slice of it is read in place"),
    "a CSV of 20,000,000 one-digit lines, the last wider": (
        short_lines(b"0\n"), ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: E.csv: line 19999999 has 2 numbers, expected 1"),
    "a CSV of 20,000,000 comments, the last line wider": (
        short_lines(b"#\n"), ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: E.csv: line 19999999 has 2 numbers, expected 1"),
    "a CSV of 13,333,330 blank lines of U+00A0, the last wider": (
        short_lines(b"\xc2\xa0\n"), ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: E.csv: line 13333333 has 2 numbers, expected 1"),
    "CSV of 40 MB": (
        big_csv, ["explain", "spec.yaml"],
        "spec.yaml:2:20: embeddings.file: E.csv holds more than 10,000,000 numbers, the limit "
        "that --max-cells sets"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_size_is_refused_before_it_is_paid(case: str, tmp_path: Path) -> None:
    make, args, expected = CASES[case]
    make(tmp_path)
    code, stderr, peak = peak_rss_mb(*args, cwd=tmp_path)
    assert (code, stderr) == (2, expected + "\n")
    assert peak < PEAK_MB


def test_a_charsmap_of_65280_matches_of_one_long_text_is_walked_within_the_bound(
        tmp_path: Path) -> None:
    # a 16 KB file: 698 MB while each match held a copy of the text of 10,000 bytes
    one_text_charsmap(10_000, deeper=False)(tmp_path)
    code, stderr, peak = peak_rss_mb("validate", "spec.yaml", cwd=tmp_path)
    assert (code, stderr) == (0, "attn: 1 spec is valid\n")
    assert peak < PEAK_MB


def test_just_under_the_limits_the_work_is_done(tmp_path: Path) -> None:
    # 340 tokens, d = 8: 4·340² + 6·340·8 = 478,720 numbers, under 500,000
    (tmp_path / "spec.yaml").write_text(tokens(340, 8))
    code, stderr, peak = peak_rss_mb("export", "spec.yaml", "--latex", cwd=tmp_path)
    assert (code, stderr) == (0, "")
    assert peak < PEAK_MB


@pytest.mark.parametrize("command", ["validate", "explain"])
def test_8000_tokens_are_worked_within_the_memory_bound(command: str, tmp_path: Path) -> None:
    # one n x m array of 8,000 x 8,000 is 512 MB; a summary's head is worked in blocks of rows
    (tmp_path / "spec.yaml").write_text(tokens(8000, 4) + "mask: causal\n")
    code, stderr, peak = peak_rss_mb(command, "spec.yaml", cwd=tmp_path)
    assert code == 0, stderr
    assert peak < PEAK_MB


@pytest.mark.parametrize("file", ["E.csv", "E.npz"])
def test_128_heads_slicing_one_file_read_it_once(file: str, tmp_path: Path) -> None:
    # a [4, 2,500,000] CSV (20 MB) is measured once and only the chosen cells converted (68 s
    # before: every head read and split the whole file); a deflated [4, 400,000] member is
    # decompressed once, 1,200,002 numbers (46 s before: once for each head)
    sliced_by_heads(file, 2_500_000 if file.endswith(".csv") else 400_000)(tmp_path)
    code, stderr, peak = peak_rss_mb("explain", "spec.yaml", "-f", "json", cwd=tmp_path)
    assert (code, stderr) == (0, "")
    assert peak < PEAK_MB


WIDE = {
    # the three [10⁶, 2] projections and the embeddings, 16 MB each, share one tuple of labels
    "d_model 10⁶": "tokens: [a, b]\nembeddings: {random: {seed: 1}, shape: [2, 1000000]}\n"
                   "heads: 1\nweights:\n  W_Q: {random: {seed: 2}, shape: [1000000, 2]}\n"
                   "  W_K: {random: {seed: 3}, shape: [1000000, 2]}\n"
                   "  W_V: {random: {seed: 4}, shape: [1000000, 2]}\n",
    "d_ff 10⁶": "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                "weights: {W_Q: identity, W_K: identity, W_V: identity, W_O: [[1, 0], [0, 1]]}\n"
                "block:\n  residual: true\n  layer_norm: {eps: 1.0e-5}\n  ffn:\n"
                "    W_1: {random: {seed: 1}, shape: [2, 1000000]}\n    W_2: {random: {seed: 2}}\n"
                "    activation: relu\n",
}


@pytest.mark.parametrize("case", sorted(WIDE))
def test_a_million_features_are_worked_within_the_memory_bound(case: str, tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(WIDE[case])
    code, stderr, peak = peak_rss_mb("explain", "spec.yaml", cwd=tmp_path)
    assert (code, stderr) == (0, "")
    assert peak < PEAK_MB


def test_an_html_page_of_2000_tokens_is_written_within_the_memory_bound(tmp_path: Path) -> None:
    # the page shows the middle of each 2,000 × 2,000 matrix elided, but its written-out lines
    # were matched to their cells through a table of every cell's name: 4 million names, 800 MB
    (tmp_path / "spec.yaml").write_text(tokens(2000, 4) + "mask: causal\n")
    code, stderr, peak = peak_rss_mb("export", "spec.yaml", "--html", "--steps", "weights",
                                     "-o", "page.html", cwd=tmp_path)
    assert (code, stderr) == (0, "")
    assert peak < PEAK_MB


def test_the_layers_before_a_models_layer_are_worked_in_blocks_of_query_rows(
        tmp_path: Path) -> None:
    # layer 1 of a model folder starts from what layer 0 gives back, which was worked out whole:
    # every head's n x n arrays (3,000 ids: 72 MB each, several at once), where layer 0 itself
    # is worked in blocks of rows. 4,096 ids of a Gemma 2 took 1.1 GB for `attn validate`
    import json

    from tests.test_read_once import llama_folder

    llama_folder(tmp_path, 2)
    config = tmp_path / "m" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()),
                                  "max_position_embeddings": 4096}))
    ids = ", ".join(str(i % 8) for i in range(3000))
    (tmp_path / "spec.yaml").write_text(
        f"model: {{path: m, layer: 1, block: true}}\ntokens: {{ids: [{ids}]}}\n")
    code, stderr, peak = peak_rss_mb("validate", "spec.yaml", cwd=tmp_path)
    assert (code, stderr) == (0, "attn: 1 spec is valid\n")
    assert peak < PEAK_MB, peak


def test_specs_that_fail_are_not_kept_with_what_they_read(tmp_path: Path) -> None:
    # each spec of a tree that fails is kept as its error, for its line; the error kept the
    # frames it was raised through, and with them the spec's whole text: 100 specs of 4.7 MB,
    # each refused for a NUL, held 1.4 GB under `attn snippets --check --jobs 1`
    (tmp_path / "specs").mkdir()
    for k in range(40):
        with open(tmp_path / "specs" / f"b{k:02d}.yaml", "wb") as spec:
            spec.truncate(4_700_000)  # sparse: NULs, within a spec's byte limit
    (tmp_path / "attn.toml").write_text('[[snippets]]\nspecs = "specs/*.yaml"\n'
                                        'formats = ["markdown"]\noutput = "out/{name}.{ext}"\n')
    code, stderr, peak = peak_rss_mb("snippets", "--check", "--jobs", "1", cwd=tmp_path)
    assert code == 2
    assert stderr.splitlines()[0] == ("specs/b00.yaml:1:1: malformed YAML: a control character, "
                                      "which YAML does not allow (U+0000)")
    assert peak < PEAK_MB, peak

"""A tokenizer.json costs memory as `tokenizers` reads it (attncli/spec/tokenizer.py): about 305
bytes a token of its vocabulary, 115 a merge written as a text ("a b"), 440 one written as a
pair (["a", "b"]), so pairs are read as texts where that gives the same merges. It is read in
a process of its own given TOKENIZER_MEGABYTES for the file and all the package makes of it,
after the file's JSON strings are counted (MAX_TEXTS), so that the peak of attn and that process
together stays under PEAK_MB whether the tokenizer is read or refused. A tokenizer of 38 MB,
near the byte limit, was refused at 352 MB; one of 256,000 tokens worked at 306 MB.

The tokenizers are written by the `tokenizers` package itself: a BPE whose vocabulary is every
word of one to four letters over the first `letters` letters (each word's prefixes and
suffixes are words too, so every split of a word is a merge the package accepts).
"""

from __future__ import annotations

import itertools
import string
import subprocess
import sys
from pathlib import Path

from attncli.spec.tokenizer import TOKENIZER_MEGABYTES
from attncli.spec.tokenizer_check import MAX_TEXTS
from tests.conftest import attn_executable
from tests.test_checkpoints import needed
from tests.test_limits import PEAK_MB

# As tests/test_limits.py's PROBE, and the peak of the processes attn waited for (the
# tokenizer's, whose resident size counts the pages it shares with attn).
PROBE = """
import atexit, resource, runpy, sys

def report(path=sys.argv[1]):
    status = open("/proc/self/status").read().splitlines()
    kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    open(path, "w").write(str(max(kb, child)))

atexit.register(report)
script = sys.argv[2]
sys.argv = [script, *sys.argv[3:]]
runpy.run_path(script, run_name="__main__")
"""


def words(letters: int, merges: int, folder: Path, space: bool = False) -> tuple[int, int]:
    """t.json and spec.yaml in `folder`: a BPE of every word of 1 to 4 of the first `letters`
    letters (a space the last of them if `space`), with its first `merges` splits as merges
    (written as pairs); (tokens, merges)."""
    tokenizers = needed("tokenizers")
    alphabet = string.ascii_lowercase[:letters - space] + " " * space
    tokens = ["".join(p) for n in range(1, 5) for p in itertools.product(alphabet, repeat=n)]
    vocab = {token: i for i, token in enumerate(tokens)}
    pairs = [(t[:i], t[i:]) for t in tokens for i in range(1, len(t))][:merges]
    model = tokenizers.models.BPE(vocab=vocab, merges=pairs)
    (folder / "t.json").write_text(tokenizers.Tokenizer(model).to_str(), encoding="utf-8")
    (folder / "spec.yaml").write_text('tokens: {tokenizer: t.json, text: "abc"}\n'
                                      "embeddings: {random: {}, dim: 2}\n", encoding="utf-8")
    return len(tokens), len(pairs)


def peak(folder: Path) -> tuple[int, str, float]:
    """(exit code, stderr, peak resident size in MB of attn and its tokenizer's process)."""
    found = folder / "peak.kb"
    child = subprocess.run([sys.executable, "-c", PROBE, str(found), attn_executable(),
                            "explain", "spec.yaml"], cwd=folder, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    return child.returncode, child.stderr, int(found.read_text()) / 1024


def test_a_tokenizer_of_more_texts_than_the_limit_is_refused_before_it_is_read(
        tmp_path: Path) -> None:
    # 20 letters: 168,420 words (20 + 400 + 8,000 + 160,000) and all their splits as pairs:
    # 400 + 2 · 8,000 + 3 · 160,000 = 496,400 merges; a word is one text, a merge two
    tokens, merges = words(20, 10**6, tmp_path)
    assert (tokens, merges) == (168_420, 496_400)
    code, stderr, mb = peak(tmp_path)
    # and the file's 19 keys (version ... merges) and its texts "1.0" and "BPE"
    texts = tokens + 2 * merges + 21
    assert texts > MAX_TEXTS
    assert (code, stderr) == (2, "spec.yaml:1:21: tokens.tokenizer: t.json: the file holds up to "
                                 f"{texts:,} JSON strings (tokens and merges); the limit is "
                                 f"{MAX_TEXTS:,}\n")
    assert mb < PEAK_MB


def test_a_vocabulary_saved_again_is_read_within_the_bound(tmp_path: Path) -> None:
    # 19 letters: 137,560 words and 280,000 merges written as pairs (a Llama 3 vocabulary's
    # size, saved by tokenizers 0.20 or later): 42 + 124 MB as the package reads pairs, so it
    # was stopped at 175 MB; read as texts, 42 + 32 MB
    assert words(19, 280_000, tmp_path) == (137_560, 280_000)
    code, stderr, mb = peak(tmp_path)
    assert (code, stderr) == (0, "")
    assert mb < PEAK_MB


def test_a_tokenizer_that_needs_more_memory_is_stopped_within_the_bound(tmp_path: Path) -> None:
    # the same sizes over 18 letters and a space: a merge with a space in a part stays a pair
    # (a text is split at its spaces), so the package needs its 42 + 124 MB
    assert words(19, 280_000, tmp_path, space=True) == (137_560, 280_000)
    code, stderr, mb = peak(tmp_path)
    assert (code, stderr) == (2, "spec.yaml:1:21: tokens.tokenizer: t.json: the tokenizer "
                                 "stopped without an answer; it may have needed more than "
                                 f"{TOKENIZER_MEGABYTES} MB of memory\n")
    assert mb < PEAK_MB


def test_a_real_size_tokenizer_is_read_within_the_bound(tmp_path: Path) -> None:
    # 18 letters: 111,150 words and 111,132 merges written as pairs, a 9 MB file
    assert words(18, 111_132, tmp_path) == (111_150, 111_132)
    code, stderr, mb = peak(tmp_path)
    assert (code, stderr) == (0, "")
    assert mb < PEAK_MB

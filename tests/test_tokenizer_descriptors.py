"""A tokenizer read where no more files may be opened (ulimit -n): the tokenizer's process could
not open the tokenizers package's own files, and the line quoted Python's English account with
the package's path ('... has no translation: [Errno 24] Too many open files: '/…/tokenizers/
__init__.py''), in a Polish or Russian line too. It is the system's reason in the user's words."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import attn_executable


def limited(count: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "cannot read the tokenizer: too many files are open"),
    ("pl", "nie można odczytać tokenizatora: otwartych jest zbyt wiele plików"),
    ("ru", "не удаётся прочитать токенизатор: открыто слишком много файлов"),
])
def test_a_tokenizer_with_too_few_descriptors_is_refused_in_the_users_words(
        tmp_path: Path, lang: str, words: str) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"cat": 0, "mouse": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "spec.yaml").write_text('tokens: {tokenizer: tokenizer.json, text: "cat mouse"}\n'
                                        "embeddings: [[1, 0], [0, 1]]\n", encoding="utf-8")
    seen = []
    for count in range(5, 9):  # from too few to open the package's files to enough
        result = subprocess.run([sys.executable, attn_executable(), "explain", "spec.yaml",
                                 "--format", "text", "--lang", lang], cwd=tmp_path,
                                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                preexec_fn=lambda count=count: limited(count), check=False)
        assert result.returncode in (0, 2), result.stderr
        assert "Errno" not in result.stderr and "tokenizers/" not in result.stderr
        seen.append(result.stderr)
    assert any(words in line for line in seen), seen
    assert seen[-1] == ""  # with enough, the walkthrough

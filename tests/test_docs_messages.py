"""The error lines the documentation quotes outside a checked transcript are the lines attn
prints today: each is made again here from a spec that has the mistake, and looked for in its
page. (A console block marked `<!-- check -->` is run by tests/test_readme_examples.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run

DOCS = Path(__file__).resolve().parent.parent / "docs"

QUOTED = [  # (page, the spec with the mistake, the line the page quotes)
    ("limits.md", "tokens: [a, b]\nembeddings:\n  - [1, 0]\n  - [0, 1]\nweights:\n  W_Q:\n"
                  "    - [1, 0]\n    - [0, 1]\n    - [1, 1]\n",
     "spec.yaml:7:5: weights.W_Q is 3 × 2, expected d_model × d_k = 2 × 2"),
    ("limits.md", "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nmaks: causal\n",
     "spec.yaml:3:1: maks: unknown key; did you mean mask?"),
    ("limits.md", "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nweights:\n\tW_Q: identity\n",
     "spec.yaml:4:1: malformed YAML: a tab: YAML indents with spaces"),
    ("limits.md", "tokens: [cat, on]\nembeddings: [[1, 0], [0, 1]]\n",
     'spec.yaml:1:15: tokens[1]: expected text, found on, which YAML reads as the boolean true; '
     'write it in quotes: "on"'),
    ("limits.md", "tokens: [a]\nembeddings: {random: {}, shape: [1, 100000000]}\n",
     "spec.yaml:2:13: embeddings: a matrix of 1 × 100,000,000 is too large; the limit is "
     "10,000,000 numbers, which --max-cells sets"),
    ("library.md", "tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1]]\n",
     "spec.yaml:2:13: embeddings: has 2 rows, expected one per token (3)"),
]


@pytest.mark.parametrize(("page", "spec", "line"), QUOTED)
def test_a_quoted_error_is_what_attn_prints(page: str, spec: str, line: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "spec.yaml").write_text(spec, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("validate", "spec.yaml")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (2, line)
    assert line in (DOCS / page).read_text(encoding="utf-8")

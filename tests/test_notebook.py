"""examples/attention.ipynb, executed as Jupyter runs it (nbclient driving an ipykernel), and
its outputs checked: the numbers are those of `attn explain --format json`, the matrices its
Markdown shows are those worked out here with NumPy, and the committed outputs are current.

The notebook is committed with its outputs, so that a reader sees the worked example on GitHub
or nbviewer without running it; this test runs it afresh and fails when what is committed is
not what attn prints now. Regenerate with `ATTN_UPDATE_GOLDEN=1 pytest tests/test_notebook.py`
and read the diff.
"""

from __future__ import annotations

import ast
import json
import os
import re
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from attncli.cli.app import app
from tests.test_export_renderers import need

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "attention.ipynb"


def kernel_tools() -> Any:
    try:
        import ipykernel  # noqa: F401
        import nbclient
        import nbformat
    except ImportError:
        need("nbclient and ipykernel", 'pip install ".[test]"')
    return nbclient, nbformat


@cache
def executed() -> tuple[Any, Any]:
    """(the committed notebook, the same notebook executed now)."""
    nbclient, nbformat = kernel_tools()
    committed = nbformat.read(NOTEBOOK, as_version=4)
    fresh = nbformat.from_dict(json.loads(json.dumps(committed)))
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbclient.NotebookClient(fresh, timeout=600, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    return committed, fresh


def outputs() -> list[list[dict[str, Any]]]:
    return [cell.outputs for cell in executed()[1].cells if cell.cell_type == "code"]


def data(cell: int, mime: str) -> str:
    (output,) = [o for o in outputs()[cell] if o.output_type in ("execute_result", "stream")]
    return str(output.text if output.output_type == "stream" else output.data[mime])


def test_the_committed_outputs_are_current() -> None:
    committed, fresh = executed()
    if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":  # the outputs only: no kernel's version
        _, nbformat = kernel_tools()
        for mine, now in zip(committed.cells, fresh.cells, strict=True):
            if mine.cell_type == "code":
                mine.outputs, mine.execution_count = now.outputs, now.execution_count
        nbformat.write(committed, NOTEBOOK)
    assert [c.get("outputs") for c in committed.cells] == [c.get("outputs") for c in fresh.cells], (
        "examples/attention.ipynb is stale: ATTN_UPDATE_GOLDEN=1 pytest tests/test_notebook.py")
    assert [c.get("execution_count") for c in committed.cells if c.cell_type == "code"] == [
        1, 2, 3, 4, 5, 6]


def json_export(spec: str) -> dict[str, Any]:
    done = CliRunner().invoke(app, ["explain", spec, "--format", "json"])
    assert done.exit_code == 0, done.output
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_the_arrays_are_the_numbers_of_the_json_export() -> None:
    head = json_export(str(ROOT / "configs" / "cat_chases_mouse.yaml"))["heads"][0]
    assert ast.literal_eval(data(1, "text/plain")) == head["weights"]
    assert ast.literal_eval(data(2, "text/plain")) == head["context"]


# --- the matrices in the Markdown ---------------------------------------------------------


def shown_matrices(markdown: str) -> list[tuple[str, list[list[str]]]]:
    """(symbol, cells as printed) of every labelled matrix in the Markdown's math."""
    found = []
    for match in re.finditer(r"\n(\S+) = & \\begin\{array\}\{r\}.*?\\left\[\\hspace\{0.5em\}"
                             r"\\begin\{matrix\}\n(.*?)\n\\end\{matrix\}", markdown, re.S):
        rows = []
        for line in match.group(2).split("\n"):
            line = re.sub(r"\\rule\[[^]]*\]\{[^}]*\}\{[^}]*\}|\\hspace\{[^}]*\}|\\cr", "", line)
            line = line.replace("{-}", "−").replace(r"\text{—}", "—").replace("{,}", ",")
            rows.append([cell.strip() for cell in line.split("&")])
        found.append((match.group(1), rows))
    return found


def printed(values: np.ndarray, precision: int, hidden: np.ndarray | None = None) -> list[
        list[str]]:
    """Numbers as a person rounds them (half up), — where the mask hides a key."""
    def one(x: float) -> str:
        text = str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-precision),
                                                    rounding=ROUND_HALF_UP))
        return text.replace("-", "−")

    return [["—" if hidden is not None and hidden[i, j] else one(x)
             for j, x in enumerate(row)] for i, row in enumerate(values)]


def test_the_markdown_shows_the_weights_of_the_json_export() -> None:
    head = json_export(str(ROOT / "configs" / "cat_chases_mouse.yaml"))["heads"][0]
    shown = dict(shown_matrices(data(0, "text/markdown")))
    weights = np.array(head["weights"])
    assert shown["A"] == printed(weights, 2, np.triu(np.ones((3, 3), bool), 1))
    assert shown["A"][1] == ["0.36", "0.64", "—"]  # the classic blog's numbers
    assert shown["X"] == [["1.00", "0.00"], ["0.20", "1.00"], ["0.80", "0.00"]]


def test_the_two_heads_are_those_worked_out_with_numpy() -> None:
    """The second example's arrays, drawn as the notebook draws them, through the formula
    A = softmax(Q_h K_hᵀ / √d_k + M), head h using columns 2h-1..2h."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3, 4)).round(1)
    W_Q, W_K, _W_V = (rng.normal(size=(4, 4)).round(1) for _ in range(3))
    hidden = np.triu(np.ones((3, 3), bool), 1)
    expected = []
    for h in range(2):
        q = X @ W_Q[:, 2 * h:2 * h + 2]  # (3, 4) @ (4, 2) -> (3, 2)
        k = X @ W_K[:, 2 * h:2 * h + 2]
        s = np.where(hidden, -np.inf, q @ k.T / np.sqrt(2))  # (3, 3)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        expected.append(e / e.sum(axis=1, keepdims=True))
    shown = [cells for symbol, cells in shown_matrices(data(3, "text/markdown")) if symbol == "A"]
    assert shown == [printed(a, 3, hidden) for a in expected]
    assert np.allclose(ast.literal_eval(data(4, "text/plain")), expected[1].round(3), atol=1e-12)
    assert "## " in data(3, "text/markdown") and "Wagi atencji" in data(3, "text/markdown")


def test_a_mistake_is_reported_in_polish() -> None:
    message = data(5, "text/plain").strip()
    assert message.startswith("walkthrough_of: W_Q: oczekiwano wymiarów ")
    assert "3 × 2" in message and "2 × 2" in message and "expected" not in message


def test_the_display_is_markdown_alone() -> None:
    result = next(o for o in outputs()[0] if o.output_type == "execute_result")
    assert set(result.data) == {"text/markdown", "text/plain"}
    assert result.data["text/plain"].startswith("Attention step by step")

"""attncli.walkthrough_of and spec_of: a walkthrough from NumPy arrays and PyTorch tensors,
checked against PyTorch's own nn.MultiheadAttention; bad arrays raise the errors a spec file
gives; the results come back as arrays; a walkthrough shows itself in a notebook."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import attncli
from attncli import SpecError, UsageError, render, spec_of, walkthrough_of
from attncli.i18n import translate
from tests.conftest import attn_executable
from tests.mha_reference import TOLERANCE, torch_module

TOKENS = ["cat", "chases", "mouse"]
E = np.array([[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]])  # the README's example, W = I


def softmax_rows(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_readme_example_from_an_array() -> None:
    """A = softmax(XXᵀ/√2 + M), Z = A·X, written out here."""
    w = walkthrough_of(tokens=TOKENS, X=E, W_Q="identity", W_K="identity", W_V="identity",
                       mask="causal")
    scores = E @ E.T / math.sqrt(2)  # (3, 2) @ (2, 3) -> (3, 3)
    scores[np.triu_indices(3, 1)] = -np.inf
    A = softmax_rows(scores)
    assert np.allclose(w["A"], A, atol=1e-15, rtol=0)
    assert np.allclose(w["Z"], A @ E, atol=1e-15, rtol=0)
    assert w["S′ + M"][0, 1] == -np.inf and w["S' + M"][0, 1] == -np.inf
    assert round(w["A"][1, 1], 2) == 0.64  # as the README prints it
    w["A"][0, 0] = 5.0  # a copy: the walkthrough keeps its numbers
    assert w["A"][0, 0] == 1.0


def test_pytorch_multihead_attention_parameters_as_they_are() -> None:
    """nn.MultiheadAttention's own parameters (requires_grad, (out, in) weights: the column
    convention) give its own attention weights and output, head by head, to 1e-10."""
    torch = torch_module()
    torch.manual_seed(0)
    n, embed, h = 4, 6, 3
    mha = torch.nn.MultiheadAttention(embed, h, batch_first=True, dtype=torch.float64)
    torch.nn.init.normal_(mha.in_proj_bias)
    x = torch.randn(n, embed, dtype=torch.float64, requires_grad=True)
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    output, weights = mha(x[None], x[None], x[None], attn_mask=causal, need_weights=True,
                          average_attn_weights=False)
    W_Q, W_K, W_V = mha.in_proj_weight.chunk(3)
    b_Q, b_K, b_V = mha.in_proj_bias.chunk(3)
    w = walkthrough_of(tokens=[f"t{i}" for i in range(n)], X=x, W_Q=W_Q, W_K=W_K, W_V=W_V,
                       b_Q=b_Q, b_K=b_K, b_V=b_V, W_O=mha.out_proj.weight,
                       b_O=mha.out_proj.bias, heads=h, mask="causal", convention="column")
    assert W_Q.requires_grad and x.requires_grad
    for i in range(h):
        assert np.abs(w[f"A:{i + 1}"] - weights[0, i].detach().numpy()).max() < TOLERANCE
    assert np.abs(w["O"] - output[0].detach().numpy()).max() < TOLERANCE


def test_tensors_of_every_float_type_give_the_numbers_of_their_arrays() -> None:
    torch = torch_module()
    from_array = walkthrough_of(tokens=TOKENS, X=E.astype(np.float32), mask="causal")
    # 0.2 as each type holds it: bfloat16 keeps 8 bits of mantissa (0.2001953125 = 205/1024)
    for dtype, x in ((torch.float32, float(np.float32(0.2))), (torch.bfloat16, 205 / 1024),
                     (torch.float64, 0.2)):
        tensor = torch.tensor(E, dtype=dtype, requires_grad=True)
        w = walkthrough_of(tokens=TOKENS, X=tensor, mask="causal")
        assert w["X"][1, 0] == x, dtype
        assert np.array_equal(w["X"], tensor.detach().double().numpy()), dtype
    assert np.array_equal(from_array["A"], walkthrough_of(
        tokens=TOKENS, X=torch.tensor(E, dtype=torch.float32), mask="causal")["A"])


def test_the_numbers_are_those_of_the_json_export() -> None:
    w = walkthrough_of(tokens=TOKENS, X=E, mask=[[1, 0, 0], [1, 1, 0], [0, 1, 1]], heads=2,
                       W_Q=np.eye(2), W_K=np.eye(2), W_V=np.eye(2), precision=3)
    doc = json.loads(render(w, "json"))
    for head in doc["heads"]:
        i = head["head"]
        for key, symbol in (("queries", "Q"), ("weights", "A"), ("context", "Z")):
            assert w[f"{symbol}:{i}"].tolist() == head[key]
        scores = w[f"S′ + M:{i}"]
        assert [[None if x == -np.inf else x for x in row] for row in scores.tolist()] == \
            head["scores"]
    assert doc["precision"] == 3


# --- bad input: the errors a spec file gives ------------------------------------------------


def file_error(spec: dict[str, object]) -> SpecError:
    with pytest.raises(SpecError) as caught:
        attncli.loads_spec(json.dumps(spec), "spec.json")
    return caught.value


def array_error(**keys: object) -> SpecError:
    with pytest.raises(SpecError) as caught:
        spec_of(**keys)
    return caught.value


@pytest.mark.parametrize("bad", [
    {"weights": {"W_Q": np.ones((3, 2))}},
    {"embeddings": E[:2]},
    {"embeddings": np.array([[1.0, 0.0], [0.2, np.nan], [0.8, 0.0]])},
    {"heads": 3},
    {"mask": np.ones((3, 2))},
    {"weights": {"W_Q": np.eye(2), "W_k": np.eye(2)}},
], ids=["shape", "rows", "nan", "heads", "mask", "key"])
def test_bad_arrays_raise_what_a_spec_file_raises(bad: dict[str, object]) -> None:
    keys: dict[str, object] = {"tokens": TOKENS, "embeddings": E, **bad}
    from_file = file_error(json.loads(json.dumps(keys, default=lambda a: a.tolist()).replace(
        "NaN", "1e999")))  # JSON has no NaN; 1e999 is read as inf, refused alike
    from_arrays = array_error(**keys)
    assert from_arrays.where is not None and from_file.where is not None
    assert from_arrays.where.path == from_file.where.path
    if "nan" in str(from_arrays):
        assert str(from_arrays) == "spec_of: embeddings[1][1]: expected a finite number, found nan"
    else:
        assert from_arrays.message == from_file.message
        assert str(from_file).startswith("spec.json:1:")  # the file's line:column, then
        assert str(from_arrays) == "spec_of: " + str(from_file).split(": ", 1)[1]  # the same


def test_a_keyword_is_named_as_it_was_given() -> None:
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=E, W_Q=np.ones((3, 2)))
    assert str(caught.value) == "walkthrough_of: W_Q is 3 × 2, expected d_model × d_k = 2 × 2"
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=E[:2])
    assert str(caught.value) == "walkthrough_of: X: has 2 rows, expected one per token (3)"


def test_an_array_of_three_dimensions_or_of_complex_numbers_is_refused() -> None:
    torch = torch_module()
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=torch.zeros(1, 3, 2))  # a batch of one
    assert str(caught.value) == (
        "walkthrough_of: X: expected a matrix or a vector of real numbers (at most 2 "
        "dimensions), found an array of shape 1 × 3 × 2 and type float32")
    with pytest.raises(SpecError, match="found an array of shape 3 × 2 and type complex128"):
        walkthrough_of(tokens=TOKENS, X=E + 0j)


def test_a_value_numpy_cannot_read_and_a_key_that_is_no_text_are_named() -> None:
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=E, heads=[{"W_Q": object()}])
    assert str(caught.value) == ("walkthrough_of: heads[0].W_Q: expected an array that NumPy "
                                 "can read, found object")
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=E, positional={1: "sinusoidal"})
    assert str(caught.value) == "walkthrough_of: positional: expected text keys, found the key 1"


def test_values_nested_past_the_spec_limit_are_refused_where_they_nest() -> None:
    # a list 3,000 deep, or a mapping that holds itself, was Python's RecursionError
    deep: object = [1.0, 0.0]
    for _ in range(3000):
        deep = [deep]
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=["a"], X=deep)
    # the path quoted as the command line's line quotes it: its ends around an ellipsis
    assert str(caught.value) == ("walkthrough_of: X[0][0][0][0][0][0][…][0][0][0]: the spec "
                                 "nests lists and mappings more than 64 levels deep")
    itself: dict[str, object] = {}
    itself["x"] = itself
    with pytest.raises(SpecError) as caught:
        spec_of(tokens=TOKENS, embeddings=E, display=itself)
    assert str(caught.value) == ("spec_of: display.x.x.x.x.x.x.….x.x.x.x.x: the spec nests lists "
                                 "and mappings more than 64 levels deep")
    at_the_limit: object = 1.0
    for _ in range(62):  # 63 levels with X's own list: refused for its shape, not its depth
        at_the_limit = [at_the_limit]
    with pytest.raises(SpecError, match="expected a number, found a list of 1 item"):
        walkthrough_of(tokens=["a"], X=[at_the_limit])


def test_errors_and_the_display_speak_the_language_asked_for() -> None:
    with pytest.raises(SpecError) as caught:
        walkthrough_of(tokens=TOKENS, X=E[:2], lang="ru")
    assert str(caught.value) == "walkthrough_of: " + translate(caught.value.message, "ru")
    assert "X:" in str(caught.value) and "(3)" in str(caught.value)
    assert str(caught.value) != "walkthrough_of: X: has 2 rows, expected one per token (3)"
    w = walkthrough_of(tokens=TOKENS, X=E, lang="pl", decimal="comma")
    assert render(w, "text") == render(w, "text", "pl")
    assert "0,64" in render(w, "text") and "0.64" not in render(w, "text")
    with pytest.raises(UsageError):
        walkthrough_of(tokens=TOKENS, X=E, lang="de")
    with pytest.raises(UsageError):
        walkthrough_of(tokens=TOKENS, X=E, embeddings=E)


def test_no_such_matrix_names_the_ones_there_are() -> None:
    w = walkthrough_of(tokens=TOKENS, X=E, heads=2)
    with pytest.raises(UsageError, match="A is one per head; add the head, as in A:1"):
        w["A"]
    with pytest.raises(UsageError, match="this walkthrough has X, W_Q"):
        w["B"]


# --- in a notebook --------------------------------------------------------------------------


def test_a_walkthrough_shows_its_katex_flavoured_markdown() -> None:
    w = walkthrough_of(tokens=TOKENS, X=E, mask="causal", precision=3, steps=["weights"])
    markdown = w._repr_markdown_()
    assert markdown == render(w, "markdown", md_flavor="katex")
    assert "$$\n" in markdown and "```math" not in markdown
    assert r"\rule[-0.35em]{0pt}{1.3em}0.356 & \rule" not in markdown  # one cell per row start
    assert "0.356" in markdown and "0.644" in markdown  # A[chases] at 3 decimals
    assert repr(w) == "<Walkthrough: 3 tokens, 1 head, 1 step>"
    assert not hasattr(w, "_repr_html_") and not hasattr(w, "_repr_json_")


def test_importing_attncli_loads_no_numpy() -> None:
    python = str(Path(attn_executable()).parent / "python")
    code = ("import sys, attncli; print('numpy' in sys.modules); attncli.walkthrough_of; "
            "print('numpy' in sys.modules)")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\nFalse\n"


@pytest.mark.parametrize(("key", "shape"), [("X", (2, 10**8)), ("X", (10**8, 2)),
                                            ("W_Q", (2, 10**8))])
def test_an_array_past_the_cell_limit_is_refused_before_its_rows_are_copied(
        key: str, shape: tuple[int, int]) -> None:
    """A broadcast view is 16 bytes whatever its shape: 2 × 10⁸ ones were copied row by row
    into 1.6 GB of floats (7 s, 3 GB) before the limit refused them. The refusal is the same;
    the rows are not copied: under 100 MB more than before."""
    import tracemalloc

    big = np.broadcast_to(np.float64(1), shape)
    arrays = {"X": np.eye(2), key: big}
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as caught:
            attncli.walkthrough_of(tokens=["a", "b"], **arrays)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    rows, columns = shape
    assert str(caught.value) == (f"walkthrough_of: {key}: a matrix of {rows:,} × {columns:,} is "
                                 "too large; the limit is 10,000,000 numbers, which max_cells "
                                 "sets")
    assert peak < 100 * 2**20


def test_a_longdouble_past_float64_is_refused_where_it_stands_without_a_warning() -> None:
    """1e4000 in a longdouble array is no float64: NumPy warned (in English, with attn's source
    line) as it cast it, and the refusal named Q[cat, d1], a matrix made of it."""
    import warnings

    X = np.array([[np.longdouble("1e4000"), 0], [0, 1], [1, 1]])  # (3, 2), longdouble
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning fails the test
        with pytest.raises(attncli.SpecError) as raised:
            attncli.walkthrough_of(tokens=["cat", "chases", "mouse"], X=X)
    assert str(raised.value) == "walkthrough_of: X[0][0]: expected a finite number, found inf"


@pytest.mark.parametrize(("key", "found"), [(0, "0"), (slice(None, None, 2),
                                                       "slice(None, None, 2)")])
def test_a_matrix_asked_for_by_a_number_is_a_usage_error(key: object, found: str) -> None:
    """w[0] was Python's TypeError `argument of type 'int' is not iterable`."""
    w = walkthrough_of(tokens=["a", "b"], X=np.eye(2))
    with pytest.raises(UsageError) as raised:
        w[key]  # type: ignore[index]
    assert str(raised.value) == ('a matrix is named by its symbol, such as w["A"]; found '
                                 f"{found}")


def test_a_boolean_mask_is_read_as_scaled_dot_product_attention_reads_it() -> None:
    """A boolean mask matrix, True where a query may see a key (the 1 of a 0/1 mask): the
    weights and output of torch's scaled_dot_product_attention given the same boolean
    attn_mask, and the README's causal weights for a lower triangle."""
    torch = torch_module()
    allowed = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    w = walkthrough_of(tokens=TOKENS, X=E, mask=allowed)
    x = torch.tensor(E)[None]  # (1, 3, 2): W = I, so Q = K = V = X
    z = torch.nn.functional.scaled_dot_product_attention(x, x, x,
                                                         attn_mask=torch.tensor(allowed))
    assert np.abs(w["Z"] - z[0].numpy()).max() < TOLERANCE
    causal = walkthrough_of(tokens=TOKENS, X=E, mask=np.tril(np.ones((3, 3), dtype=bool)))
    assert [round(x, 2) for x in causal["A"][1]] == [0.36, 0.64, 0.0]
    padded = walkthrough_of(tokens=TOKENS, X=E, mask={"padding": np.array([True, True, False])})
    assert padded["A"][2, 2] == 0.0 and padded["A"][2, 0] > 0


@pytest.mark.parametrize(("keys", "line"), [
    ({"X": np.ones((1000, 1000), dtype=bool)},
     "walkthrough_of: X[0][0]: expected a number, found the boolean true"),
    ({"X": E, "W_Q": np.zeros((2, 2), dtype=bool)},
     "walkthrough_of: W_Q[0][0]: expected a number, found the boolean false"),
    # an additive mask, −inf above the diagonal: refused at its first −inf, as `.inf` in a file
    ({"X": E, "mask": np.triu(np.full((3, 3), -np.inf), 1)},
     "walkthrough_of: mask[0][1]: expected a finite number, found -inf"),
    ({"X": np.array([[1.0, 0.0], [0.0, 1.0], [np.nan, 0.0]])},
     "walkthrough_of: X[2][0]: expected a finite number, found nan"),
    ({"X": E, "mask": {"padding": np.ones(10**6, dtype=bool)}},
     "walkthrough_of: mask.padding: the spec holds more than 150,000 values, the limit that "
     "max_cells sets"),
])
def test_booleans_where_numbers_belong_are_refused_at_once(
        keys: dict, line: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    """A boolean array other than a mask, or a row with NaN or ±inf, was made into a node a cell
    (row_node) before its first cell was refused: 1,000 × 1,000 took 3.9 s and 387 MB; a padding
    list of booleans is charged as the values it becomes before they are made."""
    import attncli.spec.objects as objects

    made = objects.row_node

    def numbers_only(row: np.ndarray, *rest: str) -> object:
        assert row.dtype != bool and np.isfinite(row).all(), "a node made of each number"
        return made(row, *rest)

    monkeypatch.setattr(objects, "row_node", numbers_only)
    with pytest.raises(SpecError) as raised:
        walkthrough_of(tokens=TOKENS if "mask" in keys or "W_Q" in keys else
                       [f"t{i}" for i in range(1000)], **keys)
    assert str(raised.value) == line

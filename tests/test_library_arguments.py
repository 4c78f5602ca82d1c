"""A library argument of the wrong type is a UsageError naming the function, the argument, what
was expected and what was found, in the language asked for: `lang=None` (what
`os.environ.get("ATTN_LANG")` gives when it is unset) was Python's AttributeError, `max_cells="10"`
a TypeError from deep inside the limits, `load_spec(3)` the TypeError of os.fspath."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import attncli
from attncli import UsageError
from tests.conftest import CONFIGS

X = np.array([[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]])
TOKENS = ["cat", "chases", "mouse"]
TEXT = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
LANG = 'a language code such as "pl" or a comma list such as "pl,en"'
FILE = "a file name (a str or a path object)"
WHOLE = "a whole number of at least 1"


def walkthrough(**keys: Any) -> Callable[[], object]:
    return lambda: attncli.walkthrough_of(tokens=TOKENS, X=X, **keys)


@pytest.mark.parametrize(("call", "line"), [
    (walkthrough(lang=None), f"walkthrough_of: lang: expected {LANG}, found None"),
    (walkthrough(lang=["pl"]), f"walkthrough_of: lang: expected {LANG}, found list"),
    (walkthrough(max_cells=None), f"walkthrough_of: max_cells: expected {WHOLE}, found None"),
    (walkthrough(max_cells="10"), f"walkthrough_of: max_cells: expected {WHOLE}, found '10'"),
    (walkthrough(max_cells=True), f"walkthrough_of: max_cells: expected {WHOLE}, found True"),
    (walkthrough(max_cells=2.5), f"walkthrough_of: max_cells: expected {WHOLE}, found 2.5"),
    (walkthrough(max_cells=0), f"walkthrough_of: max_cells: expected {WHOLE}, found 0"),
    (lambda: attncli.load_spec(3), f"load_spec: path: expected {FILE}, found 3"),
    (lambda: attncli.load_spec(None), f"load_spec: path: expected {FILE}, found None"),
    (lambda: attncli.load_spec(CONFIGS / "two_tokens_unscaled.yaml", max_cells=None),
     f"load_spec: max_cells: expected {WHOLE}, found None"),
    (lambda: attncli.loads_spec(TEXT, name=None), f"loads_spec: name: expected {FILE}, found None"),
    (lambda: attncli.loads_spec(TEXT.encode(), "x.yaml"), "loads_spec: text: expected the "
     "spec's text as a str (decode bytes first), found bytes"),
    (lambda: attncli.spec_of(tokens=TOKENS, embeddings=X, max_cells="many"),
     f"spec_of: max_cells: expected {WHOLE}, found 'many'"),
    (lambda: attncli.build("spec.yaml"), "build: spec: expected a Spec (from attncli.load_spec "
     "or attncli.spec_of), found 'spec.yaml'"),
    (lambda: attncli.build(attncli.loads_spec(TEXT), max_cells=None),
     f"build: max_cells: expected {WHOLE}, found None"),
])
def test_a_wrong_argument_is_a_usage_error_naming_it(call: Callable[[], object],
                                                      line: str) -> None:
    with pytest.raises(UsageError) as error:
        call()
    assert str(error.value) == line


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "walkthrough_of: max_cells: oczekiwano liczby całkowitej nie mniejszej niż 1, "
           "otrzymano: None"),
    ("ru", "walkthrough_of: max_cells: ожидается целое число не меньше 1, получено: None"),
])
def test_a_wrong_argument_is_said_in_the_language_asked_for(lang: str, line: str) -> None:
    with pytest.raises(UsageError) as error:
        attncli.walkthrough_of(tokens=TOKENS, X=X, lang=lang, max_cells=None)
    assert str(error.value).replace("\u00a0", " ") == line


def test_an_array_of_dates_is_refused_with_its_type() -> None:
    dates = np.array([["2024-01-01", "2024-01-02"]] * 3, dtype="datetime64[s]")
    with pytest.raises(attncli.SpecError) as error:
        attncli.walkthrough_of(tokens=TOKENS, X=dates)
    assert str(error.value) == ("walkthrough_of: X: expected a matrix or a vector of real numbers "
                                "(at most 2 dimensions), found an array of shape 3 × 2 and type "
                                "datetime64[s]")


def test_a_numpy_integer_is_a_cell_limit_and_bytes_a_file_name() -> None:
    w = attncli.walkthrough_of(tokens=TOKENS, X=X, max_cells=np.int64(1000))
    assert w["X"].tolist() == X.tolist()
    name = bytes(CONFIGS / "two_tokens_unscaled.yaml")
    spec = attncli.load_spec(name, max_cells=np.int32(1000))
    assert list(spec.queries.tokens) == ["first", "second"]


@pytest.mark.parametrize(("call", "line"), [
    (lambda: attncli.loads_spec("tokens: [a, b]\nembeddings: {random: {seed: 1}, shape: [2, 3000]}"
                                "\n", max_cells=1000),
     "<string>:2:13: embeddings: a matrix of 2 × 3,000 is too large; the limit is 1,000 numbers, "
     "which max_cells sets"),
    (lambda: attncli.spec_of(tokens=["a", "b"], embeddings={"random": {"seed": 1},
                                                            "shape": [2, 3000]}, max_cells=1000),
     "spec_of: embeddings: a matrix of 2 × 3,000 is too large; the limit is 1,000 numbers, which "
     "max_cells sets"),
])
def test_a_limit_is_named_by_the_keyword_the_caller_passes(call: Callable[[], object],
                                                           line: str) -> None:
    """The command line's refusal says which option raises the limit (`--max-cells`); a library
    call takes it as the keyword `max_cells`, and its refusal names that."""
    with pytest.raises(attncli.SpecError) as raised:
        call()
    assert str(raised.value) == line


@pytest.mark.parametrize(("text", "line"), [
    ("x" * 4_800_001, "<string>: the spec is larger than 4,800,000 bytes, the limit that max_cells "
                      "sets"),
    ("é" * 2_400_001, "<string>: the spec has 4,800,002 bytes; the limit is 4,800,000 bytes, which "
                      "max_cells sets"),  # fewer characters than the limit, more bytes in UTF-8
])
def test_a_text_is_held_to_the_bytes_of_a_spec_file(text: str, line: str) -> None:
    """loads_spec refuses, before parsing, a text a spec file could not be: 32 bytes a value under
    max_cells (4,800,000 by default), counted in UTF-8 as a file's bytes are."""
    with pytest.raises(attncli.SpecError) as raised:
        attncli.loads_spec(text)
    assert str(raised.value) == line


def test_a_limit_past_any_float_is_a_limit() -> None:
    """max_cells=10**400 is a whole number of at least 1, as `--max-cells` of 400 digits is: the
    shares of it (the numbers a whole walkthrough may hold, a twentieth) were computed in floats
    and raised OverflowError."""
    from attncli.spec.limits import max_shown

    assert max_shown(10**400) == 10**400 // 20
    assert max_shown(10_000_000) == 500_000  # below 2**53, as before
    w = attncli.walkthrough_of(tokens=TOKENS, X=X, max_cells=10**400)
    assert w["A"].shape == (3, 3)


def test_a_control_character_a_caller_wrote_is_escaped_in_the_error() -> None:
    """The error's text is what a caller prints: `lang="pl\\x1b[2J"` (an escape that clears a
    terminal) is written `\\x1b`, as attn writes it on its own stderr."""
    with pytest.raises(UsageError) as raised:
        attncli.walkthrough_of(tokens=TOKENS, X=X, lang="pl\x1b[2J")
    assert str(raised.value) == "lang: unknown language pl\\x1b[2j; expected one of en, pl, ru"

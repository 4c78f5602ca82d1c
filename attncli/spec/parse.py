"""From a Node tree to a validated Spec. Every error names the key path, what was expected and
what was found, and carries the line:column of the offending value."""

from __future__ import annotations

import datetime
import difflib
import math
from collections.abc import Callable, Iterable
from typing import Any, NoReturn, TypeVar

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import LANGUAGES, Msg
from attncli.spec.model import (
    Array,
    CausalMask,
    Convention,
    Display,
    Head,
    Mask,
    MaskedRows,
    MatrixMask,
    PaddingMask,
    Scale,
    Score,
    Sequence,
    Spec,
    WindowMask,
)
from attncli.spec.source import Node

T = TypeVar("T")

TOP_KEYS = (
    "tokens", "embeddings", "convention", "weights", "score", "scale", "mask",
    "masked_rows", "display", "title", "description",
)
WEIGHT_KEYS = ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")
DISPLAY_KEYS = ("precision", "round_intermediates", "decimal")
MASK_KEYS = ("window", "causal", "padding")
SCORE_KEYS = ("general",)
MAX_PRECISION = 12


def fail(node: Node, msgid: str, **params: Any) -> NoReturn:
    """Raise a SpecError at `node`; the message starts with its key path."""
    problem = Msg.of(msgid, **params)
    if not node.where.path:
        raise SpecError(problem, node.where)
    raise SpecError(Msg.of("{path}: {problem}", path=node.where.path, problem=problem),
                    node.where)


def describe(node: Node, raw: bool = True) -> Msg:
    """What was found, in words: `the boolean true`, `the text "abc"`, `a list of 3 items`.

    With raw, a scalar is named as it was written (`the number 1e999`); without, as read.
    """
    value = node.value
    written = node.text if raw else None
    if isinstance(value, dict):
        # not the `a mapping` of check_keys: what was found and what was expected are
        # different grammatical cases in Polish (znaleziono mapowanie / oczekiwano mapowania)
        return Msg.plural_of("a mapping of {count} key", "a mapping of {count} keys", len(value))
    if isinstance(value, list):
        return Msg.plural_of("a list of {count} item", "a list of {count} items", len(value))
    if value is None:
        return Msg.of("nothing (null)")
    if isinstance(value, bool):
        return Msg.of("the boolean {value}", value=written or str(value).lower())
    if isinstance(value, (int, float)):
        return Msg.of("the number {value}", value=written or repr(value))
    if isinstance(value, (datetime.date, datetime.datetime)):
        return Msg.of("the date {value}", value=written or str(value))
    return Msg.of('the text "{value}"', value=str(value))


def expect(node: Node, expected: Msg) -> NoReturn:
    fail(node, "expected {expected}, found {found}", expected=expected, found=describe(node))


def check_keys(node: Node, allowed: Iterable[str]) -> dict[str, Node]:
    """The node's mapping, after refusing unknown keys (with a did-you-mean)."""
    if not isinstance(node.value, dict):
        expect(node, Msg.of("a mapping"))
    allowed = tuple(allowed)
    for key, child in node.value.items():
        if key not in allowed:
            suggestion = did_you_mean(key, allowed)
            if suggestion:
                fail(child, "unknown key; did you mean {suggestion}?", suggestion=suggestion)
            fail(child, "unknown key; expected one of {allowed}", allowed=", ".join(allowed))
    return dict(node.value)


def did_you_mean(key: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed key closest to `key`, ignoring case, `_` and `-` (`wq` -> `W_Q`)."""

    def fold(word: str) -> str:
        return word.lower().replace("_", "").replace("-", "")

    folded = {fold(word): word for word in allowed}
    close = difflib.get_close_matches(fold(key), list(folded), n=1, cutoff=0.6)
    return folded[close[0]] if close else None


def choice(node: Node, options: tuple[str, ...]) -> str:
    if not isinstance(node.value, str) or node.value not in options:
        expect(node, Msg.of("one of {options}", options=", ".join(options)))
    return node.value


def boolean(node: Node) -> bool:
    if not isinstance(node.value, bool):
        expect(node, Msg.of("true or false"))
    return node.value


def integer(node: Node, low: int, high: int | None = None) -> int:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        expect(node, Msg.of("a whole number"))
    if value < low or (high is not None and value > high):
        if high is None:
            fail(node, "expected a whole number of at least {low}, found {value}",
                 low=low, value=value)
        fail(node, "expected a whole number from {low} to {high}, found {value}",
             low=low, high=high, value=value)
    return value


def number(node: Node) -> float:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        expect(node, Msg.of("a number"))
    if isinstance(value, int) and abs(value) > 2**1023:
        fail(node, "expected a number that fits a 64-bit float, found {found}", found=node.text)
    if not math.isfinite(value):
        fail(node, "expected a finite number, found {found}", found=node.text or str(value))
    return float(value)


def text(node: Node) -> str:
    if not isinstance(node.value, str):
        if node.text is not None and not node.quoted and not isinstance(node.value, (dict, list)):
            fail(node, "expected text, found {written}, which YAML reads as {found}; "
                 'write it in quotes: "{written}"', found=describe(node, raw=False),
                 written=node.text)
        expect(node, Msg.of("text"))
    return node.value


def items(node: Node, what: Msg) -> list[Node]:
    if not isinstance(node.value, list):
        expect(node, what)
    if not node.value:
        fail(node, "expected {what}, found an empty list", what=what)
    return list(node.value)


def matrix(node: Node, name: str) -> Array:
    """A non-empty rectangular matrix of finite numbers, as float64."""
    rows = items(node, Msg.of("a matrix (a list of rows of numbers)"))
    width: int | None = None
    cells: list[list[float]] = []
    for row in rows:
        entries = items(row, Msg.of("a row of numbers"))
        if width is None:
            width = len(entries)
        elif len(entries) != width:
            fail(row, "expected a row of {width} numbers like the first row, found {found}",
                 width=width, found=len(entries))
        cells.append([number(cell) for cell in entries])
    return np.array(cells, dtype=np.float64)  # (rows, width)


def vector(node: Node) -> Array:
    entries = items(node, Msg.of("a list of numbers"))
    return np.array([number(cell) for cell in entries], dtype=np.float64)  # (d,)


def shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(str(s) for s in shape)


def check_shape(node: Node, array: Array, expected: tuple[int, ...], names: str | Msg) -> None:
    if array.shape != expected:
        raise SpecError(
            Msg.of("{path} is {found}, expected {names} = {expected}", path=node.where.path,
                   found=shape_text(array.shape), names=names, expected=shape_text(expected)),
            node.where,
        )


def tokens(node: Node) -> tuple[str, ...]:
    entries = items(node, Msg.of("a list of tokens"))
    found = []
    for entry in entries:
        token = text(entry)
        if not token.strip():
            fail(entry, "expected a token, found an empty text")
        found.append(token)
    return tuple(found)


def localized(node: Node) -> dict[str, str]:
    """A text for every language (`"..."`) or per language (`{en: ..., pl: ...}`)."""
    if isinstance(node.value, dict):
        return {lang: text(child) for lang, child in check_keys(node, LANGUAGES).items()}
    return {"": text(node)}


def optional(mapping: dict[str, Node], key: str, read: Callable[[Node], T], default: T) -> T:
    node = mapping.get(key)
    return default if node is None else read(node)


def load(root: Node) -> Spec:
    """The Spec that `root` describes, or SpecError at the first problem."""
    top = check_keys(root, TOP_KEYS)
    for key in ("tokens", "embeddings"):
        if key not in top:
            fail(root, "the key {key} is missing", key=key)
    queries = sequence(top["tokens"], top["embeddings"])
    convention: Convention = "row"
    if "convention" in top:
        convention = "row" if choice(top["convention"], ("row", "column")) == "row" else "column"
    score = optional(top, "score", lambda n: score_spec(n, queries), ("scaled_dot", Score()))
    head = weights(top.get("weights"), root, queries.d_model, convention)
    kind, score_model = score
    d_k = head.d_k(convention)
    if score_model.W is not None:
        check_shape(top["score"]["general"], score_model.W, (d_k, d_k), "d_k x d_k")
    default_scale = Scale("sqrt_dk") if kind == "scaled_dot" else Scale("none")
    return Spec(
        source=root.where.source,
        queries=queries,
        heads=(head,),
        convention=convention,
        score=score_model,
        scale=optional(top, "scale", scale_spec, default_scale),
        masks=optional(top, "mask", lambda n: masks(n, queries.n, queries.n), ()),
        masked_rows=optional(top, "masked_rows", masked_rows, "zeros"),
        display=optional(top, "display", display, Display()),
        title=optional(top, "title", localized, {}),
        description=optional(top, "description", localized, {}),
    )


def sequence(tokens_node: Node, embeddings_node: Node) -> Sequence:
    names = tokens(tokens_node)
    embeddings = matrix(embeddings_node, "embeddings")
    if embeddings.shape[0] != len(names):
        fail(embeddings_node, "has {found} rows, expected one per token ({expected})",
             found=embeddings.shape[0], expected=len(names))
    return Sequence(names, embeddings)


def weights(node: Node | None, root: Node, d_model: int, convention: Convention) -> Head:
    """W_Q, W_K, W_V (identity when absent) and optional biases, shapes checked."""
    given = check_keys(node, WEIGHT_KEYS) if node is not None else {}
    identity = frozenset(
        key for key in ("W_Q", "W_K", "W_V") if key not in given or given[key].value == "identity"
    )
    arrays: dict[str, Array] = {}
    for key in ("W_Q", "W_K", "W_V"):
        if key in identity:
            arrays[key] = np.eye(d_model)  # (d_model, d_model)
        elif isinstance(given[key].value, str):
            expect(given[key], Msg.of("a matrix or identity"))
        else:
            arrays[key] = matrix(given[key], key)
    first = "d_model x " if convention == "row" else ""
    last = "" if convention == "row" else " x d_model"
    d_k_axis = 1 if convention == "row" else 0

    def check(key: str, dim_name: str, dim: int) -> None:
        shape = (d_model, dim) if convention == "row" else (dim, d_model)
        check_shape(given[key], arrays[key], shape, f"{first}{dim_name}{last}")

    d_k = int(arrays["W_Q"].shape[d_k_axis])
    if "W_Q" not in identity:
        check("W_Q", "d_k", d_k)
    if "W_K" not in identity:
        check("W_K", "d_k", d_k)
    elif d_k != d_model:
        fail(root, "weights.W_K is missing, so it is the identity, which needs d_k = d_model")
    d_v = int(arrays["W_V"].shape[d_k_axis])
    if "W_V" not in identity:
        check("W_V", "d_v", d_v)
    biases: dict[str, Array | None] = {}
    for key, dim in (("b_Q", d_k), ("b_K", d_k), ("b_V", d_v)):
        bias_node = given.get(key)
        biases[key] = None
        if bias_node is not None:
            bias = vector(bias_node)
            check_shape(bias_node, bias, (dim,), "d_k" if key != "b_V" else "d_v")
            biases[key] = bias
    return Head(
        W_Q=arrays["W_Q"], W_K=arrays["W_K"], W_V=arrays["W_V"],
        b_Q=biases["b_Q"], b_K=biases["b_K"], b_V=biases["b_V"], identity=identity,
    )


def score_spec(node: Node, queries: Sequence) -> tuple[str, Score]:
    if isinstance(node.value, dict):
        general = check_keys(node, SCORE_KEYS)
        if "general" not in general:
            fail(node, "expected scaled_dot, dot or {{general: W}}, found an empty mapping")
        return "general", Score("general", matrix(general["general"], "general"))
    kind = choice(node, ("scaled_dot", "dot"))
    return kind, Score("dot")


def scale_spec(node: Node) -> Scale:
    if isinstance(node.value, str):
        kind = choice(node, ("sqrt_dk", "none"))
        return Scale("sqrt_dk") if kind == "sqrt_dk" else Scale("none")
    value = number(node)
    if value <= 0:
        fail(node, "expected a positive number to divide by, found {value}", value=value)
    return Scale("number", value)


def masks(node: Node, n: int, m: int) -> tuple[Mask, ...]:
    """One mask, or a list of masks that all have to allow a key for it to be visible."""
    if isinstance(node.value, list) and node.value and not is_matrix(node):
        return tuple(mask for child in node.value for mask in masks(child, n, m))
    if node.value == "none":
        return ()
    return (one_mask(node, n, m),)


def is_matrix(node: Node) -> bool:
    return all(
        isinstance(row.value, list) and all(not isinstance(c.value, (list, dict, str))
                                            for c in row.value)
        for row in node.value
    )


def one_mask(node: Node, n: int, m: int) -> Mask:
    expected = Msg.of("none, causal, {{window: w}}, {{padding: [...]}} or a 0/1 matrix")
    if isinstance(node.value, str):
        if node.value == "causal":
            if n != m:
                fail(node, "a causal mask needs as many queries as keys, found {n} x {m}",
                     n=n, m=m)
            return CausalMask()
        expect(node, expected)
    if isinstance(node.value, list):
        visible = matrix(node, "mask")
        check_shape(node, visible, (n, m), Msg.of("queries x keys"))
        if not np.isin(visible, (0.0, 1.0)).all():
            fail(node, "expected only 1 (visible) and 0 (hidden) in a mask matrix")
        return MatrixMask(visible.astype(bool))
    if not isinstance(node.value, dict):
        expect(node, expected)
    keys = check_keys(node, MASK_KEYS)
    if "padding" in keys:
        if len(keys) > 1:
            fail(node, "expected padding alone, found other keys beside it")
        keep = tuple(boolean(flag) for flag in items(keys["padding"], Msg.of("a list of booleans")))
        if len(keep) != m:
            fail(keys["padding"], "has {found} entries, expected one per key ({expected})",
                 found=len(keep), expected=m)
        return PaddingMask(keep)
    if "window" not in keys:
        if "causal" in keys and boolean(keys["causal"]):
            return one_mask(Node("causal", node.where), n, m)
        fail(node, "expected window, causal or padding")
    causal = optional(keys, "causal", boolean, False)
    if causal and n != m:
        fail(node, "a causal mask needs as many queries as keys, found {n} x {m}", n=n, m=m)
    return WindowMask(integer(keys["window"], 0), causal)


def masked_rows(node: Node) -> MaskedRows:
    policy = choice(node, ("zeros", "nan", "error"))
    return "nan" if policy == "nan" else "error" if policy == "error" else "zeros"


def display(node: Node) -> Display:
    keys = check_keys(node, DISPLAY_KEYS)
    return Display(
        precision=optional(keys, "precision", lambda n: integer(n, 0, MAX_PRECISION), 2),
        round_intermediates=optional(keys, "round_intermediates", boolean, False),
        decimal="comma" if optional(
            keys, "decimal", lambda n: choice(n, ("dot", "comma")), "dot") == "comma" else "dot",
    )

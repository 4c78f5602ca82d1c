"""From a Node tree to a validated Spec. Every error names the key path, what was expected and
what was found, and carries the line:column of the offending value."""

from __future__ import annotations

import datetime
import difflib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import LANGUAGES, Msg
from attncli.limits import COMPUTED_PER_CELL, DEFAULT_MAX_CELLS, max_computed
from attncli.spec.files import FileProblem, load_array, resolve, spec_folder
from attncli.spec.model import (
    Array,
    Block,
    CausalMask,
    Convention,
    Display,
    FeedForward,
    Head,
    LayerNorm,
    Mask,
    MaskedRows,
    MatrixMask,
    PaddingMask,
    Positional,
    Scale,
    Score,
    Sequence,
    Spec,
    WindowMask,
)
from attncli.spec.source import LIMIT_HINT, Node

T = TypeVar("T")

TOP_KEYS = (
    "tokens", "embeddings", "convention", "weights", "score", "scale", "mask",
    "masked_rows", "display", "title", "description",
    "heads", "context", "positional", "block",
)
PROJECTIONS = ("W_Q", "W_K", "W_V")
PROJECTION_KEYS = ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")
OUTPUT_KEYS = ("W_O", "b_O")
WEIGHT_KEYS = PROJECTION_KEYS + OUTPUT_KEYS
BLOCK_KEYS = ("residual", "layer_norm", "ffn", "norm")
FFN_KEYS = ("W_1", "b_1", "W_2", "b_2", "activation")
RANDOM_KEYS = ("seed", "distribution", "low", "high", "mean", "std")
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


SHOWN = 40  # characters of a value quoted back in a message; a longer one is cut in the middle


def shown(text: str) -> str:
    """`text` to quote in a message: whole when short, else its ends around an ellipsis."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN // 2]}…{text[-(SHOWN // 4):]}"


def describe(node: Node, raw: bool = True) -> Msg:
    """What was found, in words: `the boolean true`, `the text "abc"`, `a list of 3 items`.

    With raw, a scalar is named as it was written (`the number 1e999`); without, as read.
    """
    value = node.value
    written = shown(node.text) if raw and node.text is not None else None
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
    return Msg.of('the text "{value}"', value=shown(str(value)))


def expect(node: Node, expected: Msg) -> NoReturn:
    fail(node, "expected {expected}, found {found}", expected=expected, found=describe(node))


def check_keys(node: Node, allowed: Iterable[str]) -> dict[str, Node]:
    """The node's mapping, after refusing unknown keys (with a did-you-mean)."""
    if not isinstance(node.value, dict):
        expect(node, Msg.of("a mapping"))
    allowed = tuple(allowed)
    for key, child in node.value.items():
        if key not in allowed:
            written = Node(key, node.keys.get(key, child.where))  # at the key, not its value
            suggestion = did_you_mean(key, allowed)
            if suggestion:
                fail(written, "unknown key; did you mean {suggestion}?", suggestion=suggestion)
            fail(written, "unknown key; expected one of {allowed}", allowed=", ".join(allowed))
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


def visible_flag(node: Node) -> bool:
    """A key's entry in a padding mask: true/false, or 1/0 as in a 0/1 mask matrix."""
    if isinstance(node.value, bool):
        return node.value
    if isinstance(node.value, (int, float)) and node.value in (0, 1):
        return node.value == 1
    expect(node, Msg.of("true, false, 1 or 0"))


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
        fail(node, "expected a number that fits a 64-bit float, found {found}",
             found=shown(node.text or str(value)))
    if not math.isfinite(value):
        fail(node, "expected a finite number, found {found}", found=shown(node.text or str(value)))
    return float(value)


def text(node: Node) -> str:
    if not isinstance(node.value, str):
        if node.text is not None and not node.quoted and not isinstance(node.value, (dict, list)):
            fail(node, "expected text, found {written}, which YAML reads as {found}; "
                 'write it in quotes: "{written}"', found=describe(node, raw=False),
                 written=shown(node.text))
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
    cells: list[list[float] | tuple[float, ...]] = []
    for row in rows:
        # a row of plain numbers comes converted (source.Node.numbers); any other is read cell by
        # cell, so that a bad cell is named with its line and column
        numbers = row.numbers
        entries = items(row, Msg.of("a row of numbers")) if numbers is None else None
        found = len(entries) if entries is not None else len(numbers or ())
        if width is None:
            width = found
        elif found != width:
            fail(row, "expected a row of {width} numbers like the first row, found {found}",
                 width=width, found=found)
        cells.append([number(cell) for cell in entries] if entries is not None else numbers or ())
    return np.array(cells, dtype=np.float64)  # (rows, width)


def vector(node: Node) -> Array:
    if node.numbers is not None:
        return np.array(node.numbers, dtype=np.float64)  # (d,)
    entries = items(node, Msg.of("a list of numbers"))
    return np.array([number(cell) for cell in entries], dtype=np.float64)  # (d,)


class Budget:
    """The numbers of every matrix a spec makes, counted before each is made, against the one
    cell limit (see attncli.limits)."""

    def __init__(self, max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.max_cells = max_cells
        self.used = 0

    def charge(self, node: Node, shape: tuple[int, ...], what: Msg | None = None) -> None:
        """Count a matrix of `shape` about to be made at `node`; SpecError past the limit.
        `what` names the matrix when `node` alone does not (default: a matrix of RxC)."""
        cells = math.prod(shape)
        self.used += cells
        what = what or Msg.of("a matrix of {found}", found=shape_text(shape))
        if cells > self.max_cells:
            fail(node, "{what} is too large; the limit is {limit} numbers, which {option} sets",
                 what=what, limit=self.max_cells, option=LIMIT_HINT)
        if self.used > self.max_cells:
            fail(node, "{what} brings the spec to {count} numbers; the limit is {limit}, which "
                 "{option} sets", what=what, count=self.used, limit=self.max_cells,
                 option=LIMIT_HINT)

    def charge_walkthrough(self, node: Node, cells: int) -> None:
        """Count the numbers the walkthrough will compute (scores, weights, outputs), which
        may be COMPUTED_PER_CELL times the cell limit."""
        limit = max_computed(self.max_cells)
        if self.used + cells > limit:
            fail(node, "the walkthrough of this spec would compute {count} numbers; the limit is "
                 "{limit}, {factor} times what {option} sets", count=self.used + cells,
                 limit=limit, factor=COMPUTED_PER_CELL, option=LIMIT_HINT)
        self.used += cells


@dataclass(frozen=True)
class Files:
    """Where the files a spec names are read from, and the budget of numbers they count
    against."""

    folder: Path
    allow_outside: bool = False
    budget: Budget = field(default_factory=Budget)


Dims = tuple[int | None, ...]  # an expected shape; None where the other matrices don't tell


def is_random(node: Node) -> bool:
    return isinstance(node.value, dict) and "random" in node.value


def matrix_at(node: Node, name: str, files: Files, shape: Dims = (None, None)) -> Array:
    """A matrix written out, read from {file: ...}, or drawn with {random: ...} in `shape`."""
    if isinstance(node.value, dict):
        if "file" in node.value:
            return file_values(node, files, 2)
        if "random" in node.value:
            return random_values(node, shape, files.budget)
        expect(node, Msg.of("a matrix, {{file: ...}} or {{random: ...}}"))
    values = matrix(node, name)
    files.budget.charge(node, values.shape)
    return values


def vector_at(node: Node, files: Files, length: int) -> Array:
    """A vector written out, read from {file: ...}, or drawn with {random: ...}."""
    if isinstance(node.value, dict):
        if "file" in node.value:
            return file_values(node, files, 1)
        if "random" in node.value:
            return random_values(node, (length,), files.budget)
        expect(node, Msg.of("a list of numbers, {{file: ...}} or {{random: ...}}"))
    values = vector(node)
    files.budget.charge(node, values.shape)
    return values


def embeddings_at(node: Node, n: int, files: Files) -> Array:
    """E: written out, from a file, or {random: ..., dim: d_model} (one row per token)."""
    if is_random(node):
        dim_node = node.get("dim")
        dim = integer(dim_node, 1) if dim_node is not None else None
        return random_values(node, (n, dim), files.budget, ("dim",))
    return matrix_at(node, "embeddings", files, (n, None))


def file_values(node: Node, files: Files, ndim: int) -> Array:
    """{file: name.npy | name.csv} or {file: name.npz, key: W_Q}, relative to the spec."""
    keys = check_keys(node, ("file", "key"))
    name_node = keys["file"]  # present: that is how the caller told a file from a matrix
    name = text(name_node)
    key = optional(keys, "key", text, None)
    try:
        values = load_array(resolve(files.folder, name, files.allow_outside), name, key,
                            files.budget.max_cells)
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=name_node.where.path,
                               problem=problem.message), name_node.where) from None
    files.budget.charge(name_node, values.shape)
    if ndim == 1 and values.ndim == 2 and values.shape[0] == 1:
        values = values[0]  # a CSV file of one line: (1, d) -> (d,)
    if values.ndim != ndim:
        wanted = (Msg.of("a matrix (2 dimensions)") if ndim == 2
                  else Msg.of("a vector (1 dimension)"))
        fail(name_node, "{name} holds an array of shape {found}, expected {expected}",
             name=name, found=shape_text(values.shape), expected=wanted)
    return values


def random_values(node: Node, shape: Dims, budget: Budget,
                  extra: tuple[str, ...] = ()) -> Array:
    """{random: {seed, distribution: normal|uniform, low, high, mean, std}, shape: [...]}.

    NumPy's Generator (PCG64) gives the same numbers for the same seed on every machine.
    """
    keys = check_keys(node, ("random", "shape", *extra))
    if "shape" in keys:
        written = items(keys["shape"], Msg.of("a list of sizes"))
        given = tuple(integer(size, 1) for size in written)
        if len(given) != len(shape) or any(
                k is not None and k != g for k, g in zip(shape, given, strict=True)):
            expected = "x".join("?" if k is None else str(k) for k in shape)
            raise SpecError(Msg.of("{path} is {found}, expected {expected}",
                                   path=keys["shape"].where.path, found=shape_text(given),
                                   expected=expected), keys["shape"].where)
        shape = given
    if any(size is None for size in shape):
        fail(node, "cannot tell the shape of this random matrix from the others; add shape: "
             "[rows, columns]")
    size = tuple(int(s) for s in shape if s is not None)
    budget.charge(node, size)
    options = check_keys(keys["random"], RANDOM_KEYS)
    rng = np.random.default_rng(optional(options, "seed", lambda n: integer(n, 0), 0))
    kind = optional(options, "distribution", lambda n: choice(n, ("normal", "uniform")), "normal")
    wrong = ("mean", "std") if kind == "uniform" else ("low", "high")
    for key in wrong:
        if key in options:
            fail(options[key], "{key} does not apply to the {kind} distribution", key=key,
                 kind=kind)
    if kind == "uniform":
        low = optional(options, "low", number, 0.0)
        high = optional(options, "high", number, 1.0)
        if not low < high:
            fail(keys["random"], "expected low < high, found low = {low}, high = {high}",
                 low=low, high=high)
        return rng.uniform(low, high, size)  # shape `size`
    std = optional(options, "std", number, 1.0)
    if std <= 0:
        fail(options["std"], "expected a positive standard deviation, found {value}", value=std)
    return rng.normal(optional(options, "mean", number, 0.0), std, size)  # shape `size`


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


def load(root: Node, allow_outside: bool = False, max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec that `root` describes, or SpecError at the first problem.

    Files named in the spec are read from the spec's folder (or below it); `allow_outside`
    lifts that limit. The matrices the spec makes and the numbers its walkthrough computes may
    number at most `max_cells` in all.
    """
    top = check_keys(root, TOP_KEYS)
    for key in ("tokens", "embeddings"):
        if key not in top:
            fail(root, "the key {key} is missing", key=key)
    files = Files(spec_folder(root.where.source), allow_outside, Budget(max_cells))
    queries = sequence(top["tokens"], top["embeddings"], top.get("positional"), files)
    context = optional(top, "context", lambda n: context_sequence(n, queries.d_model, files), None)
    keys_n = context.n if context is not None else queries.n
    convention: Convention = "row"
    if "convention" in top:
        convention = "row" if choice(top["convention"], ("row", "column")) == "row" else "column"
    heads, W_O, b_O = projections(top, root, queries.d_model, convention, files)
    d_k = heads[0].d_k(convention)
    kind, score_model = optional(top, "score", lambda n: score_spec(n, files, d_k),
                                 ("scaled_dot", Score()))
    if score_model.W is not None:
        for index, head in enumerate(heads, start=1):
            if head.d_k(convention) != d_k:
                fail(top["score"], "the general score needs one d_k for every head; head "
                     "{index} has d_k = {found}, head 1 has {expected}",
                     index=index, found=head.d_k(convention), expected=d_k)
    default_scale = Scale("sqrt_dk") if kind == "scaled_dot" else Scale("none")
    block = optional(top, "block", lambda n: block_spec(n, queries.d_model, convention, files),
                     None)
    if block is not None:
        width = queries.d_model if W_O is not None else sum(h.d_v(convention) for h in heads)
        if width != queries.d_model:
            fail(top["block"], "the layer needs the attention output to have d_model = {d_model} "
                 "columns, found {width}; add W_O to weights", d_model=queries.d_model,
                 width=width)
    spec = Spec(
        source=root.where.source,
        queries=queries,
        heads=heads,
        convention=convention,
        context=context,
        W_O=W_O,
        b_O=b_O,
        block=block,
        score=score_model,
        scale=optional(top, "scale", scale_spec, default_scale),
        masks=optional(top, "mask", lambda n: masks(n, queries.n, keys_n, files), ()),
        masked_rows=optional(top, "masked_rows", masked_rows, "zeros"),
        display=optional(top, "display", display, Display()),
        title=optional(top, "title", localized, {}),
        description=optional(top, "description", localized, {}),
    )
    files.budget.charge_walkthrough(root, walkthrough_cells(spec))
    return spec


def walkthrough_cells(spec: Spec) -> int:
    """About how many numbers build(spec) computes: the inputs with positions added, then per
    head Q, K, V, the n x m scores, scaled and masked scores and weights, and Z; the heads side
    by side and W_O; the rest of the layer."""
    conv = spec.convention
    n, m, d = spec.queries.n, spec.keys_source.n, spec.queries.d_model
    total = sum(2 * seq.n * d for seq in (spec.queries, spec.context)
                if seq is not None and seq.positional is not None)  # P and E + P
    for head in spec.heads:
        d_k, d_v = head.d_k(conv), head.d_v(conv)
        total += n * d_k + m * (d_k + d_v) + 4 * n * m + n * d_v
    total += n * sum(head.d_v(conv) for head in spec.heads) + n * d
    if spec.block is not None:
        d_ff = 0 if spec.block.ffn is None else int(spec.block.ffn.W_1.size) // d
        total += 6 * n * d + n * d_ff
    return total


def sequence(tokens_node: Node, embeddings_node: Node, positional_node: Node | None,
             files: Files) -> Sequence:
    names = tokens(tokens_node)
    embeddings = embeddings_at(embeddings_node, len(names), files)
    if embeddings.shape[0] != len(names):
        fail(embeddings_node, "has {found} rows, expected one per token ({expected})",
             found=embeddings.shape[0], expected=len(names))
    added = None
    if positional_node is not None:
        added = positional(positional_node, len(names), int(embeddings.shape[1]), files)
    return Sequence(names, embeddings, added)


def context_sequence(node: Node, d_model: int, files: Files) -> Sequence:
    """The tokens that keys and values come from (cross-attention)."""
    keys = check_keys(node, ("tokens", "embeddings", "positional"))
    for key in ("tokens", "embeddings"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    context = sequence(keys["tokens"], keys["embeddings"], keys.get("positional"), files)
    if context.d_model != d_model:
        fail(keys["embeddings"], "has {found} columns, expected d_model = {expected} as in the "
             "query embeddings", found=context.d_model, expected=d_model)
    return context


def positional(node: Node, n: int, d_model: int, files: Files) -> Positional | None:
    """none, sinusoidal, {sinusoidal: {base: n}}, or a learned n x d_model matrix."""
    expected = Msg.of("none, sinusoidal, {{sinusoidal: {{base: n}}}} or a tokens x d_model "
                      "matrix")
    if node.value == "none":
        return None
    if node.value == "sinusoidal":
        return Positional("sinusoidal")
    if isinstance(node.value, str):
        expect(node, expected)
    if isinstance(node.value, dict) and "sinusoidal" in node.value:
        options = check_keys(check_keys(node, ("sinusoidal",))["sinusoidal"], ("base",))
        base = optional(options, "base", number, 10000.0)
        if base <= 1.0:
            fail(options["base"], "expected a base greater than 1, found {value}", value=base)
        return Positional("sinusoidal", base=base)
    values = matrix_at(node, "positional", files, (n, d_model))
    check_shape(node, values, (n, d_model), Msg.of("tokens x d_model"))
    return Positional("matrix", values=values)


def projections(top: dict[str, Node], root: Node, d_model: int, convention: Convention,
                files: Files) -> tuple[tuple[Head, ...], Array | None, Array | None]:
    """The heads (from `weights`, split by `heads: h`, or one per entry of a `heads` list),
    and the output projection W_O, b_O from `weights`."""
    heads_node = top.get("heads")
    given = check_keys(top["weights"], WEIGHT_KEYS) if "weights" in top else {}
    if heads_node is None or is_count(heads_node):
        full = head_weights(given, root, d_model, convention, files, None)
        heads = (full,) if heads_node is None else split(full, heads_node, convention)
    else:
        entries = items(heads_node, Msg.of("a number of heads or a list of heads"))
        for key, child in given.items():
            if key not in OUTPUT_KEYS:
                fail(child, "with a list of heads, each head has its own projections; "
                     "weights may hold only W_O and b_O")
        heads = tuple(
            head_weights(check_keys(entry, PROJECTION_KEYS), entry, d_model, convention, files,
                         index)
            for index, entry in enumerate(entries, start=1)
        )
    W_O, b_O = output_projection(given, d_model, sum(h.d_v(convention) for h in heads),
                                 convention, files)
    return heads, W_O, b_O


def is_count(node: Node) -> bool:
    return isinstance(node.value, int) and not isinstance(node.value, bool)


def head_weights(given: dict[str, Node], where: Node, d_model: int, convention: Convention,
                 files: Files, index: int | None) -> Head:
    """W_Q, W_K, W_V (identity when absent) and optional biases of one head, shapes checked.

    `index` is the head's number in a `heads` list (None for `weights`), for the messages.
    """
    identity = frozenset(
        key for key in PROJECTIONS if key not in given or given[key].value == "identity"
    )
    row = convention == "row"
    for key in (k for k in PROJECTIONS if k in identity):
        files.budget.charge(given.get(key, where), (d_model, d_model),
                            Msg.of("the identity {name} of {found}", name=key,
                                   found=shape_text((d_model, d_model))))
    arrays: dict[str, Array] = {key: np.eye(d_model) for key in identity}  # (d_model, d_model)
    dims: dict[str, int | None] = {
        "d_k": d_model if "W_Q" in identity else None,
        "d_v": d_model if "W_V" in identity else None,
    }
    names = ("d_model x {dim}" if row else "{dim} x d_model")
    # matrices whose shape is known first (written out, from files, random with a shape), in
    # the order W_Q, W_K, W_V: a random one without a shape takes its shape from them
    def shapeless(key: str) -> bool:
        return is_random(given[key]) and given[key].get("shape") is None

    for key in sorted((k for k in PROJECTIONS if k not in identity),
                      key=lambda k: (shapeless(k), PROJECTIONS.index(k))):
        node = given[key]
        if isinstance(node.value, str):
            expect(node, Msg.of("a matrix or identity"))
        dim_name = "d_v" if key == "W_V" else "d_k"
        known = dims[dim_name]
        if known is None and shapeless(key):
            known = d_model  # nothing else tells: square, as PyTorch's in_proj blocks are
        arrays[key] = matrix_at(node, key, files, (d_model, known) if row else (known, d_model))
        size = known if known is not None else int(arrays[key].shape[1 if row else 0])
        dims[dim_name] = size
        shape = (d_model, size) if row else (size, d_model)
        check_head_shape(node, arrays[key], shape, names.format(dim=dim_name), index)
    d_k, d_v = dims["d_k"], dims["d_v"]
    assert d_k is not None and d_v is not None
    if "W_K" in identity and d_k != d_model:
        if index is None:
            fail(where, "weights.W_K is missing, so it is the identity, which needs d_k = d_model")
        fail(where, "W_K is missing, so it is the identity, which needs d_k = d_model")
    biases: dict[str, Array | None] = {}
    for key, dim in (("b_Q", d_k), ("b_K", d_k), ("b_V", d_v)):
        bias_node = given.get(key)
        biases[key] = None
        if bias_node is not None:
            bias = vector_at(bias_node, files, dim)
            check_head_shape(bias_node, bias, (dim,), "d_k" if key != "b_V" else "d_v", index)
            biases[key] = bias
    return Head(
        W_Q=arrays["W_Q"], W_K=arrays["W_K"], W_V=arrays["W_V"],
        b_Q=biases["b_Q"], b_K=biases["b_K"], b_V=biases["b_V"], identity=identity,
    )


def check_head_shape(node: Node, array: Array, expected: tuple[int, ...], names: str,
                     index: int | None) -> None:
    if index is None:
        check_shape(node, array, expected, names)
    elif array.shape != expected:
        raise SpecError(
            Msg.of("{path} is {found}, expected {names} = {expected} (head {index})",
                   path=node.where.path, found=shape_text(array.shape), names=names,
                   expected=shape_text(expected), index=index),
            node.where,
        )


def split(full: Head, node: Node, convention: Convention) -> tuple[Head, ...]:
    """`heads: h`: head i takes the i-th block of d_k = d/h columns of W_Q, W_K, W_V (rows in
    the column convention) and of the biases, as PyTorch's nn.MultiheadAttention does."""
    h = integer(node, 1)
    total_k, total_v = full.d_k(convention), full.d_v(convention)
    for name, total in (("d_k", total_k), ("d_v", total_v)):
        if total % h != 0:
            fail(node, "cannot split {name} = {total} of the weights into {count} equal heads",
                 name=name, total=total, count=h)
    d_k, d_v = total_k // h, total_v // h
    axis = 1 if convention == "row" else 0
    heads = []
    for i in range(h):
        k_cols, v_cols = (i * d_k, (i + 1) * d_k), (i * d_v, (i + 1) * d_v)

        def part(w: Array, cols: tuple[int, int]) -> Array:
            return np.take(w, range(*cols), axis=axis)  # row: (d_model, d); column: (d, d_model)

        def bias(b: Array | None, cols: tuple[int, int]) -> Array | None:
            return None if b is None else b[cols[0]:cols[1]]  # (d,)

        heads.append(Head(
            W_Q=part(full.W_Q, k_cols), W_K=part(full.W_K, k_cols), W_V=part(full.W_V, v_cols),
            b_Q=bias(full.b_Q, k_cols), b_K=bias(full.b_K, k_cols), b_V=bias(full.b_V, v_cols),
            split=(k_cols, v_cols),
        ))
    return tuple(heads)


def output_projection(given: dict[str, Node], d_model: int, width: int, convention: Convention,
                      files: Files) -> tuple[Array | None, Array | None]:
    """W_O ((h·d_v) x d_model, or d_model x (h·d_v) in the column convention) and b_O."""
    if "W_O" not in given:
        if "b_O" in given:
            fail(given["b_O"], "b_O needs W_O beside it in weights")
        return None, None
    row = convention == "row"
    shape = (width, d_model) if row else (d_model, width)
    W_O = matrix_at(given["W_O"], "W_O", files, shape)
    check_shape(given["W_O"], W_O, shape, "h·d_v x d_model" if row else "d_model x h·d_v")
    b_O = None
    if "b_O" in given:
        b_O = vector_at(given["b_O"], files, d_model)
        check_shape(given["b_O"], b_O, (d_model,), "d_model")
    return W_O, b_O


def score_spec(node: Node, files: Files, d_k: int) -> tuple[str, Score]:
    if isinstance(node.value, dict):
        general = check_keys(node, SCORE_KEYS)
        if "general" not in general:
            fail(node, "expected scaled_dot, dot or {{general: W}}, found an empty mapping")
        w = matrix_at(general["general"], "general", files, (d_k, d_k))
        check_shape(general["general"], w, (d_k, d_k), "d_k x d_k")
        return "general", Score("general", w)
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


def masks(node: Node, n: int, m: int, files: Files | None = None) -> tuple[Mask, ...]:
    """One mask, or a list of masks that all have to allow a key for it to be visible.

    n queries and m keys; with cross-attention the keys are the context tokens."""
    if isinstance(node.value, list) and node.value and not is_matrix(node):
        return tuple(mask for child in node.value for mask in masks(child, n, m, files))
    if node.value == "none":
        return ()
    return (one_mask(node, n, m, files),)


def is_matrix(node: Node) -> bool:
    return all(
        row.numbers is not None or (
            isinstance(row.value, list) and all(not isinstance(c.value, (list, dict, str))
                                                for c in row.value))
        for row in node.value
    )


def one_mask(node: Node, n: int, m: int, files: Files | None = None) -> Mask:
    expected = Msg.of("none, causal, {{window: w}}, {{padding: [...]}} or a 0/1 matrix")
    if files is not None and isinstance(node.value, dict) and "file" in node.value:
        return matrix_mask(node, file_values(node, files, 2), n, m)
    if isinstance(node.value, str):
        if node.value == "causal":
            if n != m:
                fail(node, "a causal mask needs as many queries as keys, found {n} x {m}",
                     n=n, m=m)
            return CausalMask()
        expect(node, expected)
    if isinstance(node.value, list):
        return matrix_mask(node, matrix(node, "mask"), n, m)
    if not isinstance(node.value, dict):
        expect(node, expected)
    keys = check_keys(node, MASK_KEYS)
    if "padding" in keys:
        if len(keys) > 1:
            fail(node, "expected padding alone, found other keys beside it")
        keep = tuple(visible_flag(flag) for flag in items(
            keys["padding"], Msg.of("a list of true/false or 1/0")))
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


def matrix_mask(node: Node, visible: Array, n: int, m: int) -> MatrixMask:
    check_shape(node, visible, (n, m), Msg.of("queries x keys"))
    if not np.isin(visible, (0.0, 1.0)).all():
        fail(node, "expected only 1 (visible) and 0 (hidden) in a mask matrix")
    return MatrixMask(visible.astype(bool))


def block_spec(node: Node, d_model: int, convention: Convention, files: Files) -> Block:
    """block: {residual, layer_norm, ffn, norm: post|pre}: the rest of the layer."""
    keys = check_keys(node, BLOCK_KEYS)
    residual = optional(keys, "residual", boolean, True)
    norms = optional(keys, "layer_norm", lambda n: layer_norms(n, d_model, files), None)
    ffn = optional(keys, "ffn", lambda n: feed_forward(n, d_model, convention, files), None)
    norm = optional(keys, "norm", lambda n: choice(n, ("post", "pre")), "post")
    if not residual and norms is None and ffn is None:
        fail(node, "expected at least one of residual: true, layer_norm and ffn")
    return Block(residual, norms, ffn, "pre" if norm == "pre" else "post")


def layer_norms(node: Node, d_model: int, files: Files) -> tuple[LayerNorm, LayerNorm] | None:
    """true, one {gain, bias, eps} for both LayerNorms, or a list of two (first, second)."""
    if isinstance(node.value, bool):
        return (LayerNorm(), LayerNorm()) if node.value else None
    if isinstance(node.value, list):
        entries = items(node, Msg.of("a list of two LayerNorms"))
        if len(entries) != 2:
            fail(node, "expected one LayerNorm for both places or a list of two, found {found}",
                 found=len(entries))
        return layer_norm(entries[0], d_model, files), layer_norm(entries[1], d_model, files)
    one = layer_norm(node, d_model, files)
    return one, one


def layer_norm(node: Node, d_model: int, files: Files) -> LayerNorm:
    keys = check_keys(node, ("gain", "bias", "eps"))
    found: dict[str, Array | None] = {}
    for key in ("gain", "bias"):
        found[key] = None
        if key in keys:
            found[key] = vector_at(keys[key], files, d_model)
            check_shape(keys[key], found[key], (d_model,), "d_model")  # type: ignore[arg-type]
    eps = optional(keys, "eps", number, 1e-5)
    if eps <= 0:
        fail(keys["eps"], "expected a positive eps, found {value}", value=eps)
    return LayerNorm(found["gain"], found["bias"], eps)


def feed_forward(node: Node, d_model: int, convention: Convention, files: Files) -> FeedForward:
    """ffn: {W_1, b_1, W_2, b_2, activation: relu|gelu}, shapes checked against d_model."""
    keys = check_keys(node, FFN_KEYS)
    for key in ("W_1", "W_2"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    row = convention == "row"

    def shape(rows: int | None, columns: int | None) -> Dims:
        return (rows, columns) if row else (columns, rows)

    W_1 = matrix_at(keys["W_1"], "W_1", files, shape(d_model, None))
    d_ff = int(W_1.shape[1 if row else 0])
    names = ("d_model x d_ff", "d_ff x d_model") if row else ("d_ff x d_model", "d_model x d_ff")
    check_shape(keys["W_1"], W_1, shape(d_model, d_ff), names[0])  # type: ignore[arg-type]
    W_2 = matrix_at(keys["W_2"], "W_2", files, shape(d_ff, d_model))
    check_shape(keys["W_2"], W_2, shape(d_ff, d_model), names[1])  # type: ignore[arg-type]
    biases: dict[str, Array | None] = {}
    for key, dim, dim_name in (("b_1", d_ff, "d_ff"), ("b_2", d_model, "d_model")):
        biases[key] = None
        if key in keys:
            bias = vector_at(keys[key], files, dim)
            check_shape(keys[key], bias, (dim,), dim_name)
            biases[key] = bias
    activation = optional(keys, "activation", lambda n: choice(n, ("relu", "gelu")), "relu")
    return FeedForward(W_1, W_2, biases["b_1"], biases["b_2"],
                       "gelu" if activation == "gelu" else "relu")


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

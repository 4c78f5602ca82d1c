"""attn for NumPy and PyTorch users: a walkthrough from arrays, without a spec file.

    import attncli
    w = attncli.walkthrough_of(tokens=["cat", "chases", "mouse"], X=E, W_Q=W_Q, W_K=W_K,
                               W_V=W_V, mask="causal", lang="pl", precision=3)
    w            # in a notebook: every step, its formula and its matrices, typeset
    w["A"]       # the attention weights as a NumPy array (head 2's: w["A:2"])

The keywords are the keys of a spec file (docs/jupyter.md), with the papers' names for the
matrices: `X` for the embeddings, `W_Q` ... `b_O` for the weights. The display options are the
spec's `display` keys. A wrong value raises the SpecError a spec file would (naming the keyword,
what was expected and what was found), in the language asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from attncli.errors import AttnError, Location, UsageError
from attncli.i18n import DEFAULT_LANG, Msg, first_known, renamed
from attncli.spec import arguments
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import parse_languages

if TYPE_CHECKING:  # NumPy-backed: imported on the first call, so that `import attncli` is light
    from attncli.arithmetic.selection import Selection
    from attncli.model import Walkthrough
    from attncli.spec.model import Spec
    from attncli.spec.node import Node

SOURCE = "walkthrough_of"
P = ParamSpec("P")
R = TypeVar("R")
# What a refusal names: the command line's option -> the keyword of a library call
KEYWORDS = {"--max-cells": "max_cells", "--expand": "expand"}


def keyword_named(function: Callable[P, R]) -> Callable[P, R]:
    """`function` as the library offers it: a refusal that names the command line's
    `--max-cells` (or `--expand`) names the keyword `max_cells` (`expand`) the caller passes
    instead."""
    @wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except AttnError as error:
            error.message = renamed(error.message, KEYWORDS)
            raise

    return call


@keyword_named
def load_spec(path: str | os.PathLike[str], allow_outside: bool = False,
              max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec in the file at `path` (a str or a path object such as pathlib.Path; the text
    `-` is standard input, `Path("-")` the file named -); SpecError if it is malformed.

    Files the spec names are read from its folder or below it, unless `allow_outside`. The spec
    and what it computes are limited to `max_cells` numbers (see attncli.spec.limits).
    A wrong argument (`load_spec(3)`, `max_cells=None`) is a UsageError naming it."""
    from attncli.spec.loading import load_spec as load

    return load(path, arguments.flag(allow_outside, "load_spec", "allow_outside"), max_cells)


@keyword_named
def loads_spec(text: str, name: str | os.PathLike[str] = "<string>", allow_outside: bool = False,
               max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec written in `text` (YAML or JSON); files it names are read from `name`'s folder
    (a str or a path object; the current folder for `<string>`)."""
    from attncli.spec.loading import loads_spec as loads

    return loads(text, name, arguments.flag(allow_outside, "loads_spec", "allow_outside"),
                 max_cells)


@keyword_named
def walkthrough_of(*, tokens: Sequence[str], X: Any = None,
                   W_Q: Any = None, W_K: Any = None, W_V: Any = None, W_O: Any = None,
                   b_Q: Any = None, b_K: Any = None, b_V: Any = None, b_O: Any = None,
                   heads: int | Sequence[Any] | None = None, mask: Any = None,
                   lang: str = DEFAULT_LANG, precision: int | None = None,
                   decimal: str | None = None, steps: Sequence[str] | str | None = None,
                   expand: Sequence[str] | str | None = None, head: int | str | None = None,
                   round_intermediates: bool | None = None, reading: bool | None = None,
                   max_cells: int = DEFAULT_MAX_CELLS, **spec: Any) -> Walkthrough:
    """Every step of attention on these arrays, as `attn explain` works out a spec file.

    tokens:  the token strings, one per row of X.
    X:       the embeddings (n, d_model): a NumPy array, a list of rows, or anything with
             `__array__` (a PyTorch tensor, requires_grad or not; a JAX array).
    W_Q, W_K, W_V, W_O, b_Q ...: the weights, (d_model, d_k) in the row convention
             (Q = X·W_Q); `"identity"` for an identity; a PyTorch nn.Linear's `.weight` is
             (d_k, d_model): pass `convention="column"` or `.weight.T`.
    heads:   h splits the weights into h heads of d_k/h columns, as nn.MultiheadAttention does.
    mask:    "causal", "none", or a 0/1 matrix (1 = may attend).
    lang:    the language it shows itself in: "en", "pl", "ru" (or several: "pl,en").
    precision, decimal ("dot"/"comma"), steps (step ids), expand (cells to write out),
    head, round_intermediates, reading: the spec's display keys.
    **spec:  any other key of a spec file, as it is written there (scale, convention,
             positional, context, block, bias, kv_heads, score, masked_rows, title ...).

    Every matrix of the walkthrough is held whole (`w["A"]`), so it is bounded as a document
    that shows every number is: one of more than a twentieth of `max_cells` numbers (500,000 by
    default: one head of about 300 tokens) is refused before it is built.

    Raises SpecError (bad values) or UsageError (bad options), both AttnError.
    """
    try:
        langs = ",".join(parse_languages(arguments.language_codes(lang, SOURCE)))
        max_cells = arguments.cell_limit(max_cells, SOURCE)
        weights = {"W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O, "b_Q": b_Q, "b_K": b_K,
                   "b_V": b_V, "b_O": b_O}
        display = {"precision": precision, "decimal": decimal, "steps": steps,
                   "expand": expand, "head": head, "round_intermediates": round_intermediates,
                   "reading": reading}
        built = built_for(SOURCE, _spec(tokens, X, weights, heads, mask, display, spec,
                                        max_cells), max_cells=max_cells)
    except AttnError as error:
        raise error.in_language(first_known(lang if isinstance(lang, str) else None)) from None
    return replace(built, lang=langs)


@keyword_named
def build(spec: Spec, expand: Selection | Sequence[str] | str | None = None,
          summary: bool = False, max_cells: int = DEFAULT_MAX_CELLS) -> Walkthrough:
    """Every step of attention on a loaded spec (`attncli.load_spec`), as `attn explain` works it
    out; the walkthrough shows itself in a notebook (attncli/render/notebook.py).

    Built whole, it holds every number of every matrix, and is refused past the bound of
    `attn explain --full` under `max_cells` (attncli/steps/budget.py); with `summary`, a large
    n x m matrix keeps only the rows a view eliding its middle shows, as `attn explain` builds
    for text, and is bounded by the spec's limits alone. `expand` is the cells to write out, as
    walkthrough_of and a spec's display.expand take them (`"all"`, `["weights:chases"]`)."""
    max_cells = arguments.cell_limit(max_cells, "build")  # the cells `expand` may name too
    return built_for("build", spec, _selection(expand, max_cells),
                     arguments.flag(summary, "build", "summary"), max_cells)


def _selection(expand: Selection | Sequence[str] | str | None, max_cells: int) -> Selection | None:
    from attncli.arithmetic.selection import Selection

    if expand is None or isinstance(expand, Selection):
        return expand
    return Selection.parse(arguments.cells(expand, "build", max_cells))


def built_for(function: str, spec: Spec, expand: Selection | None = None,
              summary: bool = False, max_cells: int = DEFAULT_MAX_CELLS) -> Walkthrough:
    """`build`, for the library function `function`, which its errors name."""
    import attncli.render.notebook  # noqa: F401  (installs the notebook view in the model)
    from attncli.spec.model import Spec
    from attncli.steps.budget import check_whole
    from attncli.steps.build import build as build_steps

    if not isinstance(spec, Spec):
        raise arguments.refused(function, "spec", Msg.of("a Spec (from attncli.load_spec or "
                                                         "attncli.spec_of)"), spec)
    max_cells = arguments.cell_limit(max_cells, function)
    if not summary:
        check_whole(spec, max_cells, function)
    return build_steps(spec, expand, summary)


@keyword_named
def spec_of(*, max_cells: int = DEFAULT_MAX_CELLS, **keys: Any) -> Spec:
    """The validated Spec of these keys, as a spec file's top level writes them (`tokens`,
    `embeddings`, `weights` ...), with arrays in place of written-out matrices; for
    `attncli.build(spec, ...)` and the other library functions that take a Spec."""
    from attncli.spec.objects import spec_from

    return spec_from(keys, "spec_of", arguments.cell_limit(max_cells, "spec_of"))


def _spec(tokens: Sequence[str], X: Any, weights: dict[str, Any], heads: Any, mask: Any,
          display: dict[str, Any], spec: dict[str, Any], max_cells: int) -> Spec:
    """The spec of walkthrough_of's arguments; each value is named in errors by its keyword
    (`X`, `W_Q`, `precision`), or by its key path inside a mapping given whole."""
    from attncli.spec.objects import Written, load_tree, tree

    if X is not None and spec.get("embeddings") is not None:
        raise UsageError(Msg.of("give X or embeddings, not both"))
    written = Written(max_cells)  # every argument's values, counted together
    top = {key: tree(value, SOURCE, key, max_cells, written=written)
           for key, value in spec.items() if value is not None}
    for key, name, value in (("tokens", "tokens", tokens), ("embeddings", "X", X),
                             ("heads", "heads", heads), ("mask", "mask", mask)):
        if value is not None:
            top[key] = tree(value, SOURCE, name, max_cells, written=written)
    for section, given in (("weights", weights), ("display", display)):
        named = {key: tree(value, SOURCE, key, max_cells, written=written)
                 for key, value in given.items() if value is not None}
        if named:
            top[section] = merged(top.get(section), named, section)
    return load_tree(top, SOURCE, written)


def merged(written: Node | None, named: dict[str, Node], section: str) -> Node:
    """The `weights` (or `display`) mapping: the keywords' entries over a mapping given whole
    (one that is not a mapping is left for the spec's check to refuse)."""
    from attncli.spec.node import Node

    if written is not None and not isinstance(written.value, dict):
        return written
    entries = {} if written is None else dict(written.value)
    return Node({**entries, **named}, Location(SOURCE, section))

"""build(spec) -> Walkthrough: the families of steps a spec turns on, run in order, each reading
the labelled matrices the ones before it made (attncli/steps/base.py).

A new variant of attention is one module in attncli/steps and one line in a registry below."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from attncli.arithmetic import elision
from attncli.arithmetic.expand import Chosen, Selection, attach
from attncli.arithmetic.handcalc import Arithmetic, drift
from attncli.arithmetic.reading import read
from attncli.arithmetic.selection import TokenLabels
from attncli.model import HeadResult, Step, Walkthrough
from attncli.spec.model import Spec
from attncli.spec.view import STEP_IDS
from attncli.steps import narrow, row_blocks, scores
from attncli.steps.base import Build, Family, HeadState, Made, S, State
from attncli.steps.header import header
from attncli.steps.labels import token_labels
from attncli.steps.name_charge import check_chosen


# Whether a spec turns a family on (each family's module is imported only then: Family.run)
def rotary(spec: Spec) -> bool:
    return spec.rotary and spec.latent is None  # the latent turns its own RoPE part


def scales(spec: Spec) -> bool:
    return spec.scale.kind != "none"


def latent(spec: Spec) -> bool:
    return spec.latent is not None


def projects(spec: Spec) -> bool:
    return spec.latent is None


def qk_normed(spec: Spec) -> bool:
    return spec.qk_norm is not None


def caps(spec: Spec) -> bool:
    return spec.softcap is not None


def has_sinks(spec: Spec) -> bool:
    return spec.sinks is not None


def plain_softmax(spec: Spec) -> bool:
    return spec.sinks is None


def has_bias(spec: Spec) -> bool:
    return spec.bias is not None


def has_masks(spec: Spec) -> bool:
    return bool(spec.masks)


def tiles_on(spec: Spec) -> bool:
    return spec.tiling is not None


def decodes(spec: Spec) -> bool:
    return spec.decode is not None


def has_context(spec: Spec) -> bool:
    return spec.context is not None


def is_pre_norm(spec: Spec) -> bool:
    block = spec.block
    return block is not None and block.norm == "pre" and block.norms is not None


def has_block(spec: Spec) -> bool:
    return spec.block is not None


def has_backward(spec: Spec) -> bool:
    return spec.backward is not None


def has_image(spec: Spec) -> bool:
    return spec.vision is not None


def classifies(spec: Spec) -> bool:
    return spec.vision is not None and spec.vision.classifier is not None


# The steps of one head, in order.
HEAD: tuple[Family[HeadState], ...] = (
    Family("projections", "projections.projections", projects),
    Family("latent_heads", "latent_heads.heads", latent),
    Family("qk_norm", "qk_norm.normed", qk_normed),
    Family("rope", "rope.rope", rotary),
    Family("scores", "scores.scores"),
    Family("absorbed", "latent_heads.absorbed", latent, joined="latent_heads.absorbed_joined"),
    Family("scaled", "scores.scaled", scales),
    Family("softcap", "softcap.capped", caps, joined="softcap.bent_joined"),
    Family("bias", "biases.biased", has_bias),
    Family("masked", "masks.masked", has_masks),
    Family("weights", "softmax.weights", plain_softmax),
    Family("sinks", "sinks.sink_weights", has_sinks, joined="sinks.read_joined"),
    Family("output", "heads.output"),
    Family("tiles", "tiling.tiled", tiles_on),
    Family("decode", "decode.prefill", decodes, ids=("prefill", "decode"), blank="decode.blank"),
)

def attend(b: Build, state: State) -> Made[State]:
    """Every head, each through the HEAD families on the inputs the layer gives it."""
    spec = b.spec
    assert state.x_in is not None
    keys_from = state.context if state.context is not None else state.x_in
    steps: list[Step] = []
    results = []
    for i, head in enumerate(spec.heads):
        hs = HeadState(i + 1 if len(spec.heads) > 1 else None, head, state.x_in, keys_from,
                       state.pre_normed, state.latent)
        hs = run_head(b, hs, steps)
        assert hs.Q and hs.K and hs.V and hs.scores and hs.A and hs.Z
        results.append(HeadResult(hs.index or 1, hs.Q, hs.K, hs.V, hs.scores, hs.A, hs.Z,
                                  scores.divisor(b, head), hs.x, hs.xk))
    return tuple(steps), replace(state, heads=tuple(results))


# The steps of the layer, in order.
LAYER: tuple[Family[State], ...] = (
    Family("image", "patches.image", has_image),
    Family("embeddings", "positions.embeddings"),
    Family("context", "positions.context", has_context),
    Family("pre_norm", "block.pre_norm", is_pre_norm),
    Family("latent", "latent.latent", latent),
    Family("heads", "build.attend"),
    Family("combine", "heads.combine"),
    Family("block", "block.layer", has_block),
    Family("classifier", "patches.classify", classifies),
    Family("kv_cache", "decode.cache_sizes", decodes),
    Family("backward", "backward.backward", has_backward),
)
# The same, with the backward pass's steps named only: no gradient worked (see `outline`)
OUTLINE = (*LAYER[:-1], Family("backward", "backward_names.outline", has_backward))

def run_head(b: Build, hs: HeadState, steps: list[Step]) -> HeadState:
    """The HEAD families on one head; a summary's n x m ones in blocks of query rows when they
    all allow it (attncli/steps/row_blocks.py)."""
    families = tuple(family for family in HEAD if family.applies(b.spec))
    after = len(families)  # the families that read no n x m array run after the blocks
    while after and families[after - 1].name in row_blocks.AFTER:
        after -= 1
    families, tail = families[:after], families[after:]
    start = row_blocks.chain(b, families)
    if start is None:
        return run(b, hs, families + tail, steps)
    hs = run(b, hs, families[:start], steps)
    made = row_blocks.blocks(b, hs, families[start:])
    if made is None:
        return run(b, hs, families[start:] + tail, steps)
    steps.extend(made[0])
    return run(b, made[1], tail, steps)


def run(b: Build, state: S, families: tuple[Family[S], ...],
        steps: list[Step]) -> S:
    """The families the spec turns on, in order; their steps appended to `steps`."""
    for family in families:
        if family.applies(b.spec):
            made, state = family.run(b, state)
            steps.extend(made)
    return state


def build(spec: Spec, expand: Selection | None = None, summary: bool = False,
          unread: frozenset[str] = frozenset(), every_decode: bool = False) -> Walkthrough:
    """Every step of attention on `spec`, in order, each result labelled with the tokens, with the
    work shown: the cells chosen by `expand` written out (default: `auto`), a reading of the
    weights in words, and, in hand calculation, where it drifts from full precision.

    With `summary`, a large n x m matrix keeps only the rows that a view eliding its middle shows
    (text, rich, svg) and the rows written out, and the reading reads those queries: the memory of
    a real-size layer stays that of a few of its n x m matrices (see
    attncli/arithmetic/elision.py), and of many decode steps only the first and last few are
    worked, unless `every_decode` (a decode step's matrix asked for by name).

    `unread`: the ids of steps no one will read (`attn validate` reads none), besides those the
    display's `steps` leaves out; a family that only adds such steps makes them blank."""
    selection = expand or narrow.selection(spec.display)
    kept = kept_rows(spec, selection) if summary else None
    few = summary and not every_decode
    unread = unread | narrow.unread(spec.display)
    charge = None
    if selection.mode == "shown":  # charged before any is written out, as -x all is: the
        # cells of the steps and the head the display keeps
        keeps = narrow.keeps(spec.display)

        def charge(chosen: Iterable[Chosen]) -> None:
            check_chosen(spec, (work for work in chosen if keeps(work[1])),
                         selection.max_cells, selection.terms_shown)
    walkthrough, angles = attach(compute(spec, kept, unread=unread, few_decodes=few), spec,
                                 selection, charge)
    walkthrough = replace(walkthrough, reading=read(walkthrough, angles))
    if spec.display.round_intermediates:
        full = compute(replace(spec, display=replace(spec.display, round_intermediates=False)),
                       kept, unread=unread, few_decodes=few)
        walkthrough = replace(walkthrough, drift=drift(walkthrough, full))
    return narrow.narrow(walkthrough, spec.display)  # the steps, head and reading it asks for


def outline(spec: Spec, summary: bool = False, every_decode: bool = False) -> Walkthrough:
    """The steps build(spec, summary=summary) shows, except that the backward pass's steps name
    their matrices only and work out no gradient (attncli/steps/backward_names.py), with no
    cell written out and no reading: where `--matrix` finds a matrix, or refuses one, before
    the backward pass is paid for."""
    kept = kept_rows(spec, narrow.selection(spec.display)) if summary else None
    unread = narrow.unread(spec.display)  # as build's: a step left out may be made blank
    return narrow.narrow(compute(spec, kept, unread=unread, families=OUTLINE,
                                 few_decodes=summary and not every_decode), spec.display)


def summarizes(spec: Spec) -> bool:
    """Whether build(spec, summary=True) keeps less than build(spec) does."""
    return kept_rows(spec, Selection()) is not None


def kept_rows(spec: Spec, selection: Selection) -> tuple[int, ...] | None:
    """The query rows a summary keeps: the shown ones and those written out; None for all."""
    if selection.mode == "all" or spec.tiling is not None:  # tiles read every row
        return None
    labels = token_labels(spec.queries.tokens)
    where = {label: i for i, label in enumerate(labels)}
    by_token = TokenLabels(labels)
    chosen = (by_token.label(row) for _, (row, _) in selection.cells)  # a token picks its label
    wanted = {where[row] for row in chosen if row in where}
    return elision.summary_rows(spec.queries.n, spec.keys_source.n, wanted)


def layer(spec: Spec, kept: tuple[int, ...] | None, calc: Arithmetic | None,
          unread: frozenset[str] = frozenset(),
          families: tuple[Family[State], ...] = LAYER,
          few_decodes: bool = False) -> tuple[Build, list[Step], State]:
    """The LAYER families on `spec`: the build, its steps and the final state."""
    spec = after_earlier(spec)
    b = Build(spec, kept, calc, forward=compute, unread=unread, few_decodes=few_decodes)
    steps: list[Step] = []
    # An overflow becomes inf here and is reported by Build.finite as a SpecError (in float64;
    # in a lower precision, by the precision step).
    with np.errstate(over="ignore", invalid="ignore"):
        state = run(b, State(), families, steps)
    return b, steps, state


def after_earlier(spec: Spec) -> Spec:
    """A layer past the first of a saved model (`model: {layer: L}`) reads what the layers
    before it give back, each computed whole as the walkthrough of its own spec would be."""
    x = None
    for before in spec.earlier:
        if x is not None:
            before = replace(before, queries=replace(before.queries, embeddings=x))
        # no step of an earlier layer is read: its worked examples are not made, and no row of
        # its n x n matrices is kept, so it is worked in blocks of query rows (each kept whole,
        # 4,096 ids of a layer before took 1.1 GB)
        output = layer(before, (), None, unread=frozenset(STEP_IDS))[2].output
        assert output is not None  # an earlier layer has its block
        x = output.values  # (n, d_model)
    if x is None:
        return spec
    return replace(spec, queries=replace(spec.queries, embeddings=x), earlier=())


def compute(spec: Spec, kept: tuple[int, ...] | None = None,
            calc: Arithmetic | None = None, unread: frozenset[str] = frozenset(),
            families: tuple[Family[State], ...] = LAYER, few_decodes: bool = False) -> Walkthrough:
    """The steps alone: every matrix of attention on `spec`, in order; the n x m ones of the
    heads only in the rows `kept`, when given; computed with `calc` when given (attn check's
    slips), else as the spec's display and dtype ask: in a dtype below float64, each step is
    compared with the same step in float64 (attncli/steps/precision.py). With `few_decodes`, a
    summary's: of many decode steps only the first and last few (attncli/steps/decode.py)."""
    if spec.dtype != "float64" and calc is None:
        from attncli.compute.lowprec import (
            rounded_spec,  # imports ml_dtypes: only when it is needed
        )
        from attncli.steps.precision import compared

        b, steps, state = layer(rounded_spec(spec), kept, None, unread, few_decodes=few_decodes)
        full = layer(replace(spec, dtype="float64"), kept, None, unread,
                     few_decodes=few_decodes)[1]
        steps, report = compared(spec.dtype, spec.display.precision, steps, full)
    else:
        b, steps, state = layer(spec, kept, calc, unread, families, few_decodes)
        report = None
    output = state.output if state.output is not None else state.attention
    assert output is not None
    return Walkthrough(
        header=header(b),
        # each step numbered in the whole walkthrough: narrowed, it keeps its number
        steps=tuple(replace(step, number=i) for i, step in enumerate(steps, start=1)),
        steps_in_all=len(steps),
        heads=state.heads,
        output=output,
        precision=spec.display.precision,
        round_intermediates=spec.display.round_intermediates,
        decimal=spec.display.decimal,
        header_shown=spec.display.header,
        md_flavor=spec.display.md_flavor or "github",
        low_precision=report,
    )

"""A live spreadsheet (.xlsx): every matrix a labelled block, every computed cell a formula of
the cells it comes from, so that a student who edits one embedding sees every later step follow.

One sheet for the layer (embeddings, positions, the heads side by side, W_O, the rest of the
block, the gradients), one per head (its forward steps, its KV-cache replay, its gradients), and
one of the cells written out as text. A step that has no formula here (the gradient through a
block's LayerNorm and FFN) holds attn's numbers as values, and says so in a note.

The writer reads the walkthrough (the numbers given, the labels, the words) and the spec (its
constants: the convention, eps, the scale, the activation), and never computes a number itself:
the spreadsheet does. Written with XlsxWriter, which stores no cached results: a spreadsheet
program computes every formula when it opens the file.
"""

from __future__ import annotations

import io
from datetime import datetime, timezone

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.model import Step, Walkthrough
from attncli.records import record
from attncli.render import RenderOptions
from attncli.render.common import formula_text, number_format, step_heading, title, translator
from attncli.render.decimal_marks import marked
from attncli.render.xlsx import backward, decode, head, layer, moe
from attncli.render.xlsx.cells import Context, Writer, as_given
from attncli.render.xlsx.grid import Block, Places, sheet_name
from attncli.render.xlsx.sheets import Sheets
from attncli.render.xlsx.written import written_out
from attncli.spec.model import Spec

# step id -> the writer of its blocks; a step not here holds attn's numbers as values
WRITERS: dict[str, Writer] = {
    "embeddings": layer.embeddings,
    "positional": layer.positional,
    "context": layer.context,
    "norm_1": layer.norm,
    "norm_2": layer.norm,
    "parameters": head.parameters,
    "projections": head.projections,
    "qk_norm": head.qk_norm,
    "rope": head.rope,
    "scores": head.scores,
    "scaled": head.scaled,
    "softcap": head.softcap,
    "bias": head.bias,
    "masked": head.masked,
    "weights": head.weights,
    "sinks": head.sinks,
    "output": head.output,
    "concat": layer.concat,
    "out_projection": layer.out_projection,
    "sandwich_1": layer.sandwich,
    "sandwich_2": layer.sandwich,
    "residual_1": layer.residual,
    "residual_2": layer.residual,
    "ffn": layer.ffn,
    "router": moe.router,
    "expert": moe.expert,
    "moe": moe.weighted,
    "prefill": decode.prefill,
    "decode": decode.decode,
    "grad_output": backward.grad_output,
    "grad_out_projection": backward.grad_out_projection,
    "grad_values": backward.grad_values,
    "grad_softmax": backward.grad_softmax,
    "grad_scores": backward.grad_scores,
    "grad_projections": backward.grad_projections,
    "grad_weights": backward.grad_weights,
    "grad_input": backward.grad_input,
}

# A spreadsheet program slows to a crawl long before Excel's 17 billion cells: at most this
# many cells (numbers, formulas, labels) in one workbook.
MAX_CELLS = 200_000
# Excel's columns (XFD); a step's blocks stand side by side, the softmax's and the FFN's beside
# the ones attn shows (each counted twice again)
MAX_COLUMNS = 16_384
# The creation date written into the file, fixed so that the same spec gives the same bytes.
CREATED = datetime(2000, 1, 1, tzinfo=timezone.utc)


@record
class Workbook:
    """The spreadsheet's bytes and where each block stands (for tests and tools)."""

    data: bytes
    blocks: tuple[Block, ...]


def check_backward(spec: Spec, walkthrough: Walkthrough) -> None:
    """The spreadsheet's backward formulas take dQ and dK straight to dW_Q and dW_K: with rotary
    positions they would have to turn them back by Rᵀ first, so that is refused."""
    if spec.rotary and any(step.id.startswith("grad_") for step in walkthrough.steps):
        raise UsageError(Msg.of("--xlsx writes no backward pass through rotary positions "
                                "(RoPE); leave out backward for the spreadsheet"))


def check_image(spec: Spec) -> None:
    """The image's patches, their projection and the class scores are attn's numbers, not yet
    formulas of the pixels: a spreadsheet of them would not follow a changed pixel."""
    if spec.vision is not None:
        raise UsageError(Msg.of("--xlsx does not write an image's patches and class scores as "
                                "formulas yet; leave out image for the spreadsheet"))


def check_latent(spec: Spec) -> None:
    """The spreadsheet's formulas project Q, K and V from X by W_Q, W_K and W_V: multi-head
    latent attention makes them from the latent, which no sheet writes yet, so it is refused."""
    if spec.latent is not None:
        raise UsageError(Msg.of("--xlsx does not write multi-head latent attention yet; use "
                                "another format for a spec with latent"))


def check_size(spec: Spec, walkthrough: Walkthrough) -> None:
    """Refuse a walkthrough whose spreadsheet would be too large to open, before writing it.
    Each matrix counts twice: the softmax, the mask and the feed-forward add blocks of their
    own beside the ones attn shows. A step wider than Excel's 16,384 columns is refused too."""
    if walkthrough.round_intermediates:
        raise UsageError(Msg.of("--xlsx computes at full precision, as a spreadsheet does; "
                                "turn round_intermediates off for it"))
    if walkthrough.low_precision is not None:
        raise UsageError(Msg.of("--xlsx computes at full precision, as a spreadsheet does; "
                                "remove dtype: {dtype} for it",
                                dtype=walkthrough.low_precision.dtype))
    cells = sum(2 * (m.shape[0] + 1) * (m.shape[1] + 1)
                for step in walkthrough.steps for m in step.matrices)
    widest = max((sum(2 * (m.shape[1] + 2) for m in step.matrices)
                  for step in walkthrough.steps), default=0)
    if widest > MAX_COLUMNS:
        raise UsageError(Msg.of("a step of the spreadsheet needs more columns than Excel has "
                                "(about {needed}, at most {limit}); choose a smaller example",
                                needed=Count(widest), limit=Count(MAX_COLUMNS)))
    if cells > MAX_CELLS:
        raise UsageError(Msg.of("the spreadsheet would be too large to open at ease (cells: "
                                "about {needed}, at most {limit}); choose a smaller example",
                                needed=Count(cells), limit=Count(MAX_CELLS)))


def workbook(spec: Spec, walkthrough: Walkthrough, options: RenderOptions) -> Workbook:
    """The walkthrough of `spec` (built with every step and head) as an .xlsx file."""
    check_latent(spec)
    check_size(spec, walkthrough)
    check_backward(spec, walkthrough)
    check_image(spec)
    number = number_format(walkthrough, options)
    walkthrough = marked(walkthrough, options.decimal or walkthrough.decimal)
    t = translator(options, number)
    out = io.BytesIO()
    sheets = Sheets(out, number.precision, CREATED)
    taken: set[str] = set()
    layer_sheet = sheet_name(t(Msg.of("Layer")), taken)
    several = walkthrough.header.n_heads > 1
    head_sheets = {
        h: sheet_name(t(Msg.of("Head {index}", index=h)) if several else t(Msg.of("Head")),
                      taken)
        for h in range(1, walkthrough.header.n_heads + 1)}
    sheets.add(layer_sheet)
    sheets.heading(layer_sheet, title(walkthrough.header, options.lang, t))
    sheets.note(layer_sheet, t(Msg.of(
        "Yellow cells are the numbers attn was given: change one, and every cell computed "
        "from it follows. Every other number is a formula of the cells before it.")))
    if spec.masks:
        sheets.note(layer_sheet, t(Msg.of(
            "A mask M holds 0 where a query sees a key and −∞ where it does not: type any text "
            "into a cell of M to hide that key, or 0 to show it.")))
    for name in head_sheets.values():
        sheets.add(name)
    ctx = Context(spec, Places(), t, heads=walkthrough.header.n_heads)
    for index, step in enumerate(walkthrough.steps):
        ctx.sheet = head_sheets[step.head or 1] if is_head_step(step) else layer_sheet
        place(ctx, sheets, index, step)
    written_out(sheets, sheet_name(t(Msg.of("Cells written out")), taken), walkthrough, number, t)
    sheets.close()
    return Workbook(out.getvalue(), tuple(ctx.places.blocks))


HEAD_STEPS = frozenset({"parameters", "projections", "qk_norm", "rope", "scores", "scaled",
                        "softcap", "bias", "masked", "weights", "sinks", "output", "prefill",
                        "decode", "grad_values", "grad_softmax", "grad_scores", "grad_projections",
                        "grad_weights"})
# What the backward pass reads of each head, kept as `key@head` when the head's step is placed:
# the latest of a key is another head's by the time the gradients are written.
PER_HEAD = ("A", "q_rows", "k_rows", "v_rows", "x_in", "keys_from", "W_Q", "W_K", "W_V",
            "dQ", "dK", "dV")


def is_head_step(step: Step) -> bool:
    return step.id in HEAD_STEPS


def place(ctx: Context, sheets: Sheets, index: int, step: Step) -> None:
    """One step: its heading and notes, then its blocks side by side, placed, then filled."""
    t = ctx.t
    writer = WRITERS.get(step.id)
    notes = [t(note) for note in step.notes]
    pieces = writer(ctx, step) if writer is not None else None
    if pieces is None:
        pieces = as_given(ctx, step)
        notes.append(t(Msg.of("The spreadsheet holds attn's numbers of this step as values, "
                              "not formulas: they do not follow an edit.")))
    heading = step_heading(step.number, step, t)
    if step.formula is not None:
        heading += ":  " + formula_text(step.formula, t)
    sheets.heading(ctx.sheet, heading)
    for note in notes:
        sheets.note(ctx.sheet, note)
    blocks = sheets.place(ctx.sheet, pieces, index)
    for piece, block in zip(pieces, blocks, strict=True):
        ctx.places.add((piece.key, *piece.also), block)
    for piece, block in zip(pieces, blocks, strict=True):
        sheets.fill(block, piece)
    if is_head_step(step):
        # a forward step: what the head reads so far, shared K and V included; a gradient step
        # (after every head's forward steps): only what it made
        own = {key for piece in pieces for key in (piece.key, *piece.also)}
        for key in PER_HEAD:
            latest = ctx.places.get(key)
            if latest is not None and (not step.id.startswith("grad_") or key in own):
                ctx.places.latest[f"{key}@{step.head or 1}"] = latest

"""What a command asks to see, as plain data: light enough for the commands to build before
NumPy is imported. attncli.steps.show.prepare and attncli.spec.inline.inline_spec read them."""

from __future__ import annotations

from dataclasses import field

from attncli.errors import Location, UsageError
from attncli.i18n import LANGUAGES, Msg, comma_parts, language_code, suggesting
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS

# every step id a walkthrough may have, in the order they come (attncli/steps/build.py)
STEP_IDS = ("image", "patches", "patch_embedding", "embeddings", "positional", "context",
            "context_positional", "latent", "latent_rope", "query_latent", "latent_cache",
            "parameters", "projections", "latent_q", "latent_kv", "qk_norm", "rope", "scores",
            "absorbed", "scaled", "softcap", "bias", "masked",
            "weights", "sinks", "output", "tile", "tiled_output", "prefill", "decode", "concat",
            "out_projection", "sandwich_1", "residual_1", "norm_1", "ffn", "router", "expert",
            "moe", "sandwich_2", "residual_2", "norm_2", "classifier_norm", "class_scores",
            "kv_cache",
            "precision",
            # the backward pass (docs/backward.md), in the order it runs
            "grad_block", "grad_output", "grad_out_projection", "grad_values", "grad_softmax",
            "grad_scores", "grad_projections", "grad_rope", "grad_weights", "grad_shared",
            "grad_input")
# The steps whose cells --expand STEP:ROW[,COLUMN] writes out: one line per cell, or a row at once
CELL_STEPS = ("projections", "qk_norm", "scores", "scaled", "softcap", "sinks",
              "out_projection", "patch_embedding", "class_scores")
ROW_STEPS = ("weights", "output", "tile", "tiled_output")
EXPANDABLE = CELL_STEPS + ROW_STEPS
MD_FLAVORS = ("github", "katex", "plain")
ALL = "all"  # --steps all, --head all: undo a spec's display choice


@record
class View:
    """What to show; None keeps the spec's own choice (or shows everything)."""

    precision: int | None = None
    round_intermediates: bool | None = None
    expand: tuple[str, ...] = field(default=())  # --expand values, see attncli.arithmetic.expand
    steps: str | None = None  # step ids separated by commas: "scores,weights,output", or "all"
    head: str | None = None  # 1-based, or "all"
    reading: bool | None = None  # the weights in words (shown only with their step)
    header: bool | None = None  # the title and the facts about the example
    md_flavor: str | None = None  # markdown: github, katex or plain
    matrix: str | None = None  # one matrix alone, by its symbol: "A", "A:2" for head 2
    # for a format that elides the middle of large matrices (text, rich, svg) without --full:
    # build keeps only the rows it shows (attncli.steps.build.build, `summary`)
    summary: bool = False
    # where each choice was written (a snippets manifest entry's key), for errors; a choice
    # typed as an option has none
    where: dict[str, Location] = field(default_factory=dict, compare=False)
    backward: bool = False  # --backward: add the gradient steps (dO all ones) if the spec has none
    # False: no step is read (`attn validate` checks the spec and writes nothing), so the steps
    # that only add steps are made blank (attncli/steps/base.py Family)
    read: bool = True
    # `--expand shown` for a page that keeps, of a row written out at once (a softmax), only the
    # lines of its shown cells: the row's other terms are not written (attncli.arithmetic.selection)
    terms_shown: bool = False


@record
class Loading:
    """How spec files are read: the keyword arguments of attncli.spec.load_spec."""

    allow_outside: bool = False
    max_cells: int = DEFAULT_MAX_CELLS


@record
class Inline:
    """A spec typed as options (calculator form); None where an option was not given."""

    tokens: str | None = None
    embeddings: str | None = None
    mask: str | None = None
    W_Q: str | None = None
    W_K: str | None = None
    W_V: str | None = None
    scale: str | None = None

    def given(self) -> bool:
        return any(value is not None for value in vars(self).values())


def parse_languages(text: str, source: str = "lang",
                    where: Location | None = None) -> tuple[str, ...]:
    """The languages of a comma list, in order; UsageError names `source` (--lang, ATTN_LANG).
    The parts are read one at a time and the first bad one refused: attn speaks three
    languages, so a fourth part is unknown or given twice, and "pl,pl,…" two million times is
    refused at its second part (joined and split whole, it took 2 s and 330 MB)."""
    codes: list[str] = []
    for part in comma_parts(text):
        codes.append(checked_language(part, codes, source, text, where))
    return tuple(codes)


def checked_language(part: str, before: list[str], source: str, text: str,
                     where: Location | None = None) -> str:
    """The language `part` of the comma list `text` names, one not in `before`; UsageError."""
    code = language_code(part)
    if not code:
        raise UsageError(Msg.of("{source}: expected a language code, found an empty one in "
                                '"{text}"', source=source, text=text), where)
    if code not in LANGUAGES:
        raise UsageError(suggesting(Msg.of(
            "{source}: unknown language {code}; expected one of {known}", source=source,
            code=code, known=", ".join(LANGUAGES)), code, LANGUAGES), where)
    if code in before:
        raise UsageError(Msg.of("{source}: the language {code} is given twice",
                                source=source, code=code), where)
    return code

"""attn check: a student's matrices against the right ones, with the slips that explain them.

    from attncli.check import check_answers
    verdicts = check_answers(load_spec("spec.yaml"), [from_text("1 0; 0.35 0.65", "weights",
                                                                Location("--answer"))])

compare.py judges one answer, slips.py is the catalogue of known slips (altered.py the
arithmetic some of them need), report.py writes the verdicts in the reader's language.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from attncli.check.answer import Answer, from_file, from_text, is_file
from attncli.check.compare import Verdict, check, check_all
from attncli.check.report import report, summary
from attncli.errors import Location, UsageError
from attncli.i18n import Msg
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_answer
from attncli.spec.model import Spec
from attncli.steps.budget import check_hand


def answers_of(answer: str, step: str | None,
               max_cells: int = DEFAULT_MAX_CELLS) -> tuple[Answer, ...]:
    """The answers --answer gives: a matrix typed in (for --step), or a file's (those of --step,
    when given), a file of at most max_answer(max_cells) numbers (spec/limits.py)."""
    if is_file(answer):
        found = tuple(a for a in from_file(answer, max_answer(max_cells))
                      if step is None or a.step == step)
        if not found:
            raise UsageError(Msg.of("--step: the answer file has no {step}", step=step or ""))
        return found
    if step is None:
        raise UsageError(Msg.of("--step is needed with a matrix typed in --answer"))
    return (from_text(answer, step, Location("--answer")),)


def check_answers(spec: Spec, answers: Iterable[Answer], head: int | None = None,
                  round_intermediates: bool | None = None,
                  max_cells: int = DEFAULT_MAX_CELLS) -> list[Verdict]:
    """The verdict on each answer, in order; `round_intermediates` overrides the spec's. Hand
    calculation is held to the weights `attn explain` works by hand (steps/budget.py)."""
    if round_intermediates is not None:
        spec = replace(spec, display=replace(spec.display,
                                             round_intermediates=round_intermediates))
    check_hand(spec, max_cells)
    return check_all(spec, tuple(answers), head, max_cells)


__all__ = ["Answer", "Verdict", "answers_of", "check", "check_answers", "from_file", "from_text",
           "is_file", "report", "summary"]

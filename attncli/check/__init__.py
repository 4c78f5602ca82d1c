"""attn check: a student's matrices against the right ones, with the slips that explain them.

    from attncli.check import check_answers
    verdicts = check_answers(load_spec("spec.yaml"), [from_text("1 0; 0.35 0.65", "weights",
                                                                Location("--answer"))])

compare.py judges one answer, slips.py is the catalogue of known slips (altered.py the
arithmetic some of them need), report.py writes the verdicts in the reader's language.
"""

from __future__ import annotations

from collections.abc import Iterable

from attncli.check.answer import Answer, from_file, from_text, is_file
from attncli.check.compare import Verdict, check
from attncli.check.report import report, summary
from attncli.spec.model import Spec


def check_answers(spec: Spec, answers: Iterable[Answer], head: int | None = None) -> list[Verdict]:
    """The verdict on each answer, in order."""
    return [check(spec, answer, head) for answer in answers]


__all__ = ["Answer", "Verdict", "check", "check_answers", "from_file", "from_text", "is_file",
           "report", "summary"]

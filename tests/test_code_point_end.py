"""A character LaTeX cannot typeset is written as its code point, `U+E000`; a digit or a letter
A to F after it read as more of it (`U+E0007`, one code point, where the token was U+E000 and
7). A thin space now ends it, in pdflatex (`\\,`) and in KaTeX and MathJax (`$\\,$` inside
\\text, where they take no spacing command); before any other character none is needed."""

from __future__ import annotations

import pytest

from attncli.model.latex_text import escape_text


@pytest.mark.parametrize(("text", "latex", "katex"), [
    ("\ue0007", r"\texttt{U+E000}\,7", r"\texttt{U+E000}$\,$7"),
    ("\ue000A", r"\texttt{U+E000}\,A", r"\texttt{U+E000}$\,$A"),
    ("x\U0001F6001", r"x\texttt{U+1F600}\,1", r"x\texttt{U+1F600}$\,$1"),
    ("\ue000x", r"\texttt{U+E000}x", r"\texttt{U+E000}x"),  # x is no hex digit
    ("\ue000 7", r"\texttt{U+E000} 7", r"\texttt{U+E000} 7"),
    ("\ue000\ue001", r"\texttt{U+E000}\texttt{U+E001}", r"\texttt{U+E000}\texttt{U+E001}"),
    ("≤1", r"\ensuremath{\leq}1", r"$\leq$1"),  # a sign, not a code point
])
def test_a_code_point_ends_before_a_hex_digit(text: str, latex: str, katex: str) -> None:
    assert (escape_text(text), escape_text(text, "katex")) == (latex, katex)

"""The lines of a Markdown or LaTeX text as attn fill reads them, written as regexes, so that
everything that holds no attn block is passed over at C speed.

A line that opens a fence has up to 3 spaces or tabs (any number here), then three or more
backticks with no backtick after them on the line, or three or more tildes; in LaTeX it is a
comment line, `%` and spaces or tabs before the fence. What follows the fence is its info
string, whose first word is `attn` for an attn block. A fence closes at the first line after it
that holds, between whitespace, the same character at least as many times and nothing else (in
LaTeX a comment line: the first line that is not a comment ends the search, and a fence left
unclosed ends there); in Markdown an unclosed fence runs to the end of the document. In LaTeX a
line that is not a comment and names a verbatim environment begins (or ends) text in which a
`%` is no comment: everything up to the line that ends that environment.

`Fences.passing` matches from the start of a line over every line that is none of attn's: prose,
a fence that does not name attn with its lines to its closing one, a verbatim environment. It
stops where an attn block opens, or at the end of the text: 199,990 LaTeX comment fences that
open and close in pairs took 1.0 to 1.4 s of `fill --check` as a Python iteration each.
"""

from __future__ import annotations

import re

from attncli.records import record

BREAK = r"(?>\r\n|\r|\n)"  # one line ending: `\r\n` is one, never a `\r` and an empty line
LINE_END = r"(?>\r\n|\r|\n|\Z)"
REST = r"[^\r\n]*+"  # the rest of a line
# whitespace inside a line, as str.strip() and str.split() know it (spaces and tabs in runs,
# which the regex engine passes faster than one character of a class at a time)
SPACES = r"(?:[ \t]++|[^\S\r\n])*+"
# a run of three or more of one fence character, a backtick one only where no backtick follows
FENCE = r"(?:`{3,}+(?![^\r\n`]*+`)|~{3,}+)"
NAMED_FENCE = r"(?P<fence>(?P<char>[`~])(?P=char){2,}+)(?:(?<=~)|(?![^\r\n`]*+`))"
NAMES_ATTN = SPACES + r"attn(?:\s|\Z)"  # the info string's first word is attn
# Lines passed by one match: the engine keeps a step back for each (about 190 bytes; 199,990
# took 38 MB), none past the match. `(?>(…){0,n})`, not `(…){0,n}+`: Python 3.11's possessive
# repeat of groups that capture raises SystemError (CPython issue 101955)
PASSED_AT_ONCE = 4096
ENVIRONMENT = r"(?:verbatim|lstlisting|minted|comment)"
VERBATIM = r"\\(?:begin|end)\{" + ENVIRONMENT + r"\*?\}"


@record
class Fences:
    """The patterns of one kind of document, whose block lines start with `comment` ("" in
    Markdown, "%" in LaTeX)."""

    passing: re.Pattern[str]  # every line up to where an attn block opens (or the end)
    opening: re.Pattern[str]  # the line that opens an attn block: its `fence`
    block: re.Pattern[str]  # an attn block: its `body` lines and its closing fence, `close`
    begin: re.Pattern[str]  # the line that begins a generated part, its whitespace `lead`
    end: re.Pattern[str]  # the lines of a generated part to its end marker's, `end` its text


def fences(comment: str, begin: str, end: str) -> Fences:
    """The patterns of a document whose block lines start with `comment`, whose generated parts
    begin at a line that starts with `begin` (after `<!--` or `%`) and end at a line of `end`."""
    mark = re.escape(comment)
    in_comment = r"[ \t]*+" + mark if comment else ""
    opens = in_comment + r"[ \t]*+"  # what comes before a fence
    closes = in_comment + SPACES + "(?P=fence)(?P=char)*+" + SPACES + r"(?=[\r\n]|\Z)"
    to_close = "(?:(?!" + closes + ")" + in_comment + REST + BREAK + ")*+"
    # an unclosed fence runs to the first line that is no comment in LaTeX, in Markdown to the
    # end of the document
    unclosed = (LINE_END + "(?:" + in_comment + REST + LINE_END + ")*+" if comment
                else r"[\s\S]*+")
    # a fence that does not name attn, to its closing fence, or where an unclosed one ends
    other = (opens + NAMED_FENCE + "(?!" + NAMES_ATTN + ")" + REST + "(?:" + BREAK + to_close
             + closes + LINE_END + "|" + unclosed + ")")
    # a verbatim environment, tried before a line of prose, which then never begins one
    parts = [other, _verbatim(mark)] if comment else [other]
    parts.append(r"(?!\Z)(?!" + opens + FENCE + ")" + REST + LINE_END)
    end_line = SPACES + re.escape(end) + SPACES + r"(?=[\r\n]|\Z)"
    return Fences(
        passing=re.compile("(?>(?:" + "|".join(parts) + f"){{0,{PASSED_AT_ONCE}}})"),
        opening=re.compile(opens + NAMED_FENCE + "(?=" + NAMES_ATTN + ")"),
        block=re.compile(opens + NAMED_FENCE + "(?=" + NAMES_ATTN + ")" + REST + BREAK
                         + "(?P<body>" + to_close + ")(?P<close>" + closes + ")" + LINE_END),
        begin=re.compile("(?P<lead>" + SPACES + ")[<!%-]*+" + SPACES + re.escape(begin) + REST
                         + LINE_END),
        end=re.compile("(?:(?!" + end_line + ")" + REST + BREAK + ")*+(?P<end>" + end_line + ")"
                       + LINE_END))


def _up_to(found: str) -> str:
    """The characters of a line before the first backslash that begins `found`."""
    return r"(?:[^\r\n\\]++|\\(?!" + found + "))*+"


def _verbatim(mark: str) -> str:
    """A line that is no comment and names a verbatim environment, where it first does: its end
    alone, or its beginning and every line up to the one where it ends (or the end of the text),
    the same line if it ends there."""
    ends = _up_to(r"end\{(?P=environment)") + r"\\end\{(?P=environment)"
    return (r"(?![ \t]*+" + mark + ")" + _up_to(VERBATIM[2:]) + r"\\(?:end\{" + ENVIRONMENT
            + r"\*?\}" + REST + LINE_END
            + r"|begin\{(?P<environment>" + ENVIRONMENT + r")\*?\}(?:" + ends + REST + LINE_END
            + "|" + REST + BREAK + "(?:(?!" + ends + ")" + REST + BREAK + ")*+" + ends + REST
            + LINE_END
            + r"|[\s\S]*+))")

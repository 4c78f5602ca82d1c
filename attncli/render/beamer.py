"""Beamer slides: one frame per shown step, continued on the next frames (titled "(cont.)",
„(cd.)”, «(продолжение)» after the step's title) when it does not fit, the title and facts on
the first frame, each reading on a frame of its own.

Every matrix is cut into blocks that fit the frame: columns by the width of a 4:3 or 16:9 frame
(aspect "43" or "169"), rows by a number that fits its height. A step's pieces are then packed
into frames by their estimated height (attncli/render/frame_fit.py), each block whole. (Beamer's
own `allowframebreaks` splits between a block's caption and its matrix and overfills the frame.)
`frames_only` writes the frames alone, for \\input into a deck of one's own; its first lines name
exactly what that deck's preamble needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from attncli.i18n import Msg, translate
from attncli.model.latex_text import escape_text
from attncli.render import RenderOptions
from attncli.render.frame_fit import pack
from attncli.render.latex import BABEL_NAMES, ENGINE, packages
from attncli.render.latex_matrix import CELL_MACROS, Page
from attncli.render.latex_parts import parts
from attncli.render.latex_writer import Part

# The text width of a frame (its paper less 1 cm each side) at beamer's 11 pt; rows of a matrix
# block, so that the block, its column labels and the frame title fit the frame's height.
ASPECTS = {
    "169": Page(width=398.0, font=11.0, rows=8, height=200.0),  # 160 mm x 90 mm
    "43": Page(width=307.0, font=11.0, rows=9, height=215.0),  # 128 mm x 96 mm
}
DEFAULT_ASPECT = "169"


def render(walkthrough: object, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: object, options: RenderOptions, langs: Sequence[str]) -> str:
    """The deck in each of `langs`, one after the other (babel switches between them)."""
    from attncli.model import Walkthrough

    assert isinstance(walkthrough, Walkthrough)
    page = ASPECTS[options.aspect]
    frames = []
    for lang in langs:
        if len(langs) > 1:
            frames.append(r"\selectlanguage{" + BABEL_NAMES[lang] + "}")
        continued = escape_text(translate(Msg.of("(cont.)"), lang))
        frames += [frame(part, page, continued)
                   for part in parts(walkthrough, options, lang, page)]
    text = "\n".join(frames)
    needs = [line for line in packages(langs, text, not options.frames_only)
             if "amsmath" not in line and "xcolor" not in line]  # beamer loads both itself
    table = r"\cellcolor" in text
    if options.frames_only:
        return fragment_comment(needs, table, options.aspect) + CELL_MACROS + "\n\n" + text
    return preamble(needs, table, options.aspect) + text + "\\end{document}\n"


def class_line(table: bool, aspect: str) -> str:
    options = ["aspectratio=" + aspect] + (["xcolor=table"] if table else [])
    return r"\documentclass[" + ",".join(options) + "]{beamer}"


def fragment_comment(needs: Sequence[str], table: bool, aspect: str) -> str:
    return (f"% attn export --beamer --frames-only: frames for \\input into a deck; engine: "
            f"{ENGINE}.\n"
            "% The deck needs exactly these lines before \\begin{document}:\n"
            + "".join(f"%   {line}\n" for line in [class_line(table, aspect), *needs]))


def preamble(needs: Sequence[str], table: bool, aspect: str) -> str:
    return "\n".join([
        f"% engine: {ENGINE} (compile with: {ENGINE} FILE.tex); written by attn export --beamer",
        class_line(table, aspect),
        *needs,
        r"\setbeamertemplate{navigation symbols}{}",
        CELL_MACROS,
        r"\begin{document}",
        "",
    ])


def frame(part: Part, page: Page, continued: str) -> str:
    """The part's frames: as many as its pieces need, the second and later titled with the
    part's heading and `continued` (its "(cont.)" in the deck's language)."""
    out = []
    for number, group in enumerate(pack(part.chunks, page), start=1):
        heading = part.heading + (r"\ " + continued if number > 1 else "")
        lines = [r"\begin{frame}", r"\frametitle{" + heading + "}"]
        for chunk in group:
            lines += [*chunk, ""]
        lines += [r"\end{frame}", ""]
        out.append("\n".join(lines))
    return "\n".join(out)

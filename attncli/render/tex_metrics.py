"""How wide TeX will set a label or a number, estimated before TeX runs, so that a matrix can be
split into column blocks that fit the page (TeX cannot break a matrix by itself).

Widths are in points at 10 pt, from the Computer Modern fonts pdflatex uses (the EC fonts of the
T1 encoding; their digits, like every digit in Computer Modern, are all 0.5 em wide). A character
not in the table counts as a full em, so an unknown letter makes a block narrower, never wider.
"""

from __future__ import annotations

import re

# ecrm1000.tfm: the width of each printable ASCII character in thousandths of an em (10 pt)
_ASCII = (
    " 500 !278 \"500 #833 $500 %833 &778 '278 (389 )389 *500 +778 ,278 -333 .278 /500 0500 1500 "
    "2500 3500 4500 5500 6500 7500 8500 9500 :278 ;278 <778 =778 >778 ?472 @778 A750 B708 C722 "
    "D764 E680 F653 G785 H750 I361 J514 K778 L625 M916 N750 O778 P680 Q778 R736 S555 T722 U750 "
    "V750 W1028 X750 Y750 Z611 [278 \\500 ]278 ^611 _778 `278 a500 b555 c444 d555 e444 f305 "
    "g500 h555 i278 j305 k528 l278 m833 n555 o500 p555 q528 r392 s394 t389 u555 v528 w722 x528 "
    "y528 z444 {500 |278 }500 ~611"
)
TEXT_WIDTHS: dict[str, float] = {
    item[0]: int(item[1:]) / 100 for item in re.findall(r"\S\d+|(?<= ) \d+", " " + _ASCII)
}
EM = 10.0
# In math: a digit is 0.5 em, the decimal point or comma 0.278 em, the minus sign 0.778 em.
MATH_WIDTHS = {**{d: 5.0 for d in "0123456789"}, ".": 2.78, ",": 2.78, "-": 7.78, "−": 7.78}
INFINITY = 10.0
ARRAYCOLSEP = 5.0  # \arraycolsep: half the gap between two columns of an array or matrix
BRACKET = 5.0  # one square bracket of a bmatrix, with its null delimiter space


def text_width(text: str) -> float:
    """Points a label takes as text (\\text{...}) at 10 pt."""
    return sum(TEXT_WIDTHS.get(ch, EM) for ch in text)


def number_width(cell: str) -> float:
    """Points a number written as math takes at 10 pt: `0.35`, `0{,}35`, `-\\infty`, NaN."""
    if "infty" in cell:
        return INFINITY + (MATH_WIDTHS["-"] if "-" in cell else 0.0)
    if "NaN" in cell:
        return text_width("NaN")
    if cell.startswith(r"\text{") and cell.endswith("}"):  # a hidden key's weight: \text{—}
        return text_width(cell[len(r"\text{"):-1])
    return sum(MATH_WIDTHS.get(ch, EM) for ch in cell.replace("{,}", ","))

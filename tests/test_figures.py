"""Figures as a reader sees them: the SVG heatmap laid out and drawn by headless Chromium (text
positions read from the DOM, pixels read from a screenshot), the terminal SVG self-contained,
and the terminal heatmap's colours true to its legend on any theme.

.ci/run installs Chromium; without it these tests are skipped, under CI=true they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib
from itertools import pairwise
from pathlib import Path

import pytest

from attncli.render import render
from attncli.render.heat import DEEP, HIDDEN, hex_colour, hidden_cells, ink, rgb
from attncli.spec import load_spec
from attncli.steps.build import build

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium(*args: str) -> str:
    """Run headless Chromium with a fresh profile; its standard output."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing under CI; .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


def heatmap(spec: Path, lang: str = "en") -> str:
    return render(build(load_spec(str(spec))), "heatmap", lang)


# --- the SVG heatmap ------------------------------------------------------------------------


def test_heatmap_is_opaque_xml_with_hidden_keys_hatched() -> None:
    svg = heatmap(ROOT / "configs" / "cat_chases_mouse.yaml")
    root = ET.fromstring(svg)
    width, height = (float(root.get(k, "0")) for k in ("width", "height"))
    background = root.find(f"{SVG}rect")
    assert background is not None and background.get("fill") == "#ffffff"
    assert float(background.get("width", "0")) == width
    assert float(background.get("height", "0")) == height
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#ffffff"]
    assert len(cells) == 9
    # the causal mask hides keys j > i: 3 of 9 cells, hatched, never the white of a real 0
    hatched = [c for c in cells if c.get("fill") == "url(#attn-hidden)"]
    assert len(hatched) == 3
    assert {c.get("fill") for c in cells} & {"#ffffff"} == set()  # no weight is exactly 0 here


def test_heatmap_colours_grow_darker_with_weight_and_numbers_stay_readable() -> None:
    """One hue: the luminance falls as the weight grows, from the white of the background at 0
    to DEEP at 1, and the number's ink keeps a WCAG contrast of at least 4.5:1 on every cell."""
    def luminance(c: tuple[int, int, int]) -> float:
        def channel(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
        r, g, b = (channel(v) for v in c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    weights = [i / 20 for i in range(21)]
    lums = [luminance(rgb(w)) for w in weights]
    assert rgb(0.0) == (255, 255, 255) and rgb(1.0) == DEEP
    assert all(a > b for a, b in pairwise(lums))
    for w in weights:
        hi, lo = sorted((luminance(rgb(w)), luminance(ink(w))), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, w
    assert rgb(float("nan")) == HIDDEN


def test_heatmap_cells_fit_their_numbers_and_no_label_is_clipped() -> None:
    """Every example's heatmap laid out by Chromium: each text inside the picture (a `<pad>` at
    the left edge too), each number narrower than its cell."""
    figures = {spec.stem: heatmap(spec) for spec in EXAMPLES}
    figures["padding_comma_ru"] = heatmap(ROOT / "configs" / "padding_comma.yaml", "ru")
    script = """
const out = {};
for (const fig of document.querySelectorAll('div[data-name]')) {
  const svg = fig.querySelector('svg');
  const box = svg.viewBox.baseVal;
  const texts = [];
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
    const cell = t.previousElementSibling;
    const c = cell && cell.tagName === 'rect' && t.getAttribute('text-anchor') === 'middle'
      ? cell.getBoundingClientRect() : null;
    texts.push([t.textContent, b.left - s.left, b.top - s.top, b.right - s.left,
                b.bottom - s.top, c ? c.width : null]);
  }
  out[fig.dataset.name] = {width: box.width, height: box.height, texts};
}
document.getElementById('out').textContent = JSON.stringify(out);
"""
    page = "<html><body style='margin:0'>" + "".join(
        f"<div data-name='{name}'>{svg}</div>" for name, svg in figures.items()
    ) + f"<pre id='out'></pre><script>{script}</script></body></html>"
    with tempfile.TemporaryDirectory() as folder:
        html = Path(folder) / "figures.html"
        html.write_text(page, encoding="utf-8")
        dom = chromium("--dump-dom", html.as_uri())
    found = re.search(r"<pre id=\"out\">(.*?)</pre>", dom, flags=re.S)
    assert found, dom[-2000:]
    layout = json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<")
                        .replace("&gt;", ">"))
    assert set(layout) == set(figures)
    for name, fig in layout.items():
        for text, left, top, right, bottom, cell in fig["texts"]:
            assert left >= 0 and top >= 0, (name, text, left, top)
            assert right <= fig["width"] and bottom <= fig["height"], (name, text, right)
            if cell is not None:
                assert right - left <= cell - 4, (name, text, right - left, cell)
    pad = [t for t in layout["padding_comma"]["texts"] if t[0] == "<pad>"]
    assert len(pad) == 2  # a query's label and a key's, turned, both inside (checked above)


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGBA pixels of an 8-bit, non-interlaced PNG (what Chromium
    writes): the chunks inflated and the row filters undone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6)
    step = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    rows: list[bytes] = []
    previous = bytearray(width * step)
    stride = width * step + 1
    for y in range(height):
        kind, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - step] if i >= step else 0
            b = previous[i]
            c = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if step == 3 else bytes(
            v for k, v in enumerate(line) if k % 4 != 3))
        previous = line
    return width, height, rows


def test_heatmap_drawn_by_chromium_shows_its_colours_on_a_red_page(tmp_path: Path) -> None:
    """Rasterised over a red page: the picture's own white background hides the red, a weight
    of 1 is DEEP, a hidden key is the grey of its hatching, not white."""
    spec = ROOT / "configs" / "cat_chases_mouse.yaml"
    svg = heatmap(spec)
    (tmp_path / "h.svg").write_text(svg, encoding="utf-8")
    root = ET.fromstring(svg)
    width, height = int(float(root.get("width", "0"))), int(float(root.get("height", "0")))
    png = tmp_path / "h.png"
    chromium("--default-background-color=ff0000ff", f"--window-size={width},{height + 40}",
             f"--screenshot={png}", (tmp_path / "h.svg").as_uri())
    w, _, rows = read_png(png.read_bytes())

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        r, g, b = rows[int(y)][int(x) * 3:int(x) * 3 + 3]
        return (r, g, b)

    assert pixel(1, 1) == (255, 255, 255)  # opaque: the page's red does not show through
    assert pixel(w - 2, height - 2) == (255, 255, 255)
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#ffffff"]
    group = root.find(f"{SVG}g")
    assert group is not None
    dx, dy = (float(v) for v in re.findall(r"[\d.]+", group.get("transform", ""))[:2])
    # cell (cat, cat) is weight 1.00, cell (cat, chases) is hidden; the title adds 28 px
    one, hidden = cells[0], cells[1]

    def corner(rect: ET.Element) -> tuple[float, float]:  # inside the cell, off its number
        return (dx + float(rect.get("x", "0")) + 3, dy + 28 + float(rect.get("y", "0")) + 3)

    assert pixel(*corner(one)) == DEEP
    shades = {pixel(corner(hidden)[0] + k, corner(hidden)[1]) for k in range(6)}
    assert (255, 255, 255) not in shades and len(shades) > 1  # hatched: grey and darker lines
    assert HIDDEN in shades or any(abs(s[0] - HIDDEN[0]) < 24 for s in shades)


# --- the terminal SVG and the terminal heatmap ----------------------------------------------


def test_terminal_svg_loads_no_font_from_the_network() -> None:
    svg = render(build(load_spec(str(EXAMPLES[0]))), "svg")
    ET.fromstring(svg)
    assert "@font-face" not in svg
    assert all(ref.startswith("#") for ref in re.findall(r"url\(([^)]*)\)", svg))  # its own clips
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg|www\.textualize\.io)", svg)
    assert "monospace" in svg


def test_terminal_heatmap_cells_have_their_own_background() -> None:
    """Whatever the terminal's theme, a cell's background is the weight's colour: DEEP for 1,
    white for 0, the hidden grey with — for a masked key; the glyph legend says fuller is more."""
    from attncli.arithmetic.numbers import NumberFormat
    from attncli.render.common import heatmap_caption
    from attncli.render.rich_view import tables

    walkthrough = build(load_spec(str(ROOT / "configs" / "cat_chases_mouse.yaml")))
    step = next(s for s in walkthrough.steps if s.id == "weights")
    hidden = hidden_cells(walkthrough, step)
    assert hidden == {(0, 1), (0, 2), (1, 2)}
    table = tables(step.matrices[0], NumberFormat(precision=2), lambda m: m.msgid, 80,
                   heat=hidden)[0]
    cells = [list(column.cells) for column in table.columns[1:]]  # by column, rows in order
    cat_cat, cat_chases = cells[0][0], cells[1][0]
    assert cat_cat.plain == "██ 1.00" and cat_cat.style.bgcolor is not None
    assert cat_cat.style.bgcolor.triplet is not None
    assert cat_cat.style.bgcolor.triplet.hex == hex_colour(DEEP)
    assert cat_chases.plain.strip() == "—"
    assert cat_chases.style.bgcolor.triplet.hex == hex_colour(HIDDEN)
    assert "fuller" in heatmap_caption(lambda m: m.msgid.format(shades="░░ ▒▒ ▓▓ ██"))
    coloured = render(walkthrough, "rich", color=True, width=100)
    assert "deep blue is weight 1" in coloured

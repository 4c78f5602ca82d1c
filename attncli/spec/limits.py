"""How large a spec may grow: one number, the cell limit, bounds everything attn allocates.

`max_cells` (default DEFAULT_MAX_CELLS, `--max-cells` on the command line) limits

- the values written in the spec, counted as they are read, to a hundredth of the limit (at
  least MIN_WRITTEN: each becomes a node of several hundred bytes), and again with every YAML
  alias expanded, to the limit itself (so an alias bomb is refused unbuilt);
- the numbers of every matrix the spec makes: written out, drawn with {random: ...}, identity
  weights, and read from .npy/.npz files (their header is read before their data);
- the numbers the walkthrough computes: Q, K, V, the n x m scores, weights and outputs of every
  head, and the rest of the layer, to COMPUTED_PER_CELL times the limit (one BERT-base-size
  layer, 2048 tokens and 12 heads, computes about 215 million numbers from about 4 million given),
  and the products its matrix multiplications take, to PRODUCTS_PER_CELL times the limit (that
  layer takes 11.3 billion; attncli/spec/costs.py estimates both from the shapes).

Files are measured before they are read: a spec or a .csv file may have at most
BYTES_PER_CELL bytes per cell of the limit, so a file far too large is refused unread (a matrix
that large belongs in a .npy file). Nesting is limited to MAX_DEPTH levels, so no reader
recurses deeper than that.

This module holds numbers only, so `attn --help` can show the default without importing NumPy.
"""

from __future__ import annotations

from fractions import Fraction

DEFAULT_MAX_CELLS = 10_000_000
EXACT_IN_FLOAT = 2**53  # a limit below this is a float's whole number
MAX_PRECISION = 12  # decimals, as `-p`, a spec's display.precision and a manifest allow
# The walkthrough may compute this many numbers for each number the spec may hold.
COMPUTED_PER_CELL = 32
# Its matrix multiplications may take this many products for each number the spec may hold:
# 12 billion by default, about a second and a half of work on two cores. One BERT-base-size
# attention layer of 2,048 tokens and 12 heads takes 11.3 billion (Q, K, V and W_O 4.8, the
# scores and outputs 6.4); 4,096 tokens of d_model 1,000 with 1,000 features a head took 46
# billion, 2.3 s and 290 MB, within every other limit.
PRODUCTS_PER_CELL = 1200
# A short number and its separator (`0.5, `): a spec file of more than this per cell of the
# limit is refused before it is read.
BYTES_PER_CELL = 4
# Below this, the byte limit would refuse small specs that are mostly comments.
MIN_BYTES = 1 << 20
MAX_DEPTH = 64
# Heads of one spec: a walkthrough shows each of them (the largest models have 96 or 128).
MAX_HEADS = 256
# Keys of one mapping, and of all the mappings of a spec (aliases expanded): a spec's largest
# mapping, its top level, has 30 keys, and 256 heads with every weight a file slice have about
# 8,000 in all; each key costs about 10 µs to read, so 300,000 took 2 to 3 s and 400 MB before
# the first unknown one was named, and 49,990 mappings of one key and a list 1.06 s. Counted as
# the document is read, before it is built.
MAX_KEYS = 1000
MAX_ALL_KEYS = 20_000
# An .npz names its arrays in a zip directory that is read whole: more members are refused from
# the count in its end record, before the directory is read.
MAX_MEMBERS = 1024
# Characters of one text in a spec (a token, a title, a key): a label longer than this is no
# label, and every matrix repeats its labels. All texts together, aliases expanded, may have
# max_bytes characters.
MAX_TEXT = 1000
# Values (objects, lists, numbers, texts) a JSON header of a checkpoint may hold, counted from its
# separators before it is parsed: a tensor's entry holds 7 or 8, so about 33,000 tensors in one
# file (a shard of the largest models holds a few thousand). Parsed, a value takes about 100
# bytes, so a header of 560,000 entries would take 400 MB before any check could refuse it.
MAX_HEADER_VALUES = 1 << 18
# attn blocks of one document that `attn fill` fills: each is a walkthrough of its own (about
# 5 ms for a small spec, up to the spec's limits for a large one), and a document may hold
# thousands in its byte limit (500 of 500 specs took 2.6 s); a block written again is one.
MAX_BLOCKS = 200
# attn blocks of one document counted with those written again, from their opening fences before
# the document is cut into lines: each is an object however alike they are (416,666 empty blocks
# alike in 5 MB took 3.3 GB, each holding its line's count of newlines).
MAX_BLOCKS_WRITTEN = 10 * MAX_BLOCKS
# Longer file names are refused before the system is asked (Linux allows 4096 bytes a path).
MAX_NAME = 1024

# What an option asks to be written (attncli/steps/budget.py), as shares of the cell limit, each
# with a
# floor so that a small --max-cells still shows a small spec: numbers a document that shows every
# number may print, terms `-x all` may write out, weights hand calculation may work.
SHOWN_PER_CELL, MIN_SHOWN = 0.05, 100_000
TERMS_PER_CELL, MIN_TERMS = 0.005, 5_000
HAND_PER_CELL, MIN_HAND = 0.002, 5_000
# Numbers an answer file (attn check --answer FILE) may hold: each is read with the digits it was
# written with and compared, and the rows of the first that differ are worked again for the
# slips, about 10 µs a number: 50,000 (a 200 x 200 matrix and more) take about half a second.
ANSWER_PER_CELL, MIN_ANSWER = 0.005, 5_000
# Numbers one file gives a spec from a slow source: a .csv file's chosen cells, converted from
# text (about 0.2 µs a number, where a .npy file costs nothing), and the numbers decompressed to
# reach a slice of a deflated .npz member (about 0.15 µs a number): 2 million, a fifth of the
# default limit, take about 0.4 s.
SLOW_PER_CELL, MIN_SLOW = 0.2, 100_000


def share(max_cells: int, fraction: float, floor: int) -> int:
    if max_cells < EXACT_IN_FLOAT:
        return max(floor, int(fraction * max_cells))
    return max(floor, int(Fraction(repr(fraction)) * max_cells))  # past any float: as written


def max_shown(max_cells: int) -> int:
    return share(max_cells, SHOWN_PER_CELL, MIN_SHOWN)


def max_terms(max_cells: int) -> int:
    return share(max_cells, TERMS_PER_CELL, MIN_TERMS)


def max_answer(max_cells: int) -> int:
    return share(max_cells, ANSWER_PER_CELL, MIN_ANSWER)


def max_hand(max_cells: int) -> int:
    return share(max_cells, HAND_PER_CELL, MIN_HAND)


def max_slow_cells(max_cells: int) -> int:
    """The numbers one file may give a spec from text or through decompression: a share of the
    cell limit, never above it."""
    return min(max_cells, share(max_cells, SLOW_PER_CELL, MIN_SLOW))


def max_computed(max_cells: int) -> int:
    """How many numbers the walkthrough of a spec may compute under the cell limit."""
    return COMPUTED_PER_CELL * max_cells


def max_products(max_cells: int) -> int:
    """How many products the walkthrough's matrix multiplications may take under the cell
    limit."""
    return PRODUCTS_PER_CELL * max_cells


# Texts (keys and text values) a spec may hold, aliases expanded, per cell of the limit: each is
# a Node of about 400 bytes once read, so 7,000,000 one-letter tokens of a 28 MB JSON file took
# 22 s and 2.7 GB, and a list of 1,000 texts aliased 9,000 times 20 s and 3.4 GB. A real spec
# holds a few hundred (tokens, labels, keys; 10,000 tokens written out are 10,004); 50,000 by
# default, so that they and the values a spec may write are read in under a second together
# (100,000 texts and 150,000 values took 1.4 s).
CELLS_PER_TEXT = 200
MIN_TEXTS = 50_000


def max_texts(max_cells: int) -> int:
    """How many texts (keys and text values, aliases expanded) a spec may hold."""
    return max(MIN_TEXTS, max_cells // CELLS_PER_TEXT)


# Values written in a spec (numbers, texts, keys; a list or a mapping counts as one), per cell of
# the limit: each is read into a node of 400 to 730 bytes, at 2.5 to 6.5 µs, so 3 million
# numbers written in a 6 MB file took 18.7 s and 2.2 GB before the first was checked. A spec
# written by hand holds a few thousand, a 400 x 250 matrix 100,400; 150,000 by default (about
# 110 MB and under a second), and a larger matrix belongs in a .npy file, read as one array.
CELLS_PER_WRITTEN = 100
MIN_WRITTEN = 150_000


def max_written(max_cells: int) -> int:
    """How many values a spec may write (aliases counted once): never more than the cell limit."""
    return min(max_cells, max(MIN_WRITTEN, max_cells // CELLS_PER_WRITTEN))


def max_bytes(max_cells: int) -> int:
    """The size in bytes a .csv file (or a tokenizer, a header, an image) may have under the cell
    limit `max_cells`."""
    return max(MIN_BYTES, BYTES_PER_CELL * max_cells)


# Bytes of a spec file (or an answer file) per value it may write: the longest way to write a
# float64 and its separator (`-1.2345678901234567e-300, `, 26 bytes) with room to spare, so every
# value the spec may write fits at full precision (4,800,000 bytes by default). A spec reads its
# bytes in about 25 ns each, and its texts cost memory as they are read: 99,980 texts of 385
# characters (a 39 MB spec under the 40 MB .csv limit) took 2.1 s and 269 MB to refuse, and a
# number of 39 million digits 1.3 s and 211 MB. A larger matrix belongs in a .npy file.
SPEC_BYTES_PER_VALUE = 32


def max_spec_bytes(max_cells: int) -> int:
    """The size in bytes a spec file may have under the cell limit `max_cells`."""
    return max(MIN_BYTES, SPEC_BYTES_PER_VALUE * max_written(max_cells))


# A Markdown or LaTeX document `attn fill` reads is cut into lines of about 230 bytes each in
# memory: a 38 MB chapter of 3.5 million lines took 5.3 s and 810 MB. A post, a chapter or a
# thesis in one file is well under a megabyte; an eighth of the spec's byte limit (5 MB).
DOCUMENT_SHARE = 8
# Lines of a Markdown or LaTeX text that names attn (a document, or a notebook cell), counted from
# its line endings before it is cut into lines: the byte limit assumes long lines, and 5 MB of
# one-letter lines took 3.3 s and 408 MB. A 2 MB book chapter has about 40,000.
MAX_DOCUMENT_LINES = 200_000
# Cells of one notebook: each is a few hundred bytes once read (600,000 cells of a 35 MB notebook
# took 2.3 s and 450 MB); a long lecture notebook has a few hundred.
MAX_NOTEBOOK_CELLS = 10_000
# Commas and opening brackets outside the texts of one notebook, counted before it is read: with
# one they bound its JSON values (lists, mappings, numbers, texts; keys aside), each an object of
# 50 to 150 bytes once read (13 million `{}` in 39 MB took 4.6 s and 1.9 GB). A notebook of five
# plotly figures (1,000 to 10,000 points each, a 100 × 100 surface) has about 28,000; an image
# is one text.
MAX_NOTEBOOK_VALUES = 500_000
# Characters of a notebook's Markdown cell that holds an attn block: where each was written in the
# notebook is found one at a time (a cell of 20 MB took 6.3 s and 1 GB; one of 1,000,000
# characters 0.35 s and 45 MB). Such a cell is a paragraph or two and its blocks.
MAX_BLOCK_CELL_TEXT = 1_000_000
# JSON strings of the source of a Markdown cell that holds an attn block (Jupyter writes one a
# line): where each was written is found at Python's pace, about 5 µs a string (490,000
# one-character strings, 2.45 MB, took 2.75 s and 199 MB). A real cell has a few thousand lines.
# The sources of all such cells of a notebook are held to it together (24 cells of 19,994 strings
# took 2.3 to 3.1 s and 190 MB).
MAX_BLOCK_CELL_STRINGS = 20_000


def max_document_bytes(max_cells: int) -> int:
    """The size in bytes of a Markdown or LaTeX document attn fill reads."""
    return max(MIN_BYTES, max_bytes(max_cells) // DOCUMENT_SHARE)

"""The lines of a .csv file found at C speed, a piece of about a megabyte at a time, so that
what is held grows with the piece and never with the count of lines: 40 MB of one-letter lines
are 20 million lines, and an index of them all would be 160 MB.

A line ends with `\n`, `\r\n` or `\r`, as bytes.splitlines() cuts them (no line after a final
break). A line is kept unless it is blank or a comment: after the whitespace str.lstrip() takes
away (ASCII's and Unicode's: U+00A0, U+2003, U+3000 …), nothing is left or `#` is first."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

PIECE = 1 << 15  # bytes scanned at once (their masks stay in the cache), to a line's end
COMMA, LF, CR, HASH = ord(","), ord("\n"), ord("\r"), ord("#")
# ASCII whitespace as str.isspace() knows it (\n and \r never fall inside a line).
ASCII_SPACE = np.zeros(256, dtype=bool)  # (256,)
ASCII_SPACE[[0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
# What a line's first byte says: it is kept, a comment, empty, or may be whitespace (ASCII's, or
# the lead byte of a wider one) and is looked at further.
SOLID, COMMENT, EMPTY, SPACE = 0, 1, 2, 3
FIRST = np.full(256, SOLID, dtype=np.uint8)  # (256,)
FIRST[[0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0xC2, 0xE1, 0xE2, 0xE3]] = SPACE
FIRST[[HASH]] = COMMENT
# The other whitespace of str.isspace() in UTF-8, by its first two bytes (WIDE: TWO for U+0085
# and U+00A0, or a start of three bytes) and then the third (THIRD). A lead byte is never inside
# another character, so a match is a whole character.
TWO = 1
# whitespace characters stepped over, all lines at once, before a line is looked at bytewise: one
# (a line of five spaces before a `#` was stepped four times, then looked at bytewise too)
STEPS = 1
WIDE = np.zeros(1 << 16, dtype=np.uint8)  # (65536,)
THIRD = np.zeros((6, 256), dtype=bool)  # (kinds, third byte)
WIDE[[0xC285, 0xC2A0]] = TWO
for _kind, _start, _thirds in (
        (2, 0xE280, (*range(0x80, 0x8B), 0xA8, 0xA9, 0xAF)),  # U+2000–200A, 2028, 2029, 202F
        (3, 0xE281, (0x9F,)), (4, 0xE19A, (0x80,)), (5, 0xE380, (0x80,))):  # U+205F, 1680, 3000
    WIDE[_start] = _kind
    THIRD[_kind, list(_thirds)] = True


@dataclass
class Piece:
    """The lines of one piece: where each starts and ends (its break left out) from the piece's
    start `at`, and which are kept; `first` is the file's line index of its first line."""
    starts: np.ndarray  # (lines,)
    ends: np.ndarray  # (lines,)
    kept: np.ndarray  # (lines,) bool
    first: int
    at: int


def pieces(data: bytes, at: int, stop: int, first: int = 0) -> Iterator[Piece]:
    """The lines of data[at:stop] (`at` a line's start, `stop` the file's end or a line's
    start), a piece at a time; `first` is the file's line index of the line at `at`."""
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    while at < stop:
        end = piece_end(data, at, stop)
        one_line = end - at > PIECE + 1  # no break in its first PIECE bytes: a single line
        piece = long_line(raw, at, end, first) if one_line else spans(raw, at, end, first)
        yield piece
        first += len(piece.starts)
        at = end


def piece_end(data: bytes, at: int, stop: int) -> int:
    """Where the piece that starts at `at` ends: just after the last break within PIECE bytes
    (a `\r\n` never cut in two), or after the first break past them, or at `stop`."""
    end = min(at + PIECE, stop)
    if end == stop:
        return stop
    last = max(data.rfind(b"\n", at, end), data.rfind(b"\r", at, end))
    if last < 0:  # a line longer than a piece: on to its break
        lf = data.find(b"\n", end, stop)
        last = data.find(b"\r", end, stop if lf < 0 else lf)
        last = lf if last < 0 else last
        if last < 0:
            return stop
    if data[last] == CR and last + 1 < stop and data[last + 1] == LF:
        last += 1
    return last + 1


def spans(raw: np.ndarray, at: int, end: int, first: int) -> Piece:
    """The lines of raw[at:end], which ends with a break or at the file's end (int32 places
    within the piece: it is at most PIECE + 1 bytes)."""
    part = raw[at:end]  # (n,)
    lf, cr = part == LF, part == CR  # (n,) each
    if cr.any():
        lf_next = np.append(lf[1:], False)  # (n,) a piece never ends between \r and \n
        breaks = np.flatnonzero(lf | (cr & ~lf_next)).astype(np.int32)  # (breaks,) last bytes
        crlf = lf[breaks] & np.insert(cr[:-1], 0, False)[breaks]  # (breaks,) a \r\n break
        stops = breaks - crlf  # (breaks,)
    else:
        breaks = stops = np.flatnonzero(lf).astype(np.int32)  # (breaks,)
    lines = len(breaks) + (not len(breaks) or breaks[-1] != len(part) - 1)  # none after the last
    starts, ends = np.empty(lines, dtype=np.int32), np.empty(lines, dtype=np.int32)  # (lines,)
    starts[0], starts[1:] = 0, breaks[:lines - 1] + 1
    ends[:len(breaks)] = stops[:lines]
    ends[len(breaks):] = len(part)  # a last line with no break
    return Piece(starts, ends, kept_lines(part, starts, ends), first, at)


def long_line(raw: np.ndarray, at: int, end: int, first: int) -> Piece:
    """A piece longer than PIECE, which is one line: its whitespace looked at a block at a time
    until a solid byte, never a mask or an index of the whole line."""
    cut = end - (raw[end - 1] in (LF, CR)) - (end - at > 1 and raw[end - 2] == CR
                                               and raw[end - 1] == LF)
    kept, low = False, at
    while low < cut:
        high = min(low + PIECE, cut)
        while high < cut and 0x80 <= raw[high] < 0xC0:  # never cut a character in two
            high += 1
        block = raw[low:high]  # (PIECE or so,)
        solid = np.flatnonzero(~whitespace(block))  # (solid bytes,)
        if len(solid):
            kept = bool(block[solid[0]] != HASH)
            break
        low = high
    return Piece(np.array([0]), np.array([cut - at]), np.array([kept]), first, at)


def kept_lines(part: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which lines hold something other than whitespace, and do not begin (after it) with #:
    most are told by their first byte; a line that begins with whitespace is stepped over it a
    character at a time, all such lines at once, and one with more than STEPS such characters
    is looked at byte by byte."""
    kind = FIRST[part[np.minimum(starts, len(part) - 1)]]  # (lines,) by the first byte
    kind[starts == ends] = EMPTY
    kept = kind == SOLID  # (lines,)
    doubt = np.flatnonzero(kind == SPACE)  # (doubtful lines,) whitespace first, maybe all of it
    if not len(doubt):  # a plain file: its lines told by their first bytes alone
        return kept
    padded = np.append(part, np.zeros(2, dtype=np.uint8))  # (n + 2,)
    at, end = starts[doubt], ends[doubt]  # (doubtful,) each
    for _ in range(STEPS):
        if not len(doubt):
            return kept
        width = space_width(padded, at)  # (doubtful,) 0 where a solid character begins
        done = (width == 0) | (at + width >= end)  # (doubtful,)
        kept[doubt[done]] = (width[done] == 0) & (padded[at[done]] != HASH)
        doubt, at, end = doubt[~done], (at + width)[~done], end[~done]
    if not len(doubt):
        return kept
    solid = ~whitespace(part)  # (n,) a byte of a character other than whitespace
    before = np.concatenate(([0], np.cumsum(solid, dtype=np.int32)))  # (n + 1,) solid before
    low, high = before[at], before[end]  # (doubtful,) each
    seen = high > low  # (doubtful,) a solid byte after the whitespace
    first = np.flatnonzero(solid)[low[seen]]  # (seen,) the first solid byte of each
    kept[doubt[seen]] = part[first] != HASH
    return kept


def space_width(padded: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The bytes of the whitespace character that begins at each of `at` (0: none begins)."""
    first = padded[at]  # (places,)
    width = ASCII_SPACE[first].astype(np.int32)  # (places,)
    wide = np.flatnonzero(first >= 0xC2)  # (wide,) a lead byte: WIDE says if a space begins
    places = at[wide]  # (wide,)
    kind = WIDE[(padded[places].astype(np.uint16) << 8) | padded[places + 1]]  # (wide,)
    three = (kind > TWO) & THIRD[kind, padded[places + 2]]  # (wide,)
    width[wide] += np.where(kind == TWO, 2, 0) + np.where(three, 3, 0)
    return width


def whitespace(part: np.ndarray) -> np.ndarray:
    """Each byte of `part` that belongs to a character str.isspace() calls whitespace: ASCII's,
    then the wider ones looked up by each byte and the one after it (WIDE), and the third."""
    space = ASCII_SPACE[part]  # (n,)
    if not ((part == 0xC2) | ((part >= 0xE1) & (part <= 0xE3))).any():
        return space
    padded = np.append(part, np.zeros(2, dtype=np.uint8))  # (n + 2,)
    pair = (padded[:-2].astype(np.uint16) << 8) | padded[1:-1]  # (n,) a byte and the next
    kind = WIDE[pair]  # (n,) TWO, or the start of three bytes that THIRD may end as a space
    two = kind == TWO  # (n,)
    space |= two
    space[1:] |= two[:-1]
    starts = np.flatnonzero(kind > TWO)  # (starts,)
    threes = starts[THIRD[kind[starts], padded[starts + 2]]]  # (threes,)
    for offset in range(3):
        space[threes + offset] = True
    return space


def commas(data: bytes, at: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The commas of each line (none fall in a break) of lines of one piece, placed from `at`."""
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    low, high = at + int(starts[0]), at + int(ends[-1])
    if len(starts) == 1 or data.count(b",", low, high) == 0:  # a line of millions of cells
        return np.full(len(starts), data.count(b",", low, high))  # has no index of its commas
    raw = np.frombuffer(data, dtype=np.uint8)[low:high]  # (bytes,)
    before = np.concatenate(([0], np.cumsum(raw == COMMA, dtype=np.int32)))  # (n + 1,)
    return before[ends - starts[0]] - before[starts - starts[0]]  # (lines,)

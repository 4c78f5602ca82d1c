"""The lines of a .csv file found at C speed, a piece of about a megabyte at a time, so that
what is held grows with the piece and never with the count of lines: 40 MB of one-letter lines
are 20 million lines, and an index of them all would be 160 MB.

A line ends with `\n`, `\r\n` or `\r`, as bytes.splitlines() cuts them (no line after a final
break). A line is kept unless it is blank or a comment: after the whitespace str.lstrip() takes
away (ASCII's and Unicode's: U+00A0, U+2003, U+3000 …), nothing is left or `#` is first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

PIECE = 1 << 15  # bytes scanned at once (their masks stay in the cache), to a line's end
COMMA, LF, CR, HASH = ord(","), ord("\n"), ord("\r"), ord("#")
# ASCII whitespace as str.isspace() knows it (\n and \r never fall inside a line).
ASCII_SPACE = np.zeros(256, dtype=bool)  # (256,)
ASCII_SPACE[[0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
ASCII_BLANK = bytes(ASCII_SPACE.astype(np.uint8))  # the same, a table for bytes.translate()
# What a line's first byte says: it is kept, a comment, empty, or may be whitespace (ASCII's, or
# the lead byte of a wider one) and is looked at further.
SOLID, COMMENT, EMPTY, SPACE = 0, 1, 2, 3
FIRST = np.full(256, SOLID, dtype=np.uint8)  # (256,)
FIRST[[0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0xC2, 0xE1, 0xE2, 0xE3]] = SPACE
FIRST[[HASH]] = COMMENT
# whitespace characters stepped over, all lines at once, before a line is looked at bytewise: one
# (a line of five spaces before a `#` was stepped four times, then looked at bytewise too)
STEPS = 1


@dataclass
class Piece:
    """The lines of one piece: where each starts and ends (its break left out) from the piece's
    start `at`, and which are kept; `first` is the file's line index of its first line, and the
    piece's bytes end at `end` (its last break included)."""
    starts: np.ndarray  # (lines,)
    ends: np.ndarray  # (lines,)
    kept: np.ndarray  # (lines,) bool
    first: int
    at: int
    end: int


@dataclass
class Seen:
    """Which lines of a piece were kept, a bit a line, so that the piece is read again with its
    breaks found again but its whitespace never looked at twice (40 MB of lines of U+3000 were
    looked at as the lines were counted, then again as the rows were converted)."""
    at: int
    end: int
    first: int
    lines: int
    kept: np.ndarray  # (lines / 8,) uint8, np.packbits of Piece.kept

    @classmethod
    def of(cls, piece: Piece) -> Seen:
        return cls(piece.at, piece.end, piece.first, len(piece.kept), np.packbits(piece.kept))


def pieces(data: bytes, at: int, stop: int, first: int = 0) -> Iterator[Piece]:
    """The lines of data[at:stop] (`at` a line's start, `stop` the file's end or a line's
    start), a piece at a time; `first` is the file's line index of the line at `at`."""
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    while at < stop:
        end = piece_end(data, at, stop)
        piece = (long_line if one_line(at, end) else spans)(raw, at, end, first)
        yield piece
        first += len(piece.starts)
        at = end


def again(data: bytes, seen: Sequence[Seen]) -> Iterator[Piece]:
    """The pieces `seen` read again: their breaks found, which lines are kept as it was seen."""
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    for one in seen:
        kept = np.unpackbits(one.kept, count=one.lines).view(bool)  # (lines,)
        yield (long_line if one_line(one.at, one.end) else spans)(raw, one.at, one.end,
                                                                   one.first, kept)


def one_line(at: int, end: int) -> bool:
    """Whether the piece data[at:end] is a single line: no break in its first PIECE bytes."""
    return end - at > PIECE + 1


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


def spans(raw: np.ndarray, at: int, end: int, first: int,
          kept: np.ndarray | None = None) -> Piece:
    """The lines of raw[at:end], which ends with a break or at the file's end (int32 places
    within the piece: it is at most PIECE + 1 bytes); which are kept looked at unless `kept`
    says it."""
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
    if kept is None:
        kept = kept_lines(part, starts, ends)
    return Piece(starts, ends, kept, first, at, end)


def long_line(raw: np.ndarray, at: int, end: int, first: int,
              kept: np.ndarray | None = None) -> Piece:
    """A piece longer than PIECE, which is one line: its whitespace looked at (unless `kept`
    says if it is kept) a block at a time until a solid byte, never a mask or an index of the
    whole line."""
    cut = end - (raw[end - 1] in (LF, CR)) - (end - at > 1 and raw[end - 2] == CR
                                               and raw[end - 1] == LF)
    if kept is not None:
        return Piece(np.array([0]), np.array([cut - at]), kept, first, at, end)
    keep, low = False, at
    while low < cut:
        high = min(low + PIECE, cut)
        while high < cut and 0x80 <= raw[high] < 0xC0:  # never cut a character in two
            high += 1
        block = raw[low:high]  # (PIECE or so,)
        found = np.flatnonzero(~whitespace(block))  # (solid bytes,)
        if len(found):
            keep = bool(block[found[0]] != HASH)
            break
        low = high
    return Piece(np.array([0]), np.array([cut - at]), np.array([keep]), first, at, end)


def kept_lines(part: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which lines hold something other than whitespace, and do not begin (after it) with #:
    most are told by their first byte; a line that begins with whitespace is stepped over it a
    character at a time, all such lines at once, and those with more than STEPS such characters
    are looked at together: the whitespace of the bytes from the first of them to the last one's
    end found at once, then the first other byte of each line among them."""
    # take(), not [], for gathers by int32 places: [] took three times as long
    kind = FIRST.take(part.take(np.minimum(starts, len(part) - 1)))  # (lines,) by its first byte
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
        if not done.any():  # lines of much whitespace: none told yet
            at = at + width
            continue
        kept[doubt[done]] = (width[done] == 0) & (padded.take(at[done]) != HASH)
        doubt, at, end = doubt[~done], (at + width)[~done], end[~done]
    if not len(doubt):
        return kept
    low = int(at[0])  # the bytes from the first doubtful line on, to the last one's end
    solid = low + np.flatnonzero(~whitespace(part[low:int(end[-1])]))  # (solid bytes,)
    if not len(solid):  # whitespace alone
        return kept
    first = solid[np.minimum(np.searchsorted(solid, at), len(solid) - 1)]  # (doubtful,) the
    seen = (first >= at) & (first < end)  # first solid byte at or after each, if in its line
    kept[doubt[seen]] = part[first[seen]] != HASH
    return kept


def space_width(padded: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The bytes of the whitespace character that begins at each of `at` (0: none begins)."""
    lead = padded.take(at)  # (places,)
    two, three = wide_spaces(lead, padded.take(at + 1), padded.take(at + 2))  # (places,) each
    return ASCII_SPACE.take(lead) + two * np.uint8(2) + three * np.uint8(3)  # (places,) uint8


def whitespace(part: np.ndarray) -> np.ndarray:
    """Each byte of `part` that belongs to a character str.isspace() calls whitespace: ASCII's
    by one translation of the bytes, then the wider ones by each byte and the two after it,
    compared at C speed over the whole part (a table of byte pairs, looked up a byte at a time,
    was the largest part of the 3 s CPU that 40 MB of lines of U+3000 cost)."""
    space = np.frombuffer(part.tobytes().translate(ASCII_BLANK), dtype=bool).copy()  # (n,)
    if not ((part == 0xC2) | ((part >= 0xE1) & (part <= 0xE3))).any():
        return space
    padded = np.append(part, np.zeros(2, dtype=np.uint8))  # (n + 2,)
    two, three = wide_spaces(padded[:-2], padded[1:-1], padded[2:])  # (n,) each
    space |= two | three
    space[1:] |= (two | three)[:-1]
    space[2:] |= three[:-2]
    return space


def wide_spaces(lead: np.ndarray, second: np.ndarray,
                third: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a whitespace character of two bytes (U+0085, U+00A0) and where one of three
    (U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) begins, for bytes `lead`
    each followed by `second` and `third`. A lead byte is never inside another character, so a
    match is a whole character."""
    two = (lead == 0xC2) & ((second == 0x85) | (second == 0xA0))
    three = (lead == 0xE2) & (second == 0x80) & (
        ((third >= 0x80) & (third <= 0x8A)) | (third == 0xA8) | (third == 0xA9)
        | (third == 0xAF))  # U+2000 to U+202F
    three |= (lead == 0xE3) & (second == 0x80) & (third == 0x80)  # U+3000
    three |= (lead == 0xE2) & (second == 0x81) & (third == 0x9F)  # U+205F
    three |= (lead == 0xE1) & (second == 0x9A) & (third == 0x80)  # U+1680
    return two, three


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

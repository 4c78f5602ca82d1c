"""The one exception every file reader raises (a message, no path: parse.py puts it at the
`file:` key), and the check every array read from a file passes: real, finite numbers, as
float64."""

from __future__ import annotations

import math

import numpy as np

from attncli.i18n import Count, Msg


class FileProblem(Exception):
    def __init__(self, message: Msg) -> None:
        super().__init__(message.msgid)
        self.message = message


def check_dtype(dtype: np.dtype, name: str) -> None:
    if dtype.kind not in "biuf":
        raise FileProblem(Msg.of("{name}: expected real numbers, found the data type {dtype}",
                                 name=name, dtype=str(dtype)))


def check_some_numbers(shape: tuple[int, ...], name: str) -> None:
    """Refuse an array of no numbers by its shape, before any list of its rows or columns is
    made: a header may say [0, 2⁶²] or [2⁴⁰, 0] of a file that holds nothing."""
    if math.prod(shape) == 0:
        raise FileProblem(Msg.of("{name} holds no numbers", name=name))


def as_float(array: np.ndarray, name: str) -> np.ndarray:
    check_dtype(array.dtype, name)
    check_some_numbers(array.shape, name)
    with np.errstate(over="ignore", invalid="ignore"):  # a longdouble past float64: inf, below
        values = array.astype(np.float64, copy=False)  # (same shape); float64 as it was read
        total = values.sum()  # finite when every number is: one pass, no n x m mask
    if not np.isfinite(total) and not np.isfinite(values).all():
        raise FileProblem(Msg.of("{name}: expected finite numbers, found inf or NaN", name=name))
    return values


def valid_indices(size: int) -> Msg:
    """The indices a user may write for `size` rows or columns, counted from 0."""
    if size == 1:
        return Msg.of("the only index is 0")
    return Msg.of("indices 0–{last}", last=Count(size - 1))


def row_out_of_range(index: int, name: str, size: int) -> FileProblem:
    """A row past the `size` rows of the array `name`: never read, whatever bytes follow it."""
    if size == 0:  # no index is valid, not "indices 0–−1"
        return FileProblem(Msg.of("{name} holds no numbers", name=name))
    has = Msg.plural_of("{name} has {count} row", "{name} has {count} rows", Count(size),
                        name=name)
    return FileProblem(Msg.of("index {index} is out of range: {has} ({valid})", index=index,
                              has=has, valid=valid_indices(size)))

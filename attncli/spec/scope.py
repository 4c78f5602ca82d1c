"""A ContextVar set for the length of a block and reset after it, however the block ends: the
state one run of attn shares while it reads (the files the specs of a document read, the names
one spec resolves, the files a spec names)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def scoped(var: ContextVar[T | None], value: T) -> Iterator[T]:
    """`var` holds `value` while the block runs, and what it held before after it."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


# True while the command line runs a command: its process ends with it, so what a run reads is
# kept until then (spec/source.py sets a large spec's objects aside from the garbage collector's
# walks). False in a notebook or a program that imports attn, whose objects outlive a spec.
ONE_RUN_PROCESS: ContextVar[bool | None] = ContextVar("one_run_process", default=None)

"""Reading a spec into a tree of `Node`s that remember where each value was written: the way in.

A `.json` file (or text that starts with `{` or `[`) is read by attncli/spec/json_source.py;
anything else is YAML, composed by the loader of attncli/spec/yaml_loader.py (which keeps line
and column marks, reads `1e-3` as a float as every reader means it, and stops at the cell and
depth limits) and built into Nodes by attncli/spec/yaml_tree.py, which keeps each scalar's text
so an error can say "you wrote `on`, which YAML reads as true". This module picks the reader and,
when composing fails, names the first problem and where it is: malformed YAML (PyYAML's words,
translated), too many values or too deep (attncli/spec/bounds.py). Reading the file itself is
attncli/spec/spec_text.py.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from attncli.errors import EmptySpec, Location, SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import YAML_PROBLEMS, yaml_problem
from attncli.spec.bounds import Measure, at_mark, prescan, too_many_keys, too_many_keys_expanded
from attncli.spec.limits import DEFAULT_MAX_CELLS, MAX_ALL_KEYS, max_texts, max_written
from attncli.spec.node import Node
from attncli.spec.scope import ONE_RUN_PROCESS
from attncli.spec.spec_text import LIMIT_HINT, STDIN, STDIN_NAME, byte_count, decode, read_text
from attncli.spec.yaml_loader import Loader, Overrun, TooManyKeys
from attncli.spec.yaml_tree import TreeBuilder

# the way in for the spec layer: what a spec reader needs, from the modules that hold it
__all__ = ["LIMIT_HINT", "STDIN", "STDIN_NAME", "Node", "byte_count", "decode", "is_json",
           "parse", "read_text"]


def is_json(name: str, text: str) -> bool:
    if name.lower().endswith(".json"):
        return True
    if name.lower().endswith((".yaml", ".yml")):
        return False
    return text.lstrip()[:1] in ("{", "[")


def utf8_text(name: str, text: str) -> str:
    """`text`, or SpecError at its first character that stands for no UTF-8 text: a byte that
    surrogateescape kept (a Latin-1 é in an attn block of a document, a file name's byte), or a
    lone surrogate, refused at its place as in a file. The C YAML parser raised
    UnicodeEncodeError on it: `attn fill` and the %%attn magic said 'internal error' (exit 3)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
        return decode(name, data)
    return text


def parse(name: str, text: str, max_cells: int = DEFAULT_MAX_CELLS) -> Node:
    """The document in `text` as a Node tree; SpecError with line:column if it is malformed,
    holds more than `max_cells` values (aliases expanded) or is nested too deep."""
    text = utf8_text(name, text)
    if is_json(name, text):  # read as JSON, which YAML is not quite (attncli/spec/json_source.py)
        from attncli.spec.json_source import parse_json

        with _collector_paused():
            return parse_json(name, text, max_cells)
    loader = Loader(text, max_cells)
    try:
        with _collector_paused():
            try:
                root = loader.get_single_node()
            except (yaml.YAMLError, Overrun):
                root = None
            except TooManyKeys as overrun:
                raise too_many_keys(at_mark(name, overrun.mark), overrun.one_mapping) from None
            if root is None:  # malformed, empty or past a limit: say which, and where
                return _parse_checked(name, text, max_cells)
            return _build(name, text, root, loader, max_cells)
    finally:
        loader.dispose()


# What libyaml (0.2.5 and newer, in PyYAML's wheels since 6.0.3) says of flow collections nested
# 1,000 deep, which it meets while scanning ahead, before the events that attn counts.
LIBYAML_NESTING = "exceeded maximum nesting depth"


def _parse_checked(name: str, text: str, max_cells: int) -> Node:
    """The document read event by event first, which builds nothing, so that the first problem
    in it is named (a malformed place, a value past the cell limit, nesting past MAX_DEPTH),
    then composed."""
    try:
        prescan(name, Loader(text), max_cells)
    except yaml.YAMLError as error:
        with _yaml_errors(name, text):
            if getattr(error, "problem", None) == LIBYAML_NESTING:  # its limit is past attn's:
                prescan(name, yaml.SafeLoader(text), max_cells)  # the Python parser names attn's
            raise
    loader = Loader(text)
    try:
        return _compose(name, text, loader, max_cells)
    finally:
        loader.dispose()


# Objects made while a spec was read past which they are set aside from the collector's walks.
FREEZE_AFTER = 10_000


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a document is read: a large matrix is
    hundreds of thousands of new objects, none of them garbage yet, which the collector would
    otherwise walk again and again (half the time of reading a 400 x 250 matrix)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if ONE_RUN_PROCESS.get() and gc.get_count()[0] > FREEZE_AFTER:
                # the objects read are the spec's, kept until the command ends (the command
                # line only: a notebook's kernel outlives its specs): with the
                # collector back on they would all be walked at the next allocation (0.11 s for
                # 150,000 lists, 0.17 s for 50,000 mappings), and never freed by it
                gc.freeze()
            gc.enable()


@contextmanager
def _yaml_errors(name: str, text: str) -> Iterator[None]:
    """PyYAML's errors as one-line SpecErrors at the line:column they name."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = yaml_problem((exc.problem or exc.context or "").strip())
        where = Location(name)
        if mark is not None:
            where = Location(name, line=mark.line + 1, column=mark.column + 1)
            if _tab_at(text, mark.line, mark.column):  # whatever the reader calls it
                problem = YAML_PROBLEMS["found a tab character that violates indentation"]
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=problem), where) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, e.g. NUL
        before = text[:exc.position]
        where = Location(name, line=before.count("\n") + 1,
                         column=exc.position - (before.rfind("\n") + 1) + 1)
        problem = yaml_problem(exc.reason)
        if isinstance(exc.character, int):
            problem = Msg.of("{problem} (U+{code})", problem=problem,
                             code=f"{exc.character:04X}")
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=problem), where) from None
    except yaml.YAMLError as exc:
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=yaml_problem(str(exc))),
                        Location(name)) from None


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML reader stopped at a tab: at the column it names, or in the indentation
    of that line (YAML indents with spaces only)."""
    lines = text.split("\n")
    if line >= len(lines):
        return False
    here = lines[line]
    indent = here[:len(here) - len(here.lstrip(" \t"))]
    return here[column:column + 1] == "\t" or "\t" in indent


def _compose(name: str, text: str, loader: Any, max_cells: int) -> Node:
    with _yaml_errors(name, text):
        try:
            root = loader.get_single_node()
        except TooManyKeys as overrun:
            raise too_many_keys(at_mark(name, overrun.mark), overrun.one_mapping) from None
    return _build(name, text, root, loader, max_cells)


def _build(name: str, text: str, root: yaml.Node | None, loader: Any,
           max_cells: int) -> Node:
    if root is None:
        raise EmptySpec(Msg.of("the spec is empty, expected a mapping of keys"), Location(name))
    if _unaliased(text, loader, max_cells):
        return TreeBuilder(name, loader, max_cells).build(root, "")
    size, _, keys, nodes = Measure(name).measure(root, 1)
    # a document without aliases makes at most the values it may write as Nodes (its texts have a
    # budget of their own); an alias repeats them (but a row of plain numbers), each costing as
    # much as a written one
    most = max_written(max_cells)
    if size > max_cells or nodes > most:
        # composed without the event walk (parse): the values as written may pass the limit
        # already, which is said first, as the walk says it
        prescan(name, Loader(text), max_cells)
        raise SpecError(
            Msg.plural_of("the spec holds {count} value once its aliases are expanded; the "
                          "limit is {limit}, which {option} sets", "the spec holds {count} "
                          "values once its aliases are expanded; the limit is {limit}, which "
                          "{option} sets", Count(size if size > max_cells else nodes),
                          limit=Count(max_cells if size > max_cells else most),
                          option=LIMIT_HINT),
            at_mark(name, root.start_mark),
        )
    if keys > MAX_ALL_KEYS:  # the keys as written were counted as they were composed
        raise too_many_keys_expanded(name, root.start_mark, keys)
    return TreeBuilder(name, loader, max_cells).build(root, "")


def _unaliased(text: str, loader: Any, max_cells: int) -> bool:
    """Whether the document composed by `loader` can hold no alias (it has no `*`) and its
    values and texts as counted while it was composed are within `max_cells`: then it is as
    large as it was written, its depth and keys were checked as it was composed, and Measure's
    second walk of every node (a sixth of the time of reading 150,000 lists) is not needed."""
    if loader.max_written is None or "*" in text:
        return False
    texts = max_texts(max_cells) - loader.texts_left
    return bool(loader.values + texts <= max_cells)

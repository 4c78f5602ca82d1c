"""A large `-x all` in text is written by several processes, each step's written-out cells (and
the reading) ahead of where the output is (attncli/render/ahead.py): the bytes must be those one
process writes, the parts must come back in order, and a reader that goes away must not leave
the command hanging."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from typer.testing import CliRunner

from attncli import build, loads_spec
from attncli.arithmetic.expand import Selection
from attncli.cli.app import app
from attncli.render import RenderOptions, ahead, render
from attncli.render.ahead import Ahead, written_ahead
from attncli.render.common import number_format, translator
from attncli.render.text import ended
from attncli.spec.examples import example_path
from attncli.workers import pool
from tests.conftest import attn_executable
from tests.test_elided_exports import large_spec

BIG = ("--max-cells", "100000000000")


def _part(k: int) -> str:
    time.sleep(0.05 * (3 - k))  # the later parts are done first
    return f"{k}:{os.getpid()}\n"


def test_parts_are_written_by_other_processes_and_come_back_in_order() -> None:
    parts = Ahead([lambda k=k: _part(k) for k in range(4)], jobs=2)  # type: ignore[misc]
    try:
        written = [parts.part(k) for k in range(4)]
    finally:
        parts.close()
    assert [line.split(":")[0] for line in written] == ["0", "1", "2", "3"]
    pids = {int(line.split(":")[1]) for line in written}
    assert os.getpid() not in pids and len(pids) == 2


@pytest.mark.parametrize(("fmt", "lang", "header"), [("text", "en", True), ("text", "pl", False),
                                                   ("rich", "ru", True), ("rich", "en", False)])
def test_written_ahead_the_document_is_the_same_bytes(fmt: str, lang: str, header: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    walkthrough = build(loads_spec(example_path().read_text()), Selection("all"))
    alone = render(walkthrough, fmt, lang, header=header)
    options = RenderOptions(lang=lang, jobs=2)
    number = number_format(walkthrough, options)
    t = translator(options, number)
    counted: list[int] = []
    monkeypatch.setattr(pool, "usable_processors", lambda: counted.append(2) or 2)
    assert written_ahead(walkthrough, options, number, t, "", ended) is None  # too few cells
    assert written_ahead(walkthrough, RenderOptions(lang=lang, jobs=None), number, t, "",
                         ended) is None
    assert counted == []  # the processors are counted only for a walkthrough worth them
    monkeypatch.setattr(ahead, "AHEAD_MIN", 1)
    assert len(written_ahead(walkthrough, RenderOptions(lang=lang, jobs=None), number, t, "",
                             ended).parts) == len(walkthrough.steps) + len(walkthrough.reading)
    assert written_ahead(walkthrough, RenderOptions(lang=lang, jobs=8), number, t, "",
                         ended).jobs == 2  # at most the processors attn may use
    parts = written_ahead(walkthrough, options, number, t, "", ended)
    assert parts is not None
    assert len(parts.parts) == len(walkthrough.steps) + len(walkthrough.reading)
    assert written_ahead(walkthrough, RenderOptions(lang=lang, jobs=1), number, t, "",
                         ended) is None
    assert render(walkthrough, fmt, lang, header=header, jobs=2) == alone
    assert "Σ" in alone and "\n\n\n" not in alone


def test_a_large_expand_all_is_the_same_with_any_number_of_jobs() -> None:
    spec = str(large_spec(48))

    def explain(*args: str) -> bytes:
        return subprocess.run([attn_executable(), "explain", spec, "--format", "text", "-x",
                               "all", *BIG, *args], capture_output=True, check=True).stdout

    one = explain("--jobs", "1")
    assert len(one) > 4_000_000 and one.count("S[t47, t47] = q_t47·k_t47 = ".encode()) == 4
    assert explain("--jobs", "2") == one
    assert explain("--jobs", "3") == one
    view = explain("--format", "rich", "--jobs", "1")  # the terminal view, piped
    assert view != one and explain("--format", "rich", "--jobs", "2") == view


def test_a_reader_that_goes_away_ends_the_command_at_once() -> None:
    process = subprocess.Popen([attn_executable(), "explain", str(large_spec(48)), "--format",
                                "text", "-x", "all", *BIG, "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert len(process.stdout.read(100_000)) == 100_000
    process.stdout.close()  # as `| head` does
    started = time.monotonic()
    assert process.wait(timeout=60) == 141
    assert time.monotonic() - started < 30
    assert process.stderr.read() == b""


def test_jobs_below_one_is_a_usage_error_for_explain() -> None:
    result = CliRunner().invoke(app, ["explain", "--jobs", "0", "--lang", "ru"])
    assert result.exit_code == 2
    assert result.stderr == "attn: --jobs: ожидается целое число не меньше 1, получено: 0\n"

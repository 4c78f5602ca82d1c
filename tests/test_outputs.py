"""Where attn writes: a full or closed stdout, `-o` onto what is not a regular file, two outputs
that are one file, SIGTERM and SIGHUP in the middle of a write, and click's usage errors: one
line and exit 2 (or the signal's exit code), no traceback, nothing left behind.

Root bypasses file permissions, so these use what it cannot: /dev/full, closed descriptors,
character devices, FIFOs, folders and signals.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from pathlib import Path

import pytest

from attncli.files import writing
from tests.conftest import attn_executable, run


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", command], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "ATTN": attn_executable()})


def test_a_full_stdout_is_one_line(tmp_path: Path) -> None:
    result = shell('"$ATTN" explain > /dev/full', tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "attn: cannot write to standard output: no space left on the disk\n")


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "attn: cannot write to standard output: it is closed\n"),
    ("pl", "attn: nie można pisać na standardowe wyjście: jest zamknięte\n"),
    ("ru", "attn: не удаётся писать в\u00a0стандартный вывод: он закрыт\n"),
])
@pytest.mark.parametrize("command", ["explain", "export --latex", "--help", "--version",
                                     "explain --help", "schema"])
def test_a_closed_stdout_is_one_line_in_attns_words(command: str, lang: str, line: str,
                                                     tmp_path: Path) -> None:
    """Not the system's "Bad file descriptor", which no Polish or Russian reader asked for; the
    help and the version, which Click printed to nothing and exited 0, are refused alike."""
    result = shell(f'"$ATTN" {command} --lang {lang} >&-', tmp_path)
    assert (result.returncode, result.stderr) == (2, line)


def test_a_closed_pipe_is_one_line(tmp_path: Path) -> None:
    result = shell('"$ATTN" export --json | head -c 1 > /dev/null', tmp_path)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") <= 1


@pytest.mark.parametrize("args", [
    ["explain", "configs/cat_chases_mouse.yaml", "-x", "all"],
    ["export", "--json"],
    ["check", "--step", "weights", "--answer", "1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"],
])
def test_a_pipe_whose_reader_is_gone_ends_quietly_with_141(args: list[str]) -> None:
    """`attn explain | head -1`: the reader closing its end is not bad input. Here the read end
    is closed before attn writes, so the write fails every time (with `head`, only when the
    output outlasts the pipe's buffer)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([attn_executable(), *args], stdout=write_end,
                                capture_output=False, stderr=subprocess.PIPE, text=True,
                                timeout=60, cwd=Path(__file__).resolve().parent.parent)
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (128 + signal.SIGPIPE, "")


@pytest.mark.parametrize("args", [["explain", "--bogus", "\x1b[2J"], ["explain", "a", "b"],
                                  ["export", "-f"]])
def test_usage_errors_are_one_line_with_the_input_visible(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "\x1b" not in result.stderr
    assert result.stderr.startswith("attn: ")  # the shape of every attn error (issue 21)
    assert result.stderr.endswith(f" (see attn {args[0]} --help)\n")


def test_output_onto_a_device_is_refused(tmp_path: Path) -> None:
    result = run("export", "--latex", "-o", "/dev/null")
    assert (result.exit_code, result.stderr) == (
        2, "attn: cannot write /dev/null: this is a device, expected a regular file\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)  # still the device


def test_output_onto_a_fifo_a_folder_or_a_name_ending_in_a_slash_is_refused(
        tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    for target, reason in [("pipe", "this is a named pipe (FIFO), expected a regular file"),
                           ("folder", "this is a folder, expected a regular file"),
                           ("newdir/", "expected a file name, found a folder")]:
        path = f"{tmp_path}/{target}"
        result = run("export", "--latex", "-o", path)
        assert (result.exit_code, result.stderr) == (2, f"attn: cannot write {path}: {reason}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "pipe"]
    assert (tmp_path / "pipe").is_fifo()


def test_two_outputs_that_are_one_file_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "x.svg"
    result = run("export", "--svg", "-o", str(out), "--heatmap", str(tmp_path / "." / "x.svg"))
    assert (result.exit_code, result.stderr) == (
        2, f"attn: --output and --heatmap name the same file {out}; choose two files\n")
    assert not out.exists()


def test_output_through_a_link_writes_the_file_it_points_to(tmp_path: Path) -> None:
    (tmp_path / "real.tex").write_text("old\n")
    (tmp_path / "link.tex").symlink_to("real.tex")
    assert run("export", "--latex", "-o", str(tmp_path / "link.tex")).exit_code == 0
    assert (tmp_path / "link.tex").is_symlink()  # the link kept, deliberately written through
    assert (tmp_path / "real.tex").read_text().startswith("%")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.tex", "real.tex"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_write_leaves_no_temporary_file(signum: int, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.tex"
    target.write_text("old\n")
    real_fsync = os.fsync

    def interrupted(fd: int) -> None:  # the new text is written, not yet named: now the signal
        assert os.fstat(fd).st_ino != target.stat().st_ino  # a file of its own, not out.tex
        assert target.read_text() == "old\n"
        os.kill(os.getpid(), signum)
        real_fsync(fd)

    monkeypatch.setattr(writing.os, "fsync", interrupted)
    before = signal.getsignal(signum)  # SIG_IGN for SIGHUP under nohup
    result = run("export", "--latex", "-o", str(target))
    assert result.exit_code == 128 + signum
    assert [p.name for p in tmp_path.iterdir()] == ["out.tex"]
    assert target.read_text() == "old\n"
    assert signal.getsignal(signum) == before  # the handler attn put in place is gone


def test_an_answer_key_on_the_worksheet_itself_is_refused(tmp_path: Path) -> None:
    """-o sheet.md --answers sheet.md would leave the key where the sheet should be; refused
    before any work, naming both options (not "the input")."""
    out = tmp_path / "sheet.md"
    result = run("export", "--markdown", "--worksheet", "-o", str(out), "--answers", str(out))
    assert (result.exit_code, result.stderr) == (
        2, f"attn: --output and --answers name the same file {out}; choose two files\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "line"), [
    ("--help", "attn: cannot write to standard output: no space left on the disk\n"),
    ("--version", "attn: cannot write to standard output: no space left on the disk\n"),
    ("--lang ru export --help",
     "attn: не удаётся писать в\u00a0стандартный вывод: на диске не осталось места\n"),
])
def test_help_and_version_onto_a_full_disk_are_one_line(args: str, line: str,
                                                        tmp_path: Path) -> None:
    """Click writes --help and --version itself: onto /dev/full they were a traceback and
    exit 1, where every command's output is one line and exit 2."""
    result = shell(f'"$ATTN" {args} > /dev/full', tmp_path)
    assert (result.returncode, result.stderr) == (2, line)


@pytest.mark.parametrize("args", ["explain --steps nope", "explain nosuch.yaml",
                                  "explain --width x", "--lang ru explain --head q"])
def test_a_refusal_onto_a_full_stderr_still_exits_2(args: str, tmp_path: Path) -> None:
    """The line cannot be written (stderr is /dev/full): attn tried to say so on stderr again,
    and Python ended with exit 1 and a traceback written nowhere, exit 1 being attn check's
    "a number is wrong". Nobody can be told; the exit code, 2, still says "bad input"."""
    result = shell(f'"$ATTN" {args} 2> /dev/full', tmp_path)
    assert (result.returncode, result.stdout) == (2, "")


@pytest.mark.parametrize("option", ["--heatmap -", "--worksheet --answers -"])
def test_a_closed_stdout_is_said_before_a_file_beside_it_is_written(option: str,
                                                                     tmp_path: Path) -> None:
    # `-o x.md --heatmap -` with stdout closed wrote x.md whole, then refused the heatmap: the
    # refusal now comes first, and nothing is written
    result = shell(f'"$ATTN" export --markdown -o x.md {option} >&-', tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "attn: cannot write to standard output: it is closed\n")
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("stdout", [">&-", "> /dev/full"])
@pytest.mark.parametrize("options", ["--latex --heatmap h.svg", "--latex -o f.tex --heatmap -",
                                     "--markdown --worksheet --answers k.md",
                                     "--latex --worksheet -o w.tex --answers -"])
def test_a_stdout_that_takes_nothing_refuses_before_a_file_beside_it_is_written(
        options: str, stdout: str, tmp_path: Path) -> None:
    # the document on stdout and the heatmap or answers in a file (or the other way round): the
    # file was written whole, then stdout refused; a full stdout is found only by writing to it,
    # so stdout is written first and the files after it
    result = shell(f'"$ATTN" export {options} {stdout}', tmp_path)
    reason = "it is closed" if stdout == ">&-" else "no space left on the disk"
    assert (result.returncode, result.stderr) == (
        2, f"attn: cannot write to standard output: {reason}\n")
    assert sorted(os.listdir(tmp_path)) == []


def test_a_document_on_stdout_and_its_heatmap_in_a_file_are_both_written(tmp_path: Path) -> None:
    result = shell('"$ATTN" export --latex --heatmap h.svg > out.tex', tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.tex").read_text(encoding="utf-8").startswith("% attn export --latex")
    assert (tmp_path / "h.svg").read_text(encoding="utf-8").startswith("<svg")


@pytest.mark.parametrize("letter", ["a", "ł"])  # 244 bytes: 240 + .tex, 120 two-byte letters + 4
def test_a_name_the_system_takes_is_written_whatever_its_length(letter: str,
                                                                tmp_path: Path) -> None:
    # the temporary file beside it was named `.{name}.XXXXXXXX.tmp`, 14 bytes longer: past 255
    # ('the name is too long') for any name of 242 bytes or more that the system itself takes
    name = letter * (240 // len(letter.encode())) + ".tex"
    assert len(name.encode()) == 244
    assert run("export", "--latex", "-o", str(tmp_path / name)).exit_code == 0
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("%")
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("command", ["snippets --diff", "fill post.md --diff"])
def test_a_closed_stdout_is_said_before_the_diffs_are_worked(command: str,
                                                              tmp_path: Path) -> None:
    # every missing snippet (or unfilled block) was listed on stderr first, then the diffs met
    # the closed stdout: one line now, before any work
    spec = Path(__file__).resolve().parent.parent / "configs" / "cat_chases_mouse.yaml"
    (tmp_path / "s.yaml").write_text(spec.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "attn.toml").write_text(
        '[[snippets]]\nspecs = "s.yaml"\nformats = ["markdown", "json"]\n'
        'languages = ["en", "pl"]\noutput = "out/{lang}/{name}.{ext}"\n', encoding="utf-8")
    (tmp_path / "post.md").write_text("```attn\nspec: s.yaml\n```\n", encoding="utf-8")
    before = sorted(os.listdir(tmp_path))
    result = shell(f'"$ATTN" {command} >&-', tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "attn: cannot write to standard output: it is closed\n")
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize(("command", "stream"), [
    ('"$ATTN" export --json -o /dev/stdout >> log.txt', "output"),
    ('"$ATTN" export --json -o log.txt >> log.txt', "output"),
    ('"$ATTN" export --heatmap /dev/stderr 2>> log.txt', "error")])
def test_a_file_a_standard_stream_adds_to_is_never_written_over(command: str, stream: str,
                                                                 tmp_path: Path) -> None:
    # `>> log.txt` asks for the output after the log's lines; -o renamed a new file over the
    # log (its lines gone, and a process holding it open writing to a deleted file)
    log = tmp_path / "log.txt"
    log.write_text("line 1 of a log kept for a week\n", encoding="utf-8")
    inode = log.stat().st_ino
    result = shell(command, tmp_path)
    said = log.read_text(encoding="utf-8").split("\n", 1)
    assert result.returncode == 2
    assert said[0] == "line 1 of a log kept for a week" and log.stat().st_ino == inode
    name = command.split(" -o ")[-1].split(" --heatmap ")[-1].split()[0]
    line = (f"attn: cannot write {name}: this is the file standard {stream} goes to, expected a "
            "file of its own\n")
    assert (result.stderr if stream == "output" else said[1]) == line
    assert sorted(os.listdir(tmp_path)) == ["log.txt"]

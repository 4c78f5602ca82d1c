"""`-` (standard input) when there is none to read: a shell's `<&-` starts attn with descriptor
0 closed (Python then has no sys.stdin), `0>FILE` with one open only for writing. Either was
exit 3, "internal error" (AttributeError, OSError EBADF); it is a spec or answer file that
cannot be read: one line at `<stdin>`, exit 2."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import attn_executable

ROOT = Path(__file__).resolve().parent.parent
SPEC = "configs/cat_chases_mouse.yaml"


def closed() -> None:
    os.close(0)


@pytest.mark.parametrize("args", [
    ("explain", "-"),
    ("validate", "-"),
    ("check", SPEC, "--answer", "-"),
    ("check", "-", "--step", "weights", "--answer", "1"),
])
@pytest.mark.parametrize(("how", "lang", "line"), [
    ("closed", "en", "<stdin>: standard input is closed or not open for reading"),
    ("write_only", "ru", "<stdin>: стандартный ввод закрыт или не открыт для чтения"),
])
def test_standard_input_closed_or_write_only_is_one_line_exit_2(
        tmp_path: Path, args: tuple[str, ...], how: str, lang: str, line: str) -> None:
    env = {**os.environ, "ATTN_LANG": lang}
    with open(tmp_path / "w", "wb") as write_only:
        result = subprocess.run(
            [attn_executable(), *args], cwd=ROOT, capture_output=True, env=env, timeout=60,
            stdin=write_only if how == "write_only" else None,
            preexec_fn=closed if how == "closed" else None)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().splitlines()[0] == line
    assert (tmp_path / "w").read_bytes() == b""


@pytest.mark.parametrize("args", [
    ("explain", "-", "--format", "text", "--steps", "weights", "--no-header", "--no-reading"),
    ("check", "-", "--step", "weights", "--answer", "1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"),
])
def test_a_spec_from_standard_input_in_a_deleted_folder(tmp_path: Path, args: tuple[str, ...],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd d; rmdir ../d; attn explain - < spec`: the folder a spec from standard input names its
    files from has no path; asking for it was exit 3, internal error (FileNotFoundError)."""
    from tests.conftest import run

    spec = (ROOT / SPEC).read_text(encoding="utf-8")
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path / "d")
    (tmp_path / "d").rmdir()
    result = run(*args, input=spec)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.endswith(("A[mouse, cat] = 1.76 / 4.45 = 0.40\n   A[mouse, chases] = "
                                   "1.12 / 4.45 = 0.25\n   A[mouse, mouse] = 1.57 / 4.45 = 0.35\n",
                                   "A: right to your precision (all 9 numbers).\n"))
    result = run("explain", "-", "--lang", "pl",
                 input="tokens: [a, b]\nembeddings: {file: e.csv}\n")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("<stdin>:2:20: embeddings.file: e.csv: nie można odczytać liczb: "
                             "nie ma takiego pliku ani katalogu\n")

"""Side-by-side benchmark of attn: each case runs A and B alternately, several times, in fresh
processes, and reports the medians and the ratio A/B against its target.

    python benchmarks/run.py                 # every case, 5 rounds each
    python benchmarks/run.py --rounds 9 --cases start,help

Timings drift between runs and machines; the ratios are the figures. Peak memory is the child's
own maximum resident set size (os.wait4), so A and B are measured alike. Nothing here is a test:
the suite never times anything.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable


def attn_command() -> list[str]:
    script = Path(PYTHON).parent / "attn"
    return [str(script)] if script.exists() else [PYTHON, "-m", "attncli"]


@dataclass
class Sample:
    seconds: float
    peak_mib: float


def measure(command: list[str], cwd: Path | None = None) -> Sample:
    """Wall time and peak memory of one run of `command` (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {command}\n{err}")
    if proc.stderr:
        proc.stderr.close()
    return Sample(seconds, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


@dataclass
class Case:
    name: str
    a: list[str]
    b: list[str]
    target_time: float
    target_memory: float | None = None
    note: str = ""
    a_samples: list[Sample] = field(default_factory=list)
    b_samples: list[Sample] = field(default_factory=list)

    def run(self, rounds: int, cwd: Path) -> None:
        measure(self.a, cwd)  # warm the file cache for both sides alike
        measure(self.b, cwd)
        for _ in range(rounds):
            self.a_samples.append(measure(self.a, cwd))
            self.b_samples.append(measure(self.b, cwd))

    def medians(self) -> tuple[float, float, float, float]:
        return (
            statistics.median(s.seconds for s in self.a_samples),
            statistics.median(s.seconds for s in self.b_samples),
            statistics.median(s.peak_mib for s in self.a_samples),
            statistics.median(s.peak_mib for s in self.b_samples),
        )


def write_big_yaml(folder: Path, n: int = 400, d: int = 250) -> Path:
    """A spec whose embeddings are an n x d matrix written out in YAML."""
    import random

    rng = random.Random(0)
    path = folder / "big.yaml"
    with path.open("w", encoding="utf-8") as f:
        f.write("tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\nembeddings:\n")
        for _ in range(n):
            f.write("  - [" + ", ".join(f"{rng.uniform(-1, 1):.4f}" for _ in range(d)) + "]\n")
    return path


def help_imports_nothing_heavy() -> str:
    probe = ("import sys\nfrom attncli.cli import main\nsys.argv = ['attn', '--help']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(','.join(m for m in ('numpy', 'yaml') if m in sys.modules) or 'none')\n")
    out = subprocess.run([PYTHON, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[-1]


def cases(work: Path) -> dict[str, Callable[[], Case]]:
    attn = attn_command()
    big = write_big_yaml(work)
    return {
        "start": lambda: Case(
            "start", [*attn, "explain", "--format", "text"],
            [PYTHON, "-c", "import numpy, yaml, typer, rich.console, rich.table"], 1.3,
            note="attn explain (bundled example) vs importing its libraries"),
        "help": lambda: Case(
            "help", [*attn, "--help"], [PYTHON, "-c", "import typer"], 1.5,
            note=f"heavy modules imported by --help: {help_imports_nothing_heavy()}"),
        "big_yaml": lambda: Case(
            "big_yaml", [*attn, "explain", str(big), "--format", "text"],
            [PYTHON, "-c", "import yaml, sys; yaml.load(open(sys.argv[1]), "
             "Loader=yaml.CSafeLoader)", str(big)], 1.3,
            note="explain of a 400x250 YAML matrix vs yaml.load with the C loader"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        table = cases(work)
        chosen = [c for c in args.cases.split(",") if c] or list(table)
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}, {platform.system()}; rounds: {args.rounds}")
        print(f"{'case':<12}{'A s':>9}{'B s':>9}{'A/B':>7}{'target':>8}"
              f"{'A MiB':>8}{'B MiB':>8}{'mem A/B':>9}  verdict")
        failed = False
        for name in chosen:
            case = table[name]()
            case.run(args.rounds, work)
            a, b, ma, mb = case.medians()
            ratio, mem_ratio = a / b, ma / mb
            ok = ratio <= case.target_time and (
                case.target_memory is None or mem_ratio <= case.target_memory)
            failed |= not ok
            print(f"{name:<12}{a:>9.3f}{b:>9.3f}{ratio:>7.2f}{case.target_time:>8.2f}"
                  f"{ma:>8.0f}{mb:>8.0f}{mem_ratio:>9.2f}  {'ok' if ok else 'OVER'}"
                  f"  ({case.note})")
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

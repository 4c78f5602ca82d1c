"""The example specs bundled with attn (the `configs/` folder of the source tree)."""

from __future__ import annotations

from pathlib import Path

DEFAULT_EXAMPLE = "cat_chases_mouse"


def examples_dir() -> Path:
    installed = Path(__file__).parent / "configs"  # inside a wheel
    if installed.is_dir():
        return installed
    return Path(__file__).parent.parent / "configs"  # a source checkout


def example_path(name: str = DEFAULT_EXAMPLE) -> Path:
    return examples_dir() / f"{name}.yaml"

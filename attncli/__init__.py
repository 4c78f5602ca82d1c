"""attn: worked examples of transformer attention, step by step.

    from attncli import load_spec, build, render
    print(render(build(load_spec("spec.yaml")), format="text", lang="en"))

The names are imported on first use, so that `attn --help` never loads NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attncli.render import render
    from attncli.spec import load_spec, loads_spec
    from attncli.walkthrough import build

__all__ = ["build", "load_spec", "loads_spec", "render"]

_HOMES = {
    "load_spec": "attncli.spec",
    "loads_spec": "attncli.spec",
    "build": "attncli.walkthrough",
    "render": "attncli.render",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'attncli' has no attribute {name!r}")

"""attn: worked examples of transformer attention, step by step.

    from attncli import load_spec, build, render
    print(render(build(load_spec("spec.yaml")), format="text", lang="en"))

`load_spec` and `build` are imported on first use, so that `attn --help` never loads NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# `render` is both a subpackage and the API function: binding the function here, after the
# subpackage is imported, makes `attncli.render` the function (the subpackage stays importable
# as `attncli.render.text` etc. through sys.modules). attncli.render imports nothing heavy.
from attncli.render import render

if TYPE_CHECKING:
    from attncli.spec import load_spec, loads_spec
    from attncli.walkthrough import build

__all__ = ["build", "load_spec", "loads_spec", "render"]

_HOMES = {
    "load_spec": "attncli.spec",
    "loads_spec": "attncli.spec",
    "build": "attncli.walkthrough",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'attncli' has no attribute {name!r}")

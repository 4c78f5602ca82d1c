"""attn: worked examples of transformer attention, step by step.

    from attncli import load_spec, build, render
    print(render(build(load_spec("spec.yaml")), format="text", lang="en"))

    import attncli  # from arrays, in a notebook (docs/jupyter.md)
    w = attncli.walkthrough_of(tokens=["cat", "chases", "mouse"], X=E, mask="causal")
    w["A"]  # the attention weights as a NumPy array

Everything but `render` and the errors is imported on first use, so that `import attncli` and
`attn --help` never load NumPy. In IPython and Jupyter, `%load_ext attncli` adds the `%%attn`
cell magic (attncli/fill/magic.py).
"""

from __future__ import annotations

import sys

try:
    from typing import TYPE_CHECKING, Any

    # `render` is both a subpackage and the API function: binding the function here, after the
    # subpackage is imported, makes `attncli.render` the function (the subpackage stays
    # importable as `attncli.render.text` etc. through sys.modules). attncli.render imports
    # nothing heavy.
    from attncli.errors import AttnError, SpecError, UsageError
    from attncli.render import render
except KeyboardInterrupt:
    # Ctrl-C while the `attn` command imports its package (about 45 ms, before attncli.cli's
    # `main` can catch it) ends the command as Ctrl-C ends a run: exit 130, no traceback. A
    # program importing attn gets its KeyboardInterrupt as it would from any import.
    if sys.argv and sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] in ("attn", "attn.exe"):
        raise SystemExit(130) from None
    raise

if TYPE_CHECKING:
    from attncli.library import build, load_spec, loads_spec, spec_of, walkthrough_of
    from attncli.model import Walkthrough

__all__ = ["AttnError", "SpecError", "UsageError", "Walkthrough", "build", "load_ipython_extension",
           "load_spec", "loads_spec", "render", "spec_of", "walkthrough_of"]

_HOMES = {
    "load_spec": "attncli.library",
    "loads_spec": "attncli.library",
    "build": "attncli.library",
    "walkthrough_of": "attncli.library",
    "spec_of": "attncli.library",
    "Walkthrough": "attncli.model",
}


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext attncli`: the `%%attn` cell magic; NumPy is imported when a cell first runs."""
    from attncli.fill.magic import register

    register(ipython)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'attncli' has no attribute {name!r}")

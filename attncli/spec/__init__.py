"""Reading and checking specs: the file formats (YAML, JSON, .npy, .safetensors, checkpoint
folders), one module per spec section, the schema, the limits and the bundled examples.

`load_spec` and `loads_spec` (spec/loading.py) are imported on first use, so that the light
modules of this package (limits, view) cost the command line nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attncli.spec.loading import load_spec, loads_spec
    from attncli.spec.model import Spec

_HOMES = {"load_spec": "attncli.spec.loading", "loads_spec": "attncli.spec.loading",
          "Spec": "attncli.spec.model"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Spec", "load_spec", "loads_spec"]

"""Which tensor of a saved model and which field of its config.json is which key of a spec, one
function per architecture (`model_type`), for attncli/spec/model_folder.py.

Each gives the keys of the layer as plain values: a matrix is `{file, key, rows, columns}` of the
checkpoint, so that the spec reads it through the bounded reader like a key written by hand. A
PyTorch `Linear` keeps its weight as (out, in), which is attn's column convention; GPT-2's
`Conv1D` keeps (in, out), the row convention.
"""

from __future__ import annotations

from collections.abc import Callable

from attncli.records import record
from attncli.spec.arch_keys import Checkpoint, Keys
from attncli.spec.arch_latent import deepseek_v3
from attncli.spec.arch_learned import bert, gpt2
from attncli.spec.arch_rotary import gemma2, gpt_oss, llama
from attncli.spec.arch_vit import vit

__all__ = ["ARCHITECTURES", "Architecture", "Checkpoint"]


@record
class Architecture:
    """How one `model_type` is read: its config's count of layers, its tensors' prefixes, and
    the keys of one layer."""

    layers_key: str
    prefixes: tuple[str, ...]
    keys: Callable[[Checkpoint], Keys]
    deep: bool = False  # whether attn works out whole layers, to reach a layer past the first
    experts_key: str | None = None  # its config's count of experts in each layer's mixture


LLAMA = Architecture("num_hidden_layers", ("model.", ""), llama, deep=True)
ARCHITECTURES: dict[str, Architecture] = {
    "llama": LLAMA,
    "mistral": LLAMA,
    "qwen3": LLAMA,
    "gpt2": Architecture("n_layer", ("transformer.", ""), gpt2, deep=True),
    "bert": Architecture("num_hidden_layers", ("bert.", ""), bert, deep=True),
    "gemma2": Architecture("num_hidden_layers", ("model.", ""), gemma2, deep=True),
    "gpt_oss": Architecture("num_hidden_layers", ("model.", ""), gpt_oss, deep=True,
                            experts_key="num_local_experts"),
    "deepseek_v3": Architecture("num_hidden_layers", ("model.", ""), deepseek_v3),
    # the image is the input of the first layer only: a later layer's is not worked out yet
    "vit": Architecture("num_hidden_layers", ("vit.", ""), vit),
}

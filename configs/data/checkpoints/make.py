"""The tiny checkpoints that configs/gpt2_head.yaml and configs/bert_head.yaml read: a GPT-2- and
a BERT-shaped model with random weights (seeded), saved by `transformers` as model.safetensors,
and a word-level tokenizer.json for each. Run it again to remake them (needs torch,
transformers and tokenizers):

    python configs/data/checkpoints/make.py [FOLDER]

tests/test_checkpoints.py builds the same models in a temporary folder and checks that attn
reproduces their own attention from these files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

WORDS = ["the", "cat", "chases", "a", "mouse", "dog", "sees", "bird", "sleeps", "runs"]
SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]"]
D_MODEL, HEADS, POSITIONS = 8, 2, 16


def tokenizer(with_specials: bool) -> Any:
    """A tokenizer that cuts on spaces; BERT's adds [CLS] ... [SEP] around the text."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {word: i for i, word in enumerate(SPECIALS + WORDS)}
    made = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    made.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if with_specials:
        made.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    return made


def gpt2(seed: int = 1) -> Any:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(SPECIALS + WORDS), n_positions=POSITIONS,
                        n_embd=D_MODEL, n_layer=1, n_head=HEADS, bos_token_id=0,
                        eos_token_id=0, attn_implementation="eager")
    return GPT2LMHeadModel(config).to(torch.float64).eval()


def bert(seed: int = 2) -> Any:
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(SPECIALS + WORDS), hidden_size=D_MODEL,
                        num_hidden_layers=1, num_attention_heads=HEADS, intermediate_size=16,
                        max_position_embeddings=POSITIONS, type_vocab_size=1,
                        attn_implementation="eager")
    model = BertModel(config).to(torch.float64).eval()
    with torch.no_grad():  # attn has no token types: their one embedding is zero here
        model.embeddings.token_type_embeddings.weight.zero_()
    return model


def save(model: Any, folder: Path) -> None:
    """model.safetensors only (config.json names the transformers version that wrote it)."""
    import tempfile

    with tempfile.TemporaryDirectory() as temporary:
        model.save_pretrained(temporary, safe_serialization=True)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "model.safetensors").write_bytes(
            (Path(temporary) / "model.safetensors").read_bytes())


def make(folder: Path) -> None:
    save(gpt2(), folder / "gpt2")
    tokenizer(False).save(str(folder / "gpt2" / "tokenizer.json"))
    save(bert(), folder / "bert")
    tokenizer(True).save(str(folder / "bert" / "tokenizer.json"))


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)

"""A large causal spec for the output-size benchmarks: n tokens, d_model 64, 4 heads, W_Q, W_K,
W_V and W_O drawn with a fixed seed, written as YAML (the same bytes on every machine).

    python benchmarks/large_spec.py 256 > large256.yaml
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

D_MODEL, HEADS = 64, 4


def _matrix(rng: random.Random, rows: int, columns: int, scale: float) -> str:
    return "".join("    - [" + ", ".join(f"{rng.gauss(0, scale):.4f}" for _ in range(columns))
                   + "]\n" for _ in range(rows))


def large_spec(n: int, seed: int = 19) -> str:
    """The YAML of an n-token, d_model 64, 4-head causal spec with W_O."""
    rng = random.Random(seed)
    embeddings = "".join("  - [" + ", ".join(f"{rng.gauss(0, 1):.4f}" for _ in range(D_MODEL))
                         + "]\n" for _ in range(n))
    weights = "".join(f"  {name}:\n" + _matrix(rng, D_MODEL, D_MODEL, D_MODEL ** -0.5)
                      for name in ("W_Q", "W_K", "W_V", "W_O"))
    return (f"title: {n} tokens, d_model {D_MODEL}, {HEADS} heads, causal, random weights\n"
            "tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\n"
            f"embeddings:\n{embeddings}heads: {HEADS}\nweights:\n{weights}mask: causal\n")


def write_large_spec(folder: Path, n: int) -> Path:
    path = folder / f"large{n}.yaml"
    path.write_text(large_spec(n), encoding="utf-8")
    return path


if __name__ == "__main__":
    sys.stdout.write(large_spec(int(sys.argv[1]) if len(sys.argv) > 1 else 256))

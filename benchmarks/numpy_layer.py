"""The floor of the real-size case: one multi-head attention layer in plain NumPy, float64.

    python benchmarks/numpy_layer.py FOLDER HEADS

reads x.npy (n x d_model), w_q.npy, w_k.npy, w_v.npy and w_o.npy (d_model x d_model, the row
convention: Q = X·W_Q) from FOLDER and computes what `attn explain` computes for the same spec:
per head Q, K, V from its block of columns, S = Q·Kᵀ / √d_k, the causal mask, a row-wise softmax,
Z = A·V; then O = Concat(Z_1, ..., Z_h)·W_O. It prints the checksum of O, so the work is done.
"""

import sys
from pathlib import Path

import numpy as np

folder, heads = Path(sys.argv[1]), int(sys.argv[2])
x = np.load(folder / "x.npy")  # (n, d_model)
w_q, w_k, w_v, w_o = (np.load(folder / f"w_{name}.npy") for name in "qkvo")  # (d_model, d_model)
n, d_model = x.shape
d_k = d_model // heads
hidden = ~np.tri(n, n, dtype=bool)  # (n, n): key j after query i
z = np.empty((n, d_model))  # (n, h·d_v)
for h in range(heads):
    cols = slice(h * d_k, (h + 1) * d_k)
    q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]  # (n, d_k) each
    s = q @ k.T / np.sqrt(d_k)  # (n, n)
    s[hidden] = -np.inf
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, n)
    a = e / e.sum(axis=1, keepdims=True)  # (n, n)
    z[:, cols] = a @ v  # (n, d_v)
o = z @ w_o  # (n, d_model)
print(f"{o.sum():.6f}")

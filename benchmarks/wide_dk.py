"""The floor of the wide_dk case: three tokens with d_k = 2,400,000 in plain NumPy, float64.

    python benchmarks/wide_dk.py SPEC.yaml   # writes the spec attn explains (wide_dk.yaml)
    python benchmarks/wide_dk.py             # the same work: A = softmax(Q·Kᵀ / √d_k)

draws W_Q and W_K (2 x d_k) as the spec's `random: {seed: 1}` and `{seed: 2}` draw them, makes
Q and K (3 x d_k), the 3 x 3 scores, and the weights; it prints A's checksum, so the work is done.
The matrices held are the floor of attn's memory: W_Q and W_K (77 MB), Q and K (115 MB).
"""

import sys

import numpy as np

D_K = 2_400_000
SPEC = f"""\
tokens: [a, b, c]
embeddings: [[1, 0], [0, 1], [1, 1]]
weights:
  W_Q: {{random: {{seed: 1}}, shape: [2, {D_K}]}}
  W_K: {{random: {{seed: 2}}, shape: [2, {D_K}]}}
  W_V: {{random: {{seed: 3}}, shape: [2, 1]}}
"""

if __name__ == "__main__":
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as spec:
            spec.write(SPEC)
        sys.exit()
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (n, d_model)
    w_q = np.random.default_rng(1).normal(0.0, 1.0, (2, D_K))  # (d_model, d_k)
    w_k = np.random.default_rng(2).normal(0.0, 1.0, (2, D_K))  # (d_model, d_k)
    q, k = x @ w_q, x @ w_k  # (n, d_k) each
    s = q @ k.T / np.sqrt(D_K)  # (n, n)
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, n)
    print((e / e.sum(axis=1, keepdims=True)).sum())

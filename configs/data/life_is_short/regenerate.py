"""Writes the arrays of the "Life is short, eat dessert first" examples, drawn exactly as the
self-attention notebook draws them (torch.manual_seed(123), float32). Needs torch; run it here.
The two specs that read these files work without torch."""

import numpy as np
import torch

words = "Life is short, eat dessert first".replace(",", "").split()
index = {word: i for i, word in enumerate(sorted(words))}
torch.manual_seed(123)
embed = torch.nn.Embedding(6, 16)
E = embed(torch.tensor([index[w] for w in words])).detach()
torch.manual_seed(123)
W_query, W_key, W_value = torch.rand(24, 16), torch.rand(24, 16), torch.rand(28, 16)
heads = {"Q": torch.rand(3, 24, 16), "K": torch.rand(3, 24, 16), "V": torch.rand(3, 28, 16)}
np.save("embeddings.npy", E.numpy())
np.save("W_query.npy", W_query.numpy())
np.save("W_key.npy", W_key.numpy())
np.save("W_value.npy", W_value.numpy())
np.savez_compressed("heads.npz", **{
    f"W_{name}_{h + 1}": w[h].numpy() for name, w in heads.items() for h in range(3)
})

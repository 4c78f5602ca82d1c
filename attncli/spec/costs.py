"""What the walkthrough of a spec will cost, from its shapes alone, before any of it is worked:
the numbers it computes (each held, at least a block of rows at a time) and the products its
matrix multiplications take (the time: a BERT-base-size attention layer of 2,048 tokens takes
about 11 billion, worked in about a second). Both are charged against the cell limit
(attncli/spec/arrays.py Budget, attncli/spec/limits.py) as the spec is read."""

from __future__ import annotations

from attncli.spec.model import MatrixMask, PaddingMask, Spec, WindowMask

# Passes over a head's n x m scores that a feature adds, each counted as numbers computed: an
# entry of tanh or of a mask's comparisons costs more than a plain score, so it counts as several.
# Measured on 4,096 tokens of d_model 4, two heads and a causal mask (the walkthrough of
# `attn validate`, CPU time, least of five): plain attention 0.80 s for 134.3 million numbers, so
# one n x m pass of both heads (33.6 million numbers) costs about 0.20 s; each feature's time
# over plain, in such passes, is its weight (rounded up):
SOFTCAP_PASSES = 3  # S″ = c·tanh(S′ / c) and the score it bends most: 1.24 s, 2.2 passes over
ALIBI_PASSES = 3  # B = −m·|i − j| made (3 passes), then S′ + B: 1.14 to 1.30 s, 1.7 to 2.5
BIAS_PASSES = 2  # a given B read, then S′ + B
LATENT_PASSES = 4  # MLA's absorbed scores and the check that they match: 1.49 to 1.66 s, 3.5 to 4.3
WINDOW_PASSES = 1  # the window and its sink tokens, two triangles: 0.88 to 1.04 s, 0.4 to 1.2
PADDING_PASSES = 2  # the padding, and a softmax over runs of a few keys: 1.09 to 1.17 s, 1.5 to 1.8
MATRIX_MASK_PASSES = 1  # a given mask's rows, combined with the others
SINKS_PASSES = 2  # the n x (m + 1) logits with the sink, and A copied out: 1.00 to 1.07 s, 1 to 1.3
# A dtype below float64 rounds every n x m matrix to its format besides the float64 pass beside it:
# bfloat16 took 2.81 s for 335.7 million numbers, 0.8 s (4 passes) over plain's rate.
PRECISION_PASSES = 6  # x − m and e^(x − m) in the format, and 4 passes of rounding
# The backward pass: dA, dS′ and dS, at plain attention's rate: 4,096 tokens of d_model 4 and one
# head took 0.75 s for 67 million numbers without it, 2.0 s for 252 million with it (of d_model 64,
# 2.2 s: mostly its 10.7 billion products, which the products' limit counts).
BACKWARD_PASSES = 3
# A model folder's layer costs more than its numbers: its keys made from the checkpoint, its spec
# read and checked, its build set up, whatever its tokens (layer 127 of a 128-layer Llama on 3
# tokens: 1.7 ms a layer, 300,000 numbers at plain attention's 6 ns a number); and each expert of
# a gpt-oss mixture, however small: its six matrices read, made and checked, the router's score
# and its network on every row (0.12 to 0.2 ms; 65,536 experts of d_model 2 took 28 s). At
# 40,000 an expert, layer 127 of 128 layers of 55 experts on 3 tokens was within the limit and
# took 1.25 to 1.39 s; at 80,000 the most experts a spec may reach (layer 127 of 128 layers of
# 27, layer 63 of 64 of 58, layer 15 of 16 of 246) take 0.88 to 1.04 s on a busy machine, least
# of three, the edge at 60,000 (36, 78 and 328 experts) 1.09 to 1.22 s. Both are charged as
# numbers computed before any layer is made (the layer shown pays its own work with its
# walkthrough).
LAYER_CELLS = 300_000
EXPERT_CELLS = 80_000


def folder_cells(before: int, experts: int) -> int:
    """What a model folder's layer costs besides the numbers of its walkthrough: the `before`
    layers worked out before it, and `experts` (0: none) in the mixture of each of them and
    of its own."""
    return before * LAYER_CELLS + (before + 1) * experts * EXPERT_CELLS


def walkthrough_cells(spec: Spec) -> int:
    """The numbers the walkthrough computes: the forward pass, and the backward pass's and a low
    precision's besides it."""
    return forward_cells(spec) + backward_cells(spec) + precision_cells(spec)


def forward_cells(spec: Spec) -> int:
    """About how many numbers build(spec) computes: the inputs with positions added, then per
    head Q, K, V, the n x m scores, scaled and masked scores and weights, and Z; the heads side
    by side and W_O; the rest of the layer."""
    conv = spec.convention
    n, m, d = spec.queries.n, spec.keys_source.n, spec.queries.d_model
    total = sum(2 * seq.n * d for seq in (spec.queries, spec.context)
                if seq is not None and seq.positional is not None)  # P and E + P
    for head in spec.heads:
        d_k, d_v = head.d_k(conv), head.d_v(conv)
        total += n * d_k + m * (d_k + d_v) + 4 * n * m + n * d_v
        if spec.tiling is not None:  # the tiles of S and P̃, then m, ℓ and Õ after each key block
            passes = -(-m // spec.tiling.keys)
            total += 2 * n * m + passes * n * (4 + d_v)
        total += n * m * elementwise_passes(spec)
        total += (2 * (n + m) * d_k) if spec.qk_norm is not None else 0  # RMS and Q̃, K̃
        if spec.rotary:
            total += 2 * (n + m) * d_k  # RoPE's angles and the rotated Q and K
        if spec.latent is not None:  # the head's weights, Q_C·W_UKᵀ and the absorbed scores
            total += spec.latent.d_c * (n + d_k + d_k) + d * d_k
    if spec.latent is not None:  # W_DKV, C_KV (and its norm), W_KR, K_R, W_DQ and C_Q
        total += (d + 2 * m + 1) * (spec.latent.d_c + spec.latent.d_rope) + 2 * n * d
    total += n * sum(head.d_v(conv) for head in spec.heads) + n * d
    if spec.vision is not None:  # the patches, their projection and E; the class scores
        total += 2 * spec.vision.image.size + 2 * n * d + 3 * len(
            spec.vision.classifier.labels if spec.vision.classifier else ())
    if spec.block is not None:
        d_ff = 0 if spec.block.ffn is None else int(spec.block.ffn.W_1.size) // d
        total += 6 * n * d + n * d_ff
        if spec.block.moe is not None:  # L and P, and each expert's G, U, M and Eₑ on every row
            experts = spec.block.moe.experts
            total += 2 * n * len(experts) + sum(n * (3 * int(e.W_1.size) // d + d)
                                                for e in experts)
    return total


def decode_cells(spec: Spec) -> int:
    """The numbers a decode's steps show, every one of them (a document that shows every number:
    --full, JSON): per head, the prompt's p keys and values, then for each later token t (1-based)
    its query, the cache K[1:t] and V[1:t], the t scores and t weights, and z. A decode of 300
    tokens shown whole was 169 MB of HTML (1 GB to write), counted as the 4 n × n of attention
    alone."""
    if spec.decode is None:
        return 0
    n, p = spec.queries.n, spec.decode.prefill
    later = n * (n + 1) // 2 - p * (p + 1) // 2  # the sum of t for t = p + 1 .. n
    total = 0
    for head in spec.heads:
        d_k, d_v = head.d_k(spec.convention), head.d_v(spec.convention)
        total += p * (d_k + d_v) + later * (d_k + d_v + 2) + (n - p) * (d_k + d_v)
    return total


def elementwise_passes(spec: Spec) -> int:
    """The n x m passes of one head that its features add to plain attention's (the weights
    above): soft-capping, a score bias, MLA's absorbed scores, masks other than causal alone,
    attention sinks."""
    passes = 0 if spec.softcap is None else SOFTCAP_PASSES
    if spec.bias is not None:
        passes += ALIBI_PASSES if spec.bias.kind == "alibi" else BIAS_PASSES
    passes += 0 if spec.latent is None else LATENT_PASSES
    for mask in spec.masks:
        if isinstance(mask, WindowMask):
            passes += WINDOW_PASSES
        elif isinstance(mask, PaddingMask):
            passes += PADDING_PASSES
        elif isinstance(mask, MatrixMask):
            passes += MATRIX_MASK_PASSES
    return passes + (0 if spec.sinks is None else SINKS_PASSES)


def least_vision(tokens: int, pixels: int, flat: int, d_model: int) -> tuple[int, int]:
    """The fewest numbers and products the walkthrough of a ViT input can take, from its size
    alone (forward_cells and forward_products with one head of d_k = d_v = 1 and nothing
    else): `tokens` (CLS and the patches) attend to each other, 4 n x n a head, from `pixels`
    numbers of the image cut into patches of `flat` numbers, projected to `d_model`."""
    n = tokens
    cells = 4 * n * n + 5 * n + 3 * n * d_model + 2 * pixels
    products = 2 * n * n + 3 * n * d_model + n * flat * d_model
    return cells, products


def backward_cells(spec: Spec) -> int:
    """About how many numbers the backward pass computes besides the forward pass's: per head
    dA, dS′ and dS (BACKWARD_PASSES n x m passes), dQ, dK and dV, then dX; and the
    finite-difference check's two
    forward passes on W_Q ± h, each as many numbers as the forward pass (a spec with `backward`
    is float64)."""
    if spec.backward is None:
        return 0
    conv = spec.convention
    n, m, d = spec.queries.n, spec.keys_source.n, spec.queries.d_model
    total = 2 * forward_cells(spec) + n * d
    for head in spec.heads:
        d_k, d_v = head.d_k(conv), head.d_v(conv)
        total += BACKWARD_PASSES * n * m + n * d_k + m * (d_k + d_v)
    return total


def precision_cells(spec: Spec) -> int:
    """About how many numbers a dtype below float64 computes besides the forward pass: the same
    pass again in float64, to set beside it (attncli/steps/precision.py), and in the format each
    softmax's x − m and e^(x − m), n x m a head, and every n x m matrix rounded to the format:
    PRECISION_PASSES a head."""
    if spec.dtype == "float64":
        return 0
    n, m = spec.queries.n, spec.keys_source.n
    return forward_cells(spec) + PRECISION_PASSES * n * m * len(spec.heads)


def walkthrough_products(spec: Spec) -> int:
    """The products the walkthrough's matrix multiplications take: the forward pass, five times
    it with a backward pass (dA, dV, dS, dQ and dK take about twice the forward pass's, and the
    finite-difference check works it twice more), twice with a low precision (the float64 pass
    beside it)."""
    total = forward_products(spec)
    if spec.backward is not None:
        return 5 * total
    return total if spec.dtype == "float64" else 2 * total


def forward_products(spec: Spec) -> int:
    """Per head, Q, K and V from their inputs, then Q·Kᵀ and A·V (n x m x d_k and n x m x d_v);
    W_O; the feed-forward network or every expert on every row; MLA's latents; a ViT's patches."""
    conv = spec.convention
    n, m = spec.queries.n, spec.keys_source.n
    total = 0
    for head in spec.heads:
        total += n * int(head.W_Q.size) + m * int(head.W_K.size + head.W_V.size)
        total += n * m * (head.d_k(conv) + head.d_v(conv))
    if spec.latent is not None:
        latent = spec.latent
        total += m * int(latent.W_DKV.size + latent.W_KR.size + latent.W_UK.size
                         + latent.W_UV.size)
        total += n * int(latent.W_Q.size + latent.W_QR.size)
        total += 0 if latent.W_DQ is None else n * int(latent.W_DQ.size)
    total += 0 if spec.W_O is None else n * int(spec.W_O.size)
    block = spec.block
    if block is not None and block.ffn is not None:
        ffn = block.ffn
        total += n * int(ffn.W_1.size + ffn.W_2.size + (0 if ffn.W_3 is None else ffn.W_3.size))
    if block is not None and block.moe is not None:
        total += n * int(block.moe.W_r.size) + sum(
            n * int(e.W_1.size + e.W_3.size + e.W_2.size) for e in block.moe.experts)
    if spec.vision is not None:
        total += n * int(spec.vision.W_E.size)
    return total

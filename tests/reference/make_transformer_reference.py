#!/usr/bin/python3
"""Writes transformer_python.txt: torch.nn.TransformerEncoderLayer (Python, torch 1.13, double
precision) over 32 random configurations: post-norm and pre-norm, relu and gelu, sequence- and
batch-first and unbatched input, and no mask, a float or Bool causal mask, a 3-D mask and a key
padding mask. test_transformer_vs_python.cpp reads the file and compares litgrad's layer,
loaded with torch's weights, in output and every gradient.

Run with Debian's Python and python3-torch:  /usr/bin/python3 make_transformer_reference.py

Dropout is 0 and the layers are in training mode, so torch takes its ordinary path (in
evaluation it may take a fused fast path, which rounds differently). Each case: a config line,
the layer's parameters (role param, torch's names), the input and masks (role input), the
output (role output), the loss weights A (role loss), and the gradients of sum(out * A)
(role grad) with respect to the input and each parameter.
"""
import os
import random

import torch

from reference_format import tensor_line, write

torch.set_default_dtype(torch.float64)
torch.manual_seed(9)
rng = random.Random(9)


def case(index):
    H = rng.choice([1, 2, 4])
    E = H * rng.choice([2, 3, 4])
    F = rng.choice([5, 8, 16])
    L = rng.choice([1, 3, 5])
    N = rng.choice([1, 2, 3])
    activation = ["relu", "gelu"][index % 2]
    norm_first = (index // 2) % 2 == 1
    layout = ["sequence_first", "batch_first", "unbatched"][(index // 4) % 3]
    mask_kind = ["none", "float_causal", "bool_causal", "three_d", "padding"][(index // 3) % 5]
    if layout == "unbatched" and mask_kind in ("three_d", "padding"):
        mask_kind = "float_causal"
    batch_first = layout == "batch_first"
    layer = torch.nn.TransformerEncoderLayer(E, H, dim_feedforward=F, dropout=0.0, activation=activation,
                                             layer_norm_eps=rng.choice([1e-5, 1e-6]), batch_first=batch_first,
                                             norm_first=norm_first)
    layer.train()
    with torch.no_grad():  # move the norms off their trivial start, so their gradients are tested too
        for norm in (layer.norm1, layer.norm2):
            norm.weight.add_(0.3 * torch.randn(E))
            norm.bias.add_(0.3 * torch.randn(E))
    if layout == "unbatched":
        src = torch.randn(L, E)
    elif batch_first:
        src = torch.randn(N, L, E)
    else:
        src = torch.randn(L, N, E)
    src.requires_grad_()
    src_mask, padding = None, None
    if mask_kind == "float_causal":
        src_mask = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
    elif mask_kind == "bool_causal":
        src_mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    elif mask_kind == "three_d":
        src_mask = 0.5 * torch.randn(N * H, L, L)
    elif mask_kind == "padding":
        padding = torch.zeros(N, L, dtype=torch.bool)
        padding[:, -1] = L > 1  # the last position is padding, where there is more than one
    out = layer(src, src_mask=src_mask, src_key_padding_mask=padding)
    A = torch.randn(out.shape)
    (out * A).sum().backward()
    lines = [f"case {index}_{activation}_{'pre' if norm_first else 'post'}_{layout}_{mask_kind}",
             f"config E={E} H={H} F={F} activation={activation} norm_first={norm_first} batch_first={batch_first} "
             f"eps={layer.norm1.eps!r}"]
    lines += [tensor_line("param", n, p) for n, p in layer.named_parameters()]
    lines.append(tensor_line("input", "src", src))
    if src_mask is not None:
        lines.append(tensor_line("input", "src_mask", src_mask))
    if padding is not None:
        lines.append(tensor_line("input", "src_key_padding_mask", padding))
    lines += [tensor_line("output", "output", out), tensor_line("loss", "A", A), tensor_line("grad", "src", src.grad)]
    lines += [tensor_line("grad", n, p.grad) for n, p in layer.named_parameters()]
    return lines


lines = []
for i in range(32):
    lines += case(i)
here = os.path.dirname(os.path.abspath(__file__))
write(os.path.join(here, "transformer_python.txt"), "make_transformer_reference.py", lines)
print(f"wrote {len(lines)} lines")

#!/usr/bin/python3
"""Writes mha_python.txt: torch.nn.MultiheadAttention (Python, torch 1.13, double precision) on
the cases libtorch's C++ API gets wrong or cannot express: Bool attn_mask (libtorch adds it as
+1.0, pytorch/pytorch#80494), 3-D masks, batch_first, unbatched input, kdim != vdim, and rows
whose every key is masked (NaN). test_multihead_attention_vs_python.cpp reads the file.

Run with Debian's Python and python3-torch:  /usr/bin/python3 make_mha_reference.py

Each case: a config line (the layer's options and need/average flags), the layer's parameters
(role param, torch's names), the inputs and masks (role input), the output and weights (role
output), the loss weights A and B (role loss) and, unless the case produces NaN, the gradients
of sum(out * A) + sum(weights * B) (role grad) with respect to query, key, value and each
parameter.
"""
import os

import torch

from reference_format import tensor_line, write

torch.set_default_dtype(torch.float64)
torch.manual_seed(8)


def case(name, E, H, L, S, N, *, batch_first=False, unbatched=False, kdim=None, vdim=None, bias=True,
         add_bias_kv=False, add_zero_attn=False, average=True, attn_mask=None, key_padding_mask=None,
         self_attention=False, grads=True):
    mha = torch.nn.MultiheadAttention(E, H, bias=bias, add_bias_kv=add_bias_kv, add_zero_attn=add_zero_attn,
                                      kdim=kdim, vdim=vdim, batch_first=batch_first)
    kdim, vdim = kdim or E, vdim or E

    def shaped(length, features):
        if unbatched:
            return torch.randn(length, features)
        return torch.randn(N, length, features) if batch_first else torch.randn(length, N, features)

    query = shaped(L, E).requires_grad_()
    key = query if self_attention else shaped(S, kdim).requires_grad_()
    value = query if self_attention else shaped(S, vdim).requires_grad_()
    out, weights = mha(query, key, value, key_padding_mask=key_padding_mask, need_weights=True,
                       attn_mask=attn_mask, average_attn_weights=average)
    A, B = torch.randn(out.shape), torch.randn(weights.shape)
    lines = [f"case {name}",
             f"config E={E} H={H} kdim={kdim} vdim={vdim} bias={bias} add_bias_kv={add_bias_kv} "
             f"add_zero_attn={add_zero_attn} batch_first={batch_first} average={average} "
             f"self_attention={self_attention} grads={grads}"]
    lines += [tensor_line("param", n, p) for n, p in mha.named_parameters()]
    lines += [tensor_line("input", "query", query), tensor_line("input", "key", key), tensor_line("input", "value", value)]
    if attn_mask is not None:
        lines.append(tensor_line("input", "attn_mask", attn_mask))
    if key_padding_mask is not None:
        lines.append(tensor_line("input", "key_padding_mask", key_padding_mask))
    lines += [tensor_line("output", "output", out), tensor_line("output", "weights", weights),
              tensor_line("loss", "A", A), tensor_line("loss", "B", B)]
    if grads:
        ((out * A).sum() + (weights * B).sum()).backward()
        inputs = [("query", query)] if self_attention else [("query", query), ("key", key), ("value", value)]
        lines += [tensor_line("grad", n, t.grad) for n, t in inputs]
        lines += [tensor_line("grad", n, p.grad) for n, p in mha.named_parameters()]
    return lines


def bool_mask(*shape, p=0.3):
    """A random Bool mask whose last column is never all True along a row."""
    m = torch.rand(*shape) < p
    m[..., 0] = False
    return m


def main():
    L, S, N, H, E = 3, 4, 2, 2, 4
    lines = []
    lines += case("bool_attn_mask_2d", E, H, L, S, N, attn_mask=bool_mask(L, S))
    lines += case("bool_attn_mask_3d", E, H, L, S, N, attn_mask=bool_mask(N * H, L, S), average=False)
    lines += case("float_attn_mask_3d", E, H, L, S, N, attn_mask=torch.randn(N * H, L, S))
    lines += case("bool_mask_and_bool_padding", E, H, L, S, N, attn_mask=bool_mask(L, S),
                  key_padding_mask=bool_mask(N, S))
    lines += case("batch_first_float_mask_padding", E, H, L, S, N, batch_first=True,
                  attn_mask=torch.randn(L, S), key_padding_mask=bool_mask(N, S))
    lines += case("batch_first_per_head_self_attention", E, H, L, L, N, batch_first=True, average=False,
                  self_attention=True, attn_mask=torch.triu(torch.full((L, L), float("-inf")), 1))
    lines += case("unbatched_padding_and_mask", E, H, L, S, N, unbatched=True,
                  attn_mask=torch.randn(L, S), key_padding_mask=bool_mask(S))
    lines += case("unbatched_bool_mask_3d_per_head", E, H, L, S, N, unbatched=True, average=False,
                  attn_mask=bool_mask(H, L, S))
    lines += case("kdim_differs_from_vdim_no_bias", E, H, L, S, N, kdim=3, vdim=5, bias=False)
    lines += case("bias_kv_zero_attn_batch_first_bool_mask", E, H, L, S, N, batch_first=True, add_bias_kv=True,
                  add_zero_attn=True, attn_mask=bool_mask(L, S), key_padding_mask=bool_mask(N, S))
    padding_all = torch.zeros(N, S, dtype=torch.bool)
    padding_all[1] = True  # every key of batch element 1 is padding
    lines += case("fully_padded_sequence_gives_nan", E, H, L, S, N, key_padding_mask=padding_all, grads=False)
    mask_row = torch.zeros(L, S, dtype=torch.bool)
    mask_row[0] = True  # query 0 may attend to nothing
    lines += case("fully_masked_query_row_gives_nan", E, H, L, S, N, attn_mask=mask_row, grads=False)
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "mha_python.txt"), os.path.basename(__file__), lines)


if __name__ == "__main__":
    main()

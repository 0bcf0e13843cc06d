#!/usr/bin/python3
"""Writes torch_composites.txt: values and gradients of composite expressions, computed by
PyTorch in double precision, for test_torch_reference.cpp to compare litgrad against.

Run with Debian's Python and python3-torch (1.13):  /usr/bin/python3 make_torch_reference.py
The test reads only the text file, so it runs without torch installed.

The format is reference_format.py's; roles: input, output, and grad (the gradient of
sum(output * output) with respect to the input of the same name).
"""
import os

import torch

from reference_format import tensor_line, write

torch.set_default_dtype(torch.float64)
gen = torch.Generator().manual_seed(20261129)


def randn(*shape):
    return torch.randn(*shape, generator=gen)


# Each case: the inputs, and the expression over them. The C++ test has the same expression
# under the same name. Float inputs require grad; index and mask inputs do not.
CASES = {
    "attention_by_hand": (
        dict(q=randn(3, 4), k=randn(5, 4), v=randn(5, 2)),
        lambda q, k, v: torch.softmax(q @ k.T / 2.0, dim=-1) @ v,
    ),
    "mlp_tanh_sigmoid": (
        dict(x=randn(4, 3), w1=randn(5, 3), b1=randn(5), w2=randn(1, 5)),
        lambda x, w1, b1, w2: torch.sigmoid(torch.tanh(x @ w1.T + b1) @ w2.T),
    ),
    "cross_entropy_mean": (
        dict(logits=randn(4, 3), target=torch.tensor([2, 0, 1, 2])),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target).reshape(1),
    ),
    "broadcast_exp_log_div": (
        dict(a=randn(2, 1, 3), b=randn(4, 1)),
        lambda a, b: torch.log(torch.exp(a) + b * b) / (1.0 + b * b),
    ),
    "causal_masked_softmax_mean": (
        dict(scores=randn(4, 4), mask=torch.ones(4, 4, dtype=torch.bool).triu(1)),
        lambda scores, mask: torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1).mean(dim=0),
    ),
    "relu_max_mse": (
        dict(x=randn(3, 5), target=randn(3)),
        lambda x, target: torch.nn.functional.mse_loss(torch.relu(x).max(dim=1).values, target).reshape(1),
    ),
    "batched_matmul_broadcast_permute": (
        dict(a=randn(2, 1, 3, 4), b=randn(3, 4, 2)),
        lambda a, b: (a @ b).permute(3, 0, 2, 1).sum(dim=(0, 3), keepdim=True),
    ),
    "gather_cat_stack_slice": (
        dict(x=randn(3, 4), y=randn(3, 2), index=torch.tensor([[3, 0], [1, 1], [2, 3]])),
        lambda x, y, index: torch.stack([torch.cat([x, y], dim=1)[:, 1:5:2], torch.gather(x, 1, index) * y], dim=0),
    ),
    "sin_cos_pow_where": (
        dict(x=randn(6)),
        lambda x: torch.where(x > 0, torch.sin(x) ** 2, torch.cos(x) * x) + x.pow(3),
    ),
    "log_softmax_sum_over_dims": (
        dict(x=randn(2, 3, 4)),
        lambda x: torch.log_softmax(x, dim=1).sum(dim=-1) - x.mean(),
    ),
    # The operations the later chapters use, each against its torch namesake.
    "gelu_exact_and_tanh": (
        dict(x=randn(3, 4)),
        lambda x: torch.nn.functional.gelu(x) + torch.nn.functional.gelu(0.7 * x, approximate="tanh"),
    ),
    "logsumexp_sqrt_clamp": (
        dict(x=randn(3, 4)),
        lambda x: torch.logsumexp(x, dim=1) + torch.sqrt(x * x + 1).sum(dim=1) + torch.clamp(x, -0.5, 0.7).sum(dim=1),
    ),
    "var_and_std": (
        dict(x=randn(3, 4)),
        lambda x: torch.cat([torch.var(x, dim=1), torch.std(x, dim=0, unbiased=False), torch.var(x).reshape(1)]),
    ),
    "vector_norms": (
        dict(x=randn(3, 4)),
        lambda x: torch.stack([torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 1),
                               torch.linalg.vector_norm(x, float("inf")), torch.linalg.vector_norm(x, 3)]),
    ),
    "cross_entropy_ignore_and_smoothing": (
        dict(logits=randn(5, 4), target=torch.tensor([0, 1, 3, 1, 2])),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target, ignore_index=1, label_smoothing=0.2,
                                                                 reduction="none"),
    ),
    "cross_entropy_probabilities_mean": (
        dict(logits=randn(3, 4), target=torch.softmax(randn(3, 4), dim=1)),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target, label_smoothing=0.1).reshape(1),
    ),
    "nll_loss_sum": (
        dict(x=randn(4, 3), target=torch.tensor([2, 0, 0, 1])),
        lambda x, target: torch.nn.functional.nll_loss(torch.log_softmax(x, 1), target, reduction="sum").reshape(1),
    ),
    "binary_cross_entropy_with_logits": (
        dict(x=randn(3, 4), t=torch.rand(3, 4, generator=gen)),
        lambda x, t: torch.nn.functional.binary_cross_entropy_with_logits(4 * x, t, reduction="none"),
    ),
    "layer_norm_affine": (
        dict(x=randn(2, 3, 4), w=randn(4), b=randn(4)),
        lambda x, w, b: torch.nn.functional.layer_norm(x, (4,), w, b, 1e-5),
    ),
    "expand_repeat_flatten_tril": (
        dict(x=randn(3, 1), y=randn(3, 2)),
        lambda x, y: torch.tril(x.expand(2, 3, 4).sum(0) + y.repeat(1, 2), 1).flatten(),
    ),
    "topk_index_select_embedding": (
        dict(x=randn(4, 5), ids=torch.tensor([3, 0, 3, 2])),
        lambda x, ids: torch.topk(x, 2, dim=1).values @ torch.nn.functional.embedding(ids, x)[:, :2].T
        + torch.index_select(x, 0, ids).sum(),
    ),
    # The losses and layers of the language models: cross-entropy over positions, and a Hessian-vector product (whose
    # gradient, taken by the checker, is a third derivative).
    "cross_entropy_over_positions_none": (
        dict(logits=randn(2, 3, 4), target=torch.tensor([[0, 2, 1, 2], [1, 1, 0, 2]])),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target, reduction="none"),
    ),
    "cross_entropy_over_positions_ignore_smoothing": (
        dict(logits=randn(2, 3, 2, 2), target=torch.tensor([[[0, 1], [2, 1]], [[1, 0], [1, 2]]])),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target, ignore_index=1, label_smoothing=0.1)
        .reshape(1),
    ),
    "cross_entropy_over_positions_probabilities": (
        dict(logits=randn(2, 3, 4), target=torch.softmax(randn(2, 3, 4), dim=1)),
        lambda logits, target: torch.nn.functional.cross_entropy(logits, target, reduction="sum").reshape(1),
    ),
    "hessian_vector_product_tanh": (
        dict(x=randn(3, 4), w=randn(4, 2), v=randn(3, 4)),
        lambda x, w, v: torch.autograd.grad(
            (torch.autograd.grad((torch.tanh(x @ w) ** 2).sum(), x, create_graph=True)[0] * v).sum(), x,
            create_graph=True)[0],
    ),
}


def main():
    out = []
    for name, (inputs, fn) in CASES.items():
        out.append(f"case {name}")
        for key, t in inputs.items():
            if t.dtype == torch.float64:
                t.requires_grad_(True)
            out.append(tensor_line("input", key, t))
        y = fn(**inputs)
        (y * y).sum().backward()
        out.append(tensor_line("output", "y", y))
        for key, t in inputs.items():
            if t.dtype == torch.float64:
                out.append(tensor_line("grad", key, t.grad))
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "torch_composites.txt"), os.path.basename(__file__), out)


if __name__ == "__main__":
    main()

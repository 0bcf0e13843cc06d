#!/usr/bin/python3
"""Writes optim_python.txt: torch 1.13's optimisers, schedule and gradient clipping in double
precision, for test_optim_vs_python.cpp to compare litgrad's against.

Run with Debian's Python and python3-torch:  /usr/bin/python3 make_optim_reference.py

Each optimiser case trains one parameter p [3, 4] for 6 steps on the loss
sum(w * (p - target)^2) + sum(p^3) / 10 (so the gradient changes from step to step), starting
from the same p: roles input (p0, w, target), and output (p after each step, p1 ... p6). The
schedule case records CosineAnnealingLR's learning rates; the clipping case records
clip_grad_norm_'s total norm and the clipped gradients.
"""
import os

import torch

from reference_format import tensor_line, write

torch.set_default_dtype(torch.float64)
gen = torch.Generator().manual_seed(20261201)


def randn(*shape):
    return torch.randn(*shape, generator=gen)


p0, w, target = randn(3, 4), torch.rand(3, 4, generator=gen) + 0.5, randn(3, 4)

OPTIMISERS = {
    "adamw_lr0.05_wd0.1": lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "adamw_defaults": lambda ps: torch.optim.AdamW(ps),
    "adam_l2_0.1": lambda ps: torch.optim.Adam(ps, lr=0.05, weight_decay=0.1),
    "sgd_nesterov": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
    "sgd_momentum_dampening": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.3),
    "rmsprop_defaults": lambda ps: torch.optim.RMSprop(ps),
    "rmsprop_centered_momentum_wd": lambda ps: torch.optim.RMSprop(ps, lr=0.02, alpha=0.9, weight_decay=0.1,
                                                                   momentum=0.5, centered=True),
}

lines = []
for name, make in OPTIMISERS.items():
    p = p0.clone().requires_grad_()
    opt = make([p])
    lines += [f"case {name}", tensor_line("input", "p0", p0), tensor_line("input", "w", w),
              tensor_line("input", "target", target)]
    for step in range(1, 7):
        opt.zero_grad()
        ((w * (p - target) ** 2).sum() + (p ** 3).sum() / 10).backward()
        opt.step()
        lines.append(tensor_line("output", f"p{step}", p))

# CosineAnnealingLR(T_max=10, eta_min=0.001) from lr 0.1: the rate at steps 0..12.
p = p0.clone().requires_grad_()
opt = torch.optim.SGD([p], lr=0.1)
schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)
rates = []
for _ in range(13):
    rates.append(opt.param_groups[0]["lr"])
    opt.step()
    schedule.step()
lines += ["case cosine_annealing", tensor_line("output", "lr", torch.tensor(rates))]

# clip_grad_norm_ of two gradients to max_norm 1 (2-norm) and 0.5 (inf-norm).
for norm_type, max_norm in ((2.0, 1.0), (float("inf"), 0.5)):
    a, b = randn(3).requires_grad_(), randn(2, 2).requires_grad_()
    ((a * randn(3)).sum() + (b * randn(2, 2) * 3).sum()).backward()
    lines += [f"case clip_{'inf' if norm_type == float('inf') else int(norm_type)}",
              tensor_line("input", "grad_a", a.grad), tensor_line("input", "grad_b", b.grad)]
    total = torch.nn.utils.clip_grad_norm_([a, b], max_norm, norm_type=norm_type)
    lines += [f"config max_norm={max_norm!r} norm_type={norm_type!r}", tensor_line("output", "total", total.reshape(1)),
              tensor_line("output", "grad_a", a.grad), tensor_line("output", "grad_b", b.grad)]

here = os.path.dirname(os.path.abspath(__file__))
write(os.path.join(here, "optim_python.txt"), "make_optim_reference.py", lines)
print(f"wrote {len(lines)} lines")

#!/usr/bin/python3
"""Writes checkpoint_python.txt: torch 1.13's optimisers with two parameter groups, and the
state_dict()s of an optimiser and a LambdaLR, in double precision, for test_checkpoint.cpp.

Run with Debian's Python and python3-torch:  /usr/bin/python3 make_checkpoint_reference.py

Each optimiser case trains two parameters, a [3, 4] and b [4], for 4 steps on the loss
sum(w * (a - target)^2) + sum(a^3) / 10 + sum((b - 1)^2) * 3, starting from the same values;
a is in group 0 and b in group 1, each group with its own hyper-parameters, under a LambdaLR
whose factor is 1 / (1 + t). Roles: input (a0, b0, w, target), output (a1..a4, b1..b4 after
each step), state (the optimiser's state_dict() after the last step) and schedule (the
LambdaLR's). A state_dict nests dictionaries; it is written flat, the path of each value
joined with dots (state.0.exp_avg, param_groups.1.lr), as litgrad names it. A tuple becomes a
tensor of its values (betas), a bool 0 or 1; keys whose value is None, or a function, are
listed in the config line `none=` instead.
"""
import os

import torch

from reference_format import tensor_line, write

torch.set_default_dtype(torch.float64)
gen = torch.Generator().manual_seed(20261202)

a0 = torch.randn(3, 4, generator=gen)
b0 = torch.randn(4, generator=gen)
w = torch.rand(3, 4, generator=gen) + 0.5
target = torch.randn(3, 4, generator=gen)

CASES = {
    # AdamW with decay for the weight and none for the bias, each group its own rate.
    "adamw_two_groups": lambda a, b: torch.optim.AdamW(
        [{"params": [a], "weight_decay": 0.1}, {"params": [b], "weight_decay": 0.0, "lr": 0.02}],
        lr=0.05, betas=(0.8, 0.99)),
    # SGD with Nesterov momentum in one group and plain momentum with dampening in the other.
    "sgd_two_groups": lambda a, b: torch.optim.SGD(
        [{"params": [a], "nesterov": True, "weight_decay": 0.01},
         {"params": [b], "momentum": 0.5, "dampening": 0.3, "lr": 0.03}],
        lr=0.05, momentum=0.9),
}


def flat(prefix, value, lines, none):
    """Appends the tensors of a nested state_dict, keys joined with dots."""
    if isinstance(value, dict):
        for key, item in value.items():
            flat(f"{prefix}.{key}" if prefix else str(key), item, lines, none)
    elif isinstance(value, (list, tuple)) and any(v is None for v in value):
        none.append(prefix)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        for index, item in enumerate(value):
            flat(f"{prefix}.{index}", item, lines, none)
    elif isinstance(value, (list, tuple)) and prefix.endswith(".params"):
        lines.append(tensor_line("state", prefix, torch.tensor(value, dtype=torch.int64)))
    elif isinstance(value, (list, tuple)):
        lines.append(tensor_line("state", prefix, torch.tensor([float(v) for v in value])))
    elif isinstance(value, torch.Tensor):
        lines.append(tensor_line("state", prefix, value.double()))
    elif isinstance(value, (bool, int, float)):
        lines.append(tensor_line("state", prefix, torch.tensor(float(value))))
    else:
        none.append(prefix)


lines = []
for name, make in CASES.items():
    a, b = a0.clone().requires_grad_(), b0.clone().requires_grad_()
    opt = make(a, b)
    schedule = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 1 / (1 + t))
    lines += [f"case {name}", tensor_line("input", "a0", a0), tensor_line("input", "b0", b0),
              tensor_line("input", "w", w), tensor_line("input", "target", target)]
    for step in range(1, 5):
        opt.zero_grad()
        ((w * (a - target) ** 2).sum() + (a ** 3).sum() / 10 + ((b - 1) ** 2).sum() * 3).backward()
        opt.step()
        schedule.step()
        lines += [tensor_line("output", f"a{step}", a), tensor_line("output", f"b{step}", b)]
    none = []
    state_lines = []
    flat("", opt.state_dict(), state_lines, none)
    schedule_lines = []
    flat("", schedule.state_dict(), schedule_lines, none)
    lines.append(f"config none={','.join(none)}")
    lines += state_lines + [line.replace("tensor state ", "tensor schedule ", 1) for line in schedule_lines]

here = os.path.dirname(os.path.abspath(__file__))
write(os.path.join(here, "checkpoint_python.txt"), "make_checkpoint_reference.py", lines)
print(f"wrote {len(lines)} lines")

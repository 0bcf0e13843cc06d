"""The text format of the reference files in this folder, shared by the scripts that write them.

One record per line:
  case NAME
  config KEY=VALUE ...
  tensor ROLE NAME DTYPE SHAPE... : VALUES...
ROLE says what the tensor is to the test (input, param, output, grad, ...); DTYPE is f
(Float64), i (Int64) or b (Bool); values are Python's shortest round-trip decimals, so the
C++ reader gets the exact doubles back. tests/reference_file.hpp reads it.
"""
import torch


def tensor_line(role, name, t):
    dtype = {torch.float64: "f", torch.int64: "i", torch.bool: "b"}[t.dtype]
    shape = " ".join(str(s) for s in t.shape)
    values = " ".join(repr(float(v)) for v in t.detach().double().reshape(-1).tolist())
    return f"tensor {role} {name} {dtype} {shape} : {values}".replace("  :", " :")


def write(path, script, lines):
    with open(path, "w") as f:
        f.write(f"# Written by {script} with torch {torch.__version__}; do not edit.\n")
        f.write("\n".join(lines) + "\n")

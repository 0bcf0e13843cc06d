#!/usr/bin/python3
"""Writes the references the torch user's programs compare themselves with
(tests/package/torch_user/reference/*.state): what Python torch computes, in double precision,
for the same programs written in Python.

Run with Debian's Python and python3-torch (1.13):
    /usr/bin/python3 tests/reference/make_torch_user_reference.py

Each file is a litgrad state_dict (version 2, the text form nn::load reads; the format is in
lib/litgrad/core/state_dict.hpp), so a program loads it as a torch user loads a checkpoint.
Keys under `init.` are the starting values a program loads into its model (torch's random
draws are not litgrad's, so the two programs must start from the same numbers); `data.` keys
are the inputs; `expected.` keys are what torch computed. The C++ programs hold every
`expected.` value to within 1e-12 of torch's, relative to the value's size.

The three programs:
  nanogpt       nanoGPT's model.py (LayerNorm with bias, causal self-attention with its mask
                as a buffer, the MLP, the block, the GPT with tied embeddings and GPT-2's
                scaled init) and the core of its train.py (AdamW in two groups with betas
                (0.9, 0.95), warm-up then cosine, gradient clipping at 1), 30 steps on a
                generated text, an evaluation in eval() under no_grad, and greedy writing.
  tutorial      pytorch.org's "Learning PyTorch with Examples": a cubic fitted to sin(x) by
                hand with autograd (clearing each gradient with `a.grad = None`); with
                nn.Sequential(Linear(3, 1), Flatten(0, 1)), MSELoss(reduction='sum'),
                x.unsqueeze(-1).pow(p) and model.zero_grad(); with torch.optim.RMSprop (its first
                500 steps; see below); with
                an autograd.Function of one's own (the Legendre polynomial P3); and with an
                nn.Module of one's own trained by SGD. (Its last example, a network whose
                depth Python's `random` picks at each step, is left out: its draws are not
                reproducible outside Python.)
  docs_examples the examples of torch's documentation pages for F.cross_entropy,
                nn.CrossEntropyLoss (with ignore_index and label smoothing), nn.MSELoss,
                nn.Flatten, torch.pow with a tensor exponent, nn.MultiheadAttention and
                nn.TransformerEncoder with a final LayerNorm, each with its gradients.
"""
import math
import os

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "package", "torch_user", "reference")


# --- litgrad's state_dict text format (version 2) ----------------------------------------------

def fnv1a(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def save_state(path, entries):
    """entries: (key, tensor) pairs in order; float64, int64 or bool tensors."""
    names = {torch.float64: "Float64", torch.int64: "Int64", torch.bool: "Bool"}
    text = f"litgrad state_dict 2\nentries {len(entries)}\n"
    for key, t in entries:
        t = t.detach()
        text += " ".join([key, names[t.dtype], str(t.dim())] + [str(s) for s in t.shape]) + "\n"
        text += " ".join(float(v).hex() for v in t.double().reshape(-1).tolist()) + "\n"
    text += f"checksum {fnv1a(text.encode()):016x}\nend\n"
    with open(path, "w") as f:
        f.write(text)


# --- nanoGPT ------------------------------------------------------------------------------------

class Config:
    block_size, vocab_size, n_layer, n_head, n_embd, dropout, bias = 8, 20, 2, 2, 16, 0.0, True


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_attn = nn.Linear(c.n_embd, 3 * c.n_embd, bias=c.bias)
        self.c_proj = nn.Linear(c.n_embd, c.n_embd, bias=c.bias)
        self.attn_dropout, self.resid_dropout = nn.Dropout(c.dropout), nn.Dropout(c.dropout)
        self.n_head, self.n_embd = c.n_head, c.n_embd
        mask = torch.tril(torch.ones(c.block_size, c.block_size))
        self.register_buffer("bias", mask.view(1, 1, c.block_size, c.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c.n_embd, 4 * c.n_embd, bias=c.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * c.n_embd, c.n_embd, bias=c.bias)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1, self.attn = LayerNorm(c.n_embd, c.bias), CausalSelfAttention(c)
        self.ln_2, self.mlp = LayerNorm(c.n_embd, c.bias), MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(c.vocab_size, c.n_embd), wpe=nn.Embedding(c.block_size, c.n_embd),
            drop=nn.Dropout(c.dropout), h=nn.ModuleList([Block(c) for _ in range(c.n_layer)]),
            ln_f=LayerNorm(c.n_embd, c.bias)))
        self.lm_head = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * c.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is None:
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = [p for p in self.parameters() if p.requires_grad]
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate_greedy(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(cond)
            idx = torch.cat((idx, logits[:, -1, :].argmax(dim=-1, keepdim=True)), dim=1)
        return idx


def generated_text(gen, length):
    """Token ids of a text with structure to learn: words of 2-5 letters from an alphabet of
    19 (id 0 is the space), each letter depending on the one before."""
    ids = []
    while len(ids) < length:
        n = int(torch.randint(2, 6, (), generator=gen))
        letter = int(torch.randint(1, 20, (), generator=gen))
        for _ in range(n):
            ids.append(letter)
            letter = 1 + (letter * 7 + int(torch.randint(0, 3, (), generator=gen))) % 19
        ids.append(0)
    return torch.tensor(ids[:length])


def nanogpt():
    gen = torch.Generator().manual_seed(20261207)
    torch.manual_seed(20261207)
    c = Config()
    model = GPT(c)
    init = [("init." + k, v.clone()) for k, v in model.state_dict().items()]
    data = generated_text(gen, 600)
    iters, batch = 30, 4
    ix = torch.randint(len(data) - c.block_size, (iters, batch), generator=gen)
    learning_rate, min_lr, warmup, decay_iters = 1e-2, 1e-3, 5, 30

    def get_lr(it):
        if it < warmup:
            return learning_rate * (it + 1) / (warmup + 1)
        ratio = (it - warmup) / (decay_iters - warmup)
        return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)

    optimizer = model.configure_optimizers(0.1, learning_rate, (0.9, 0.95))
    losses, norms = [], []
    for it in range(iters):
        for group in optimizer.param_groups:
            group["lr"] = get_lr(it)
        x = torch.stack([data[i:i + c.block_size] for i in ix[it].tolist()])
        y = torch.stack([data[i + 1:i + 1 + c.block_size] for i in ix[it].tolist()])
        _, loss = model(x, y)
        loss.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    model.eval()
    with torch.no_grad():
        x = torch.stack([data[i:i + c.block_size] for i in range(0, 400, 40)])
        y = torch.stack([data[i + 1:i + 1 + c.block_size] for i in range(0, 400, 40)])
        _, eval_loss = model(x, y)
    written = model.generate_greedy(data[:3].view(1, 3), 12)
    save_state(os.path.join(OUT, "nanogpt.state"), init + [
        ("data.text", data), ("data.ix", ix),
        ("expected.losses", torch.tensor(losses)), ("expected.grad_norms", torch.tensor(norms)),
        ("expected.eval_loss", eval_loss), ("expected.written", written),
        ("expected.lm_head.weight", model.lm_head.weight),
        ("expected.transformer.h.1.mlp.c_fc.bias", model.transformer.h[1].mlp.c_fc.bias)])


# --- Learning PyTorch with Examples ----------------------------------------------------------

def tutorial():
    gen = torch.Generator().manual_seed(20261208)
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    start = torch.randn(4, generator=gen)
    a, b, c, d = (start[i].clone().requires_grad_() for i in range(4))
    learning_rate = 1e-6
    by_hand = []
    for t in range(2000):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            by_hand.append(float(loss))
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    by_hand_abcd = torch.stack([a, b, c, d]).detach()
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.randn(1, 3, generator=gen) / 10)
        model[0].bias.copy_(torch.randn(1, generator=gen) / 10)
    init = [("init." + k, v.clone()) for k, v in model.state_dict().items()]
    loss_fn = nn.MSELoss(reduction="sum")
    with_nn = []
    for t in range(2000):
        loss = loss_fn(model(xx), y)
        if t % 100 == 99:
            with_nn.append(float(loss))
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    nn_weight, nn_bias = model[0].weight.detach().clone(), model[0].bias.detach().clone()
    # With torch.optim: the same model and loss, RMSprop at lr 1e-3, from the same start. Only
    # the first 500 losses are kept: later, each step is about lr whatever the gradient (g over
    # the root of its running mean square), and a difference of one rounding grows. Measured on
    # torch's own run: changing one starting weight by one ulp moves the loss by up to 2.7e-3
    # (relative) after step 900 and can flip the fitted bias's sign; litgrad's loss and torch's
    # first differ by more than 1e-15 of the loss at step 530.
    model.load_state_dict(dict((k[len("init."):], v) for k, v in init))
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    with_optim = []
    for t in range(2000):
        loss = loss_fn(model(xx), y)
        with_optim.append(float(loss))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    # A Function of one's own: the Legendre polynomial P3, y = a + b P3(c + d x), from
    # a = 0, b = -1, c = 0, d = 0.3 at lr 5e-6 (the tutorial's start, which draws nothing).
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    a, b, c, d = (torch.full((), v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
    legendre = []
    for t in range(2000):
        y_pred = a + b * LegendrePolynomial3.apply(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            legendre.append(float(loss))
        loss.backward()
        with torch.no_grad():
            for p_ in (a, b, c, d):
                p_ -= 5e-6 * p_.grad
                p_.grad = None

    # A Module of one's own: Polynomial3 with four scalar parameters, trained by SGD.
    class Polynomial3(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c, self.d = (nn.Parameter(torch.randn((), generator=gen)) for _ in range(4))

        def forward(self, x):
            return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    poly = Polynomial3()
    poly_init = [("init_poly." + k, v.clone()) for k, v in poly.state_dict().items()]
    criterion = nn.MSELoss(reduction="sum")
    sgd = torch.optim.SGD(poly.parameters(), lr=1e-6)
    with_module = []
    for t in range(2000):
        loss = criterion(poly(x), y)
        if t % 100 == 99:
            with_module.append(float(loss))
        sgd.zero_grad()
        loss.backward()
        sgd.step()

    save_state(os.path.join(OUT, "tutorial.state"), init + poly_init + [
        ("data.abcd", start),
        ("expected.by_hand_losses", torch.tensor(by_hand)),
        ("expected.by_hand_abcd", by_hand_abcd),
        ("expected.nn_losses", torch.tensor(with_nn)),
        ("expected.nn_weight", nn_weight), ("expected.nn_bias", nn_bias),
        ("expected.optim_losses", torch.tensor(with_optim[:500])),
        ("expected.legendre_losses", torch.tensor(legendre)),
        ("expected.legendre_abcd", torch.stack([a, b, c, d]).detach()),
        ("expected.module_losses", torch.tensor(with_module)),
        ("expected.module_abcd", torch.stack([poly.a, poly.b, poly.c, poly.d]).detach())])


# --- the documentation's examples ----------------------------------------------------------

def docs_examples():
    gen = torch.Generator().manual_seed(20261209)
    out = []

    def leaf(name, t):
        t = t.clone().requires_grad_()
        out.append(("data." + name, t.detach().clone()))
        return t

    def expect(name, t):
        out.append(("expected." + name, t.detach().clone()))

    # F.cross_entropy: input [3, 5], class targets, then probabilities as targets.
    inp = leaf("ce_input", torch.randn(3, 5, generator=gen))
    target = torch.randint(5, (3,), generator=gen)
    out.append(("data.ce_target", target))
    loss = F.cross_entropy(inp, target)
    loss.backward()
    expect("ce_loss", loss), expect("ce_grad", inp.grad)
    # nn.CrossEntropyLoss with an ignored class and label smoothing, over [N, C, d].
    inp2 = leaf("ce2_input", torch.randn(2, 4, 3, generator=gen))
    target2 = torch.tensor([[0, 3, 1], [2, 2, 0]])
    out.append(("data.ce2_target", target2))
    loss = nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1)(inp2, target2)
    loss.backward()
    expect("ce2_loss", loss), expect("ce2_grad", inp2.grad)
    # nn.MSELoss.
    a = leaf("mse_input", torch.randn(3, 5, generator=gen))
    b = torch.randn(3, 5, generator=gen)
    out.append(("data.mse_target", b))
    loss = nn.MSELoss()(a, b)
    loss.backward()
    expect("mse_loss", loss), expect("mse_grad", a.grad)
    # nn.Flatten: [N, 1, 5, 5] -> [N, 25] (the page has N = 32), and Flatten(0, 2).
    f = torch.randn(4, 1, 5, 5, generator=gen)
    out.append(("data.flatten_input", f))
    expect("flatten", nn.Flatten()(f)), expect("flatten_0_2", nn.Flatten(0, 2)(f))
    # torch.pow with a tensor exponent: a ** b, 2 ** b.
    base = leaf("pow_base", torch.rand(4, generator=gen) + 0.5)
    exponent = leaf("pow_exponent", torch.arange(1.0, 5.0))
    y = torch.pow(base, exponent) + torch.pow(2.0, exponent)
    y.sum().backward()
    expect("pow", y), expect("pow_grad_base", base.grad), expect("pow_grad_exponent", exponent.grad)
    # nn.MultiheadAttention(embed_dim, num_heads): query [L, N, E], key and value [S, N, E].
    torch.manual_seed(20261209)
    mha = nn.MultiheadAttention(8, 2)
    out.extend(("init.mha." + k, v.clone()) for k, v in mha.state_dict().items())
    q = leaf("mha_query", torch.randn(4, 2, 8, generator=gen))
    kv = leaf("mha_key", torch.randn(6, 2, 8, generator=gen))
    attn_output, attn_weights = mha(q, kv, kv)
    (attn_output.pow(2).sum() + attn_weights.pow(2).sum()).backward()
    expect("mha_output", attn_output), expect("mha_weights", attn_weights)
    expect("mha_grad_query", q.grad), expect("mha_grad_key", kv.grad)
    expect("mha_grad_in_proj_weight", mha.in_proj_weight.grad)
    # nn.TransformerEncoder(encoder_layer, num_layers, norm): src [S, N, E].
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(8),
                                    enable_nested_tensor=False)
    out.extend(("init.encoder." + k, v.clone()) for k, v in encoder.state_dict().items())
    src = leaf("encoder_src", torch.rand(5, 3, 8, generator=gen))
    y = encoder(src)
    y.pow(3).sum().backward()  # not pow(2): after the final norm, the sum of squares hardly moves
    expect("encoder_output", y), expect("encoder_grad_src", src.grad)
    expect("encoder_grad_norm_weight", encoder.norm.weight.grad)
    save_state(os.path.join(OUT, "docs_examples.state"), out)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    nanogpt()
    tutorial()
    docs_examples()

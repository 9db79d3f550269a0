#!/usr/bin/python3
"""Golden fixtures for the tiny GPT, computed by PyTorch (Debian's python3-torch 1.13).

The model here is written from the architecture description in core/model/icl/gpt.h
(GPT-2: token + learned position embeddings, pre-LN blocks, causal multi-head
attention with a per-layer dense / banded / strided mask, tanh-GELU MLP, final
LayerNorm, LM head tied to the token embedding), with PyTorch's own layer_norm,
gelu, softmax, cross_entropy, autograd, AdamW and clip_grad_norm_. Everything is
computed in float64 and stored as float32.

Rerun (from the repository root; needs /usr/bin/python3 with python3-torch):
    /usr/bin/python3 tests/golden/make_golden.py
It rewrites tests/golden/gpt_*.bin (fixtures read by tests/unit/test_gpt_golden.cpp)
and tests/golden/ckpt_mixed.icl (a checkpoint in the format of
core/model/icl/checkpoint.h, written by this independent writer).

Fixture container (little-endian): b"ICLGOLD1", u32 count, then per entry
u32 name_len, name (UTF-8), u32 dtype (0 f32, 1 i32), u32 ndim, u32 dims[ndim], data.
"""
import math
import os
import struct

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
CAUSAL, BANDED, STRIDED = 0, 1, 2
SOFTMAX, LINEAR, DELTA = 0, 1, 2  # attention kinds (gpt.h AttentionKind)
TRANSFORMER, GRU = 0, 1  # gpt.h Arch


def kind_of(cfg, l):
    return cfg.get("kinds", [SOFTMAX] * cfg["layers"])[l]


def io(cfg):
    """(arch, input_dim, token_input, output_dim, token_output): gpt.h Config's inputs and
    readouts; the defaults are a token-in, token-out transformer."""
    return (cfg.get("arch", TRANSFORMER), cfg.get("input_dim", 0), cfg.get("token_input", True),
            cfg.get("output_dim", 0), cfg.get("token_output", True))


def tensor_names(cfg):
    """(name, shape, decay) in the C++ buffer order (gpt_config.cpp make_layout)."""
    V, T, C, L = cfg["vocab"], cfg["context"], cfg["width"], cfg["layers"]
    Fw = cfg["mlp_ratio"] * C
    arch, din, tin, dout, tout = io(cfg)
    out = [("wte", (V, C), True)] if (tin or tout) else []
    if arch == TRANSFORMER:
        out += [("wpe", (T, C), True)]
    if din:
        out += [("wx", (C, din), True), ("bx", (C,), False)]
    if arch == GRU:  # nn.GRU's tensors, gates r, z, n
        for l in range(L):
            out += [(f"g{l}.w_ih", (3 * C, C), True), (f"g{l}.w_hh", (3 * C, C), True),
                    (f"g{l}.b_ih", (3 * C,), False), (f"g{l}.b_hh", (3 * C,), False)]
        L = 0
    for l in range(L):
        p = f"h{l}."
        out += [(p + "ln1.w", (C,), False), (p + "ln1.b", (C,), False),
                (p + "attn.wq", (C, C), True), (p + "attn.wk", (C, C), True),
                (p + "attn.wv", (C, C), True), (p + "attn.bq", (C,), False),
                (p + "attn.bk", (C,), False), (p + "attn.bv", (C,), False),
                (p + "attn.wo", (C, C), True), (p + "attn.bo", (C,), False)]
        if kind_of(cfg, l) == DELTA:
            H = cfg["heads"]
            out += [(p + "attn.wb", (H, C), True), (p + "attn.bb", (H,), False)]
        if not cfg["attention_only"]:
            out += [(p + "ln2.w", (C,), False), (p + "ln2.b", (C,), False),
                    (p + "mlp.w1", (Fw, C), True), (p + "mlp.b1", (Fw,), False),
                    (p + "mlp.w2", (C, Fw), True), (p + "mlp.b2", (C,), False)]
    out += [("lnf.w", (C,), False), ("lnf.b", (C,), False)]
    if dout:
        out += [("wy", (dout, C), True), ("by", (dout,), False)]
    return out


def make_params(cfg, gen):
    """Weights larger than GPT-2's init and non-trivial LayerNorm/bias values, so
    every tensor's gradient matters."""
    params = {}
    for name, shape, _ in tensor_names(cfg):
        if len(shape) == 2:
            t = torch.randn(shape, generator=gen, dtype=torch.float64) * 0.2
        elif name.endswith(".w"):
            t = 1.0 + 0.1 * torch.randn(shape, generator=gen, dtype=torch.float64)
        else:
            t = 0.1 * torch.randn(shape, generator=gen, dtype=torch.float64)
        # round to float32 first: the C++ side starts from exactly these values
        params[name] = t.float().double().requires_grad_(True)
    return params


def allowed(kind, window, stride, T):
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    ok = j <= i
    if kind == BANDED:
        ok &= (i - j) < window
    elif kind == STRIDED:
        ok &= ((i - j) < stride) | (((i - j) % stride) == 0)
    return ok


def phi(x):
    """Katharopoulos et al. 2020's feature map, elu(x) + 1."""
    return F.elu(x) + 1.0


def linear_attention(q, k, v):
    """Causal linear attention in its attention form: weights φ(q_t)·φ(k_j), j <= t,
    divided by their sum. q, k, v (B,H,T,hs)."""
    T = q.shape[-2]
    A = (phi(q) @ phi(k).transpose(-2, -1)).masked_fill(~allowed(CAUSAL, 0, 0, T), 0.0)
    return (A / A.sum(-1, keepdim=True)) @ v


def delta_rule(q, k, v, beta):
    """Schlag et al. 2021's delta rule, written as its recurrence (the fast-weight form;
    the C++ trains with the attention form): k̂, q̂ = φ(.) / sum, W_t = W_{t-1} +
    β_t (v_t − W_{t-1} k̂_t) ⊗ k̂_t, y_t = W_t q̂_t. beta (B,H,T)."""
    B, H, T, hs = q.shape
    qn = phi(q) / phi(q).sum(-1, keepdim=True)
    kn = phi(k) / phi(k).sum(-1, keepdim=True)
    W = torch.zeros(B, H, hs, hs, dtype=q.dtype)
    ys = []
    for t in range(T):
        kt, vt = kn[:, :, t], v[:, :, t]
        vbar = (W @ kt.unsqueeze(-1)).squeeze(-1)
        W = W + (beta[:, :, t].unsqueeze(-1) * (vt - vbar)).unsqueeze(-1) * kt.unsqueeze(-2)
        ys.append((W @ qn[:, :, t].unsqueeze(-1)).squeeze(-1))
    return torch.stack(ys, dim=2)


def embed(cfg, P, tokens, vectors):
    """The input embedding: wte[tokens] and/or vectors · wxᵀ + bx, plus wpe (transformer)."""
    arch, din, tin, _, _ = io(cfg)
    B, T = tokens.shape
    x = torch.zeros(B, T, cfg["width"], dtype=torch.float64)
    if tin:
        x = x + P["wte"][tokens]
    if din:
        x = x + F.linear(vectors, P["wx"], P["bx"])
    if arch == TRANSFORMER:
        x = x + P["wpe"][:T]
    return x


def readout(cfg, P, x):
    """LNf, then (logits, predictions): the tied softmax head and the regression readout."""
    _, _, _, dout, tout = io(cfg)
    C = cfg["width"]
    x = F.layer_norm(x, (C,), P["lnf.w"], P["lnf.b"], eps=1e-5)
    logits = x @ P["wte"].T if tout else None
    yhat = F.linear(x, P["wy"], P["by"]) if dout else None
    return logits, yhat


def gru_forward(cfg, P, tokens, vectors):
    """PyTorch's own GRU kernel (torch._VF.gru, what nn.GRU calls: float64, batch_first,
    h_0 = 0) with P's tensors as its weights, so gradients reach them."""
    C, L = cfg["width"], cfg["layers"]
    x = embed(cfg, P, tokens, vectors)
    weights = []
    for l in range(L):
        weights += [P[f"g{l}.w_ih"], P[f"g{l}.w_hh"], P[f"g{l}.b_ih"], P[f"g{l}.b_hh"]]
    h0 = torch.zeros(L, x.shape[0], C, dtype=torch.float64)
    out, _ = torch._VF.gru(x, h0, weights, True, L, 0.0, False, False, True)
    return readout(cfg, P, out)


def forward_io(cfg, P, tokens, vectors=None):
    """(logits, predictions) of either architecture."""
    if io(cfg)[0] == GRU:
        return gru_forward(cfg, P, tokens, vectors)
    return forward(cfg, P, tokens, vectors, both=True)


def forward(cfg, P, tokens, vectors=None, both=False):
    B, T = tokens.shape
    C, H = cfg["width"], cfg["heads"]
    hs = C // H
    x = embed(cfg, P, tokens, vectors)
    for l in range(cfg["layers"]):
        p = f"h{l}."
        h = F.layer_norm(x, (C,), P[p + "ln1.w"], P[p + "ln1.b"], eps=1e-5)
        q = F.linear(h, P[p + "attn.wq"], P[p + "attn.bq"]).view(B, T, H, hs).transpose(1, 2)
        k = F.linear(h, P[p + "attn.wk"], P[p + "attn.bk"]).view(B, T, H, hs).transpose(1, 2)
        v = F.linear(h, P[p + "attn.wv"], P[p + "attn.bv"]).view(B, T, H, hs).transpose(1, 2)
        kind, window, stride = cfg["attention"][l]
        if kind_of(cfg, l) == LINEAR:
            y = linear_attention(q, k, v).transpose(1, 2).reshape(B, T, C)
        elif kind_of(cfg, l) == DELTA:
            beta = torch.sigmoid(F.linear(h, P[p + "attn.wb"], P[p + "attn.bb"])).transpose(1, 2)
            y = delta_rule(q, k, v, beta).transpose(1, 2).reshape(B, T, C)
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
            scores = scores.masked_fill(~allowed(kind, window, stride, T), float("-inf"))
            y = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + F.linear(y, P[p + "attn.wo"], P[p + "attn.bo"])
        if not cfg["attention_only"]:
            h = F.layer_norm(x, (C,), P[p + "ln2.w"], P[p + "ln2.b"], eps=1e-5)
            h = F.gelu(F.linear(h, P[p + "mlp.w1"], P[p + "mlp.b1"]), approximate="tanh")
            x = x + F.linear(h, P[p + "mlp.w2"], P[p + "mlp.b2"])
    logits, yhat = readout(cfg, P, x)
    return (logits, yhat) if both else logits


def loss_of(logits, targets):
    V = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-1)


def config_ints(cfg):
    out = [cfg["vocab"], cfg["context"], cfg["width"], cfg["layers"], cfg["heads"],
           cfg["mlp_ratio"], int(cfg["attention_only"])]
    for a in cfg["attention"]:
        out += list(a)
    if "kinds" in cfg:  # read by test_gpt_golden.cpp when present
        out += list(cfg["kinds"])
    return out


def write_container(path, entries):
    with open(path, "wb") as f:
        f.write(b"ICLGOLD1")
        f.write(struct.pack("<I", len(entries)))
        for name, t in entries:
            t = t.detach().contiguous()
            is_int = t.dtype in (torch.int32, torch.int64)
            data = t.to(torch.int32 if is_int else torch.float32).numpy().astype("<i4" if is_int else "<f4")
            nb = name.encode()
            f.write(struct.pack("<I", len(nb)) + nb)
            f.write(struct.pack("<II", 1 if is_int else 0, data.ndim))
            f.write(struct.pack(f"<{data.ndim}I", *data.shape))
            f.write(data.tobytes())


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def write_checkpoint(path, cfg, P):
    """The checkpoint format of core/model/icl/checkpoint.h, version 1."""
    names = tensor_names(cfg)
    table = b""
    offset = 0
    for name, shape, _ in names:
        nb = name.encode()
        count = math.prod(shape)
        table += struct.pack("<I", len(nb)) + nb + struct.pack("<I", len(shape))
        table += struct.pack(f"<{len(shape)}I", *shape) + struct.pack("<QQ", offset, count)
        offset += count
    conf = struct.pack("<7I", *config_ints(cfg)[:7])
    for a in cfg["attention"]:
        conf += struct.pack("<3I", *a)
    header_rest = conf + struct.pack("<I", len(names)) + table
    header_size = 8 + 4 + 4 + len(header_rest)
    blob = b"ICLGPTCK" + struct.pack("<II", 1, header_size) + header_rest
    for name, _, _ in names:
        blob += P[name].detach().float().numpy().astype("<f4").tobytes()
    blob += struct.pack("<Q", fnv1a64(blob))
    with open(path, "wb") as f:
        f.write(blob)


def make_fixture(tag, cfg, B, T, seed, adamw, unscored):
    gen = torch.Generator().manual_seed(seed)
    P = make_params(cfg, gen)
    tokens = torch.randint(0, cfg["vocab"], (B, T), generator=gen)
    targets = torch.randint(0, cfg["vocab"], (B, T), generator=gen)
    for (b, t) in unscored:
        targets[b, t] = -1

    logits = forward(cfg, P, tokens)
    loss = loss_of(logits, targets)
    loss.backward()
    entries = [("config", torch.tensor(config_ints(cfg), dtype=torch.int32)),
               ("tokens", tokens.int()), ("targets", targets.int()),
               ("logits", logits), ("loss", loss.reshape(1))]
    names = tensor_names(cfg)
    entries += [("param/" + n, P[n]) for n, _, _ in names]
    entries += [("grad/" + n, P[n].grad) for n, _, _ in names]

    # 10 AdamW steps on the same batch: decay on matrices and embeddings only,
    # gradients clipped to a global norm before each step; the loss before each step.
    lr, beta1, beta2, eps, wd, clip = adamw
    Q = {n: P[n].detach().clone().requires_grad_(True) for n, _, _ in names}
    decay = [Q[n] for n, _, d in names if d]
    no_decay = [Q[n] for n, _, d in names if not d]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": wd},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(beta1, beta2), eps=eps)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        step_loss = loss_of(forward(cfg, Q, tokens), targets)
        step_loss.backward()
        torch.nn.utils.clip_grad_norm_([Q[n] for n, _, _ in names], clip)
        opt.step()
        losses.append(step_loss.item())
    entries += [("adamw", torch.tensor(list(adamw), dtype=torch.float64)),
                ("adamw_losses", torch.tensor(losses, dtype=torch.float64))]
    write_container(os.path.join(HERE, f"gpt_{tag}.bin"), entries)
    return P


def io_ints(cfg):
    arch, din, tin, dout, tout = io(cfg)
    return [arch, din, int(tin), dout, int(tout)]


def io_loss(logits, yhat, targets, target_vectors, mask):
    """Cross-entropy on the scored targets (if any head) + the mean over the masked
    positions and D_out of (ŷ − y)²."""
    loss = torch.zeros((), dtype=torch.float64)
    if logits is not None:
        loss = loss + loss_of(logits, targets)
    if yhat is not None:
        m = mask.double().unsqueeze(-1)
        loss = loss + ((yhat - target_vectors) ** 2 * m).sum() / (m.sum() * yhat.shape[-1])
    return loss


def make_io_fixture(tag, cfg, B, T, seed, adamw, unscored, masked_off):
    """A fixture for a model with a vector input and/or a regression readout, or a GRU:
    the batch adds vectors (B,T,D_in), target_vectors (B,T,D_out) and mask (B,T), the
    config an "io" entry (arch, input_dim, token_input, output_dim, token_output)."""
    arch, din, tin, dout, tout = io(cfg)
    gen = torch.Generator().manual_seed(seed)
    P = make_params(cfg, gen)
    tokens = torch.randint(0, cfg["vocab"], (B, T), generator=gen)
    targets = torch.randint(0, cfg["vocab"], (B, T), generator=gen)
    for (b, t) in unscored:
        targets[b, t] = -1
    vectors = torch.randn(B, T, max(din, 1), generator=gen, dtype=torch.float64).float().double()
    target_vectors = torch.randn(B, T, max(dout, 1), generator=gen, dtype=torch.float64).float().double()
    mask = torch.ones(B, T, dtype=torch.int32)
    for (b, t) in masked_off:
        mask[b, t] = 0

    def run(params):
        logits, yhat = forward_io(cfg, params, tokens, vectors if din else None)
        return logits, yhat, io_loss(logits, yhat, targets, target_vectors, mask)

    logits, yhat, loss = run(P)
    loss.backward()
    entries = [("config", torch.tensor(config_ints(cfg), dtype=torch.int32)),
               ("io", torch.tensor(io_ints(cfg), dtype=torch.int32)),
               ("tokens", tokens.int()), ("targets", targets.int()), ("vectors", vectors),
               ("target_vectors", target_vectors), ("mask", mask), ("loss", loss.reshape(1))]
    if logits is not None:
        entries.append(("logits", logits))
    if yhat is not None:
        entries.append(("predictions", yhat))
    names = tensor_names(cfg)
    for n, _, _ in names:
        assert P[n].grad is not None, n
    entries += [("param/" + n, P[n]) for n, _, _ in names]
    entries += [("grad/" + n, P[n].grad) for n, _, _ in names]

    lr, beta1, beta2, eps, wd, clip = adamw
    Q = {n: P[n].detach().clone().requires_grad_(True) for n, _, _ in names}
    opt = torch.optim.AdamW([{"params": [Q[n] for n, _, d in names if d], "weight_decay": wd},
                             {"params": [Q[n] for n, _, d in names if not d], "weight_decay": 0.0}],
                            lr=lr, betas=(beta1, beta2), eps=eps)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        step_loss = run(Q)[2]
        step_loss.backward()
        torch.nn.utils.clip_grad_norm_([Q[n] for n, _, _ in names], clip)
        opt.step()
        losses.append(step_loss.item())
    entries += [("adamw", torch.tensor(list(adamw), dtype=torch.float64)),
                ("adamw_losses", torch.tensor(losses, dtype=torch.float64))]
    write_container(os.path.join(HERE, f"{tag}.bin"), entries)


def gru_self_check():
    """The GRU kernel against the GRU's equations written out here, and against nn.GRU given
    the same weights: a fixture cannot hold another gate order or a module's own weights."""
    cfg = dict(vocab=5, context=4, width=3, layers=1, heads=1, mlp_ratio=1, attention_only=True,
               attention=[(CAUSAL, 0, 0)], arch=GRU)
    gen = torch.Generator().manual_seed(9)
    P = make_params(cfg, gen)
    tokens = torch.randint(0, 5, (2, 4), generator=gen)
    x = embed(cfg, P, tokens, None)
    C = 3
    h = torch.zeros(2, C, dtype=torch.float64)
    outs = []
    for t in range(4):
        gi = F.linear(x[:, t], P["g0.w_ih"], P["g0.b_ih"])
        gh = F.linear(h, P["g0.w_hh"], P["g0.b_hh"])
        r = torch.sigmoid(gi[:, :C] + gh[:, :C])
        z = torch.sigmoid(gi[:, C:2 * C] + gh[:, C:2 * C])
        n = torch.tanh(gi[:, 2 * C:] + r * gh[:, 2 * C:])
        h = (1 - z) * n + z * h
        outs.append(h)
    want = readout(cfg, P, torch.stack(outs, 1))[0]
    got = gru_forward(cfg, P, tokens, None)[0]
    assert torch.allclose(want, got, atol=1e-12), (want - got).abs().max()
    module = torch.nn.GRU(C, C, batch_first=True).double()
    with torch.no_grad():
        for mine, theirs in (("w_ih", "weight_ih_l0"), ("w_hh", "weight_hh_l0"), ("b_ih", "bias_ih_l0"),
                             ("b_hh", "bias_hh_l0")):
            getattr(module, theirs).copy_(P["g0." + mine])
    assert torch.allclose(readout(cfg, P, module(x)[0])[0], got, atol=1e-12)


def main():
    torch.set_num_threads(1)
    dense = dict(vocab=32, context=16, width=32, layers=2, heads=4, mlp_ratio=4,
                 attention_only=False, attention=[(CAUSAL, 0, 0)] * 2)
    make_fixture("dense", dense, B=3, T=16, seed=1, adamw=(1e-2, 0.9, 0.99, 1e-8, 0.1, 1.0),
                 unscored=[])
    mixed = dict(vocab=29, context=12, width=24, layers=4, heads=3, mlp_ratio=2,
                 attention_only=False,
                 attention=[(CAUSAL, 0, 0), (BANDED, 3, 0), (CAUSAL, 0, 0), (STRIDED, 0, 4)])
    P = make_fixture("mixed", mixed, B=2, T=11, seed=2, adamw=(3e-3, 0.8, 0.95, 1e-6, 0.05, 0.5),
                     unscored=[(0, 0), (1, 5)])
    write_checkpoint(os.path.join(HERE, "ckpt_mixed.icl"), mixed, P)
    attn_only = dict(vocab=20, context=10, width=16, layers=2, heads=2, mlp_ratio=4,
                     attention_only=True, attention=[(CAUSAL, 0, 0), (BANDED, 4, 0)])
    make_fixture("attn_only", attn_only, B=2, T=10, seed=3,
                 adamw=(1e-2, 0.9, 0.999, 1e-8, 0.01, 1.0), unscored=[])
    fast = dict(vocab=17, context=10, width=16, layers=3, heads=2, mlp_ratio=2,
                attention_only=False, attention=[(CAUSAL, 0, 0)] * 3,
                kinds=[LINEAR, DELTA, SOFTMAX])
    make_fixture("fast", fast, B=2, T=10, seed=4, adamw=(1e-2, 0.9, 0.99, 1e-8, 0.1, 1.0),
                 unscored=[(1, 2)])
    # tokens and vectors summed in, both readouts (losses summed), an MLP, a banded layer
    vector = dict(vocab=13, context=9, width=16, layers=2, heads=2, mlp_ratio=2,
                  attention_only=False, attention=[(CAUSAL, 0, 0), (BANDED, 3, 0)],
                  input_dim=5, output_dim=3)
    make_io_fixture("gpt_vector", vector, B=2, T=9, seed=5, adamw=(1e-2, 0.9, 0.99, 1e-8, 0.1, 1.0),
                    unscored=[(0, 3)], masked_off=[(0, 0), (1, 4), (1, 5)])
    # vectors in, a scalar regression out, attention only: no token embedding at all
    regression = dict(vocab=2, context=8, width=12, layers=2, heads=3, mlp_ratio=4,
                      attention_only=True, attention=[(CAUSAL, 0, 0)] * 2,
                      input_dim=4, token_input=False, output_dim=1, token_output=False)
    make_io_fixture("gpt_regression", regression, B=3, T=8, seed=6,
                    adamw=(1e-2, 0.9, 0.999, 1e-8, 0.01, 1.0), unscored=[],
                    masked_off=[(b, t) for b in range(3) for t in range(0, 8, 2)])
    # the recurrent control: tokens and vectors in, both readouts; and vectors in, regression out
    gru_self_check()
    gru = dict(vocab=11, context=7, width=8, layers=2, heads=1, mlp_ratio=1, attention_only=False,
               attention=[(CAUSAL, 0, 0)] * 2, arch=GRU, input_dim=3, output_dim=2)
    make_io_fixture("gru_mixed", gru, B=2, T=7, seed=7, adamw=(1e-2, 0.9, 0.99, 1e-8, 0.1, 1.0),
                    unscored=[(1, 1)], masked_off=[(0, 2)])
    gru_reg = dict(vocab=2, context=6, width=6, layers=1, heads=1, mlp_ratio=1, attention_only=False,
                   attention=[(CAUSAL, 0, 0)], arch=GRU, input_dim=4, token_input=False, output_dim=1,
                   token_output=False)
    make_io_fixture("gru_regression", gru_reg, B=3, T=6, seed=8,
                    adamw=(1e-2, 0.9, 0.999, 1e-8, 0.0, 1.0), unscored=[], masked_off=[(2, 0)])


if __name__ == "__main__":
    main()

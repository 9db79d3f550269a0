#!/usr/bin/python3
"""The PyTorch anchor for `bench/run train`: one GPT-2-style training step (forward,
backward, AdamW; tied LM head, tanh-GELU, pre-LN, causal attention) on one thread,
for the configs of bench/train.cpp. Prints one line per config:
    torch config=S ms=16.7 blas=<OpenBLAS core>
Run it as bench/run does, with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for this
process only:  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/train_torch.py S M L
"""
import ctypes
import ctypes.util
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = {"S": (64, 64, 64, 2, 4, 16), "M": (64, 128, 128, 4, 4, 8), "L": (96, 256, 192, 6, 6, 8)}


class Block(nn.Module):
    def __init__(self, C, H, T):
        super().__init__()
        self.H = H
        self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.qkv, self.proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        self.fc, self.fc2 = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
        self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)))

    def forward(self, x):
        B, T, C = x.shape
        hs = C // self.H
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.H, hs).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = F.softmax(att.masked_fill(~self.mask[:T, :T], float("-inf")), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, C))
        return x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, V, T, C, L, H):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
        self.blocks = nn.ModuleList(Block(C, H, T) for _ in range(L))
        self.lnf = nn.LayerNorm(C)

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        logits = self.lnf(x) @ self.wte.weight.T
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def blas_core():
    try:
        lib = ctypes.CDLL(torch._C.__file__)
        name = ctypes.util.find_library("openblas")
        lib = ctypes.CDLL(name) if name else lib
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "unknown"


def time_step(name, samples):
    V, T, C, L, H, B = CONFIGS[name]
    torch.manual_seed(0)
    model = GPT(V, T, C, L, H)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    idx = torch.randint(0, V, (B, T))
    tgt = torch.randint(0, V, (B, T))

    def step():
        opt.zero_grad(set_to_none=True)
        model(idx, tgt).backward()
        opt.step()

    step()
    ms = []
    for _ in range(samples):
        t0 = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1e3)
    return sorted(ms)[len(ms) // 2]


def main():
    torch.set_num_threads(1)
    core = blas_core()
    for name in sys.argv[1:] or ["S", "M", "L"]:
        samples = 7 if name == "L" else 15
        print(f"torch config={name} ms={time_step(name, samples):.3f} blas={core}", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes theory_baselines.txt: inputs and the numpy (float64) answers that
tests/unit/test_regression_baselines.cpp and test_linear_probe.cpp compare the core's
closed forms with. Each answer is computed here by another route than the core's:

  dMMSE   Bayes' rule over the pool with scipy's logsumexp, one prefix at a time.
  ridge   np.linalg.lstsq (SVD) on the augmented system [X; sqrt(lam) I] w = [y; 0].
  OLS     np.linalg.pinv (SVD), the minimum-norm fit.
  probe   np.linalg.lstsq on [F 1; sqrt(lam) I 0] [W; b] = [T; 0] (the intercept's
          column unpenalised, no centring), R^2 from its predictions.

Inputs are rounded to float32 first (the core reads them as floats), and every number is
written with 17 significant digits. Format: one array a line, `name rows cols values...`.

Rerun from the repository root:  /usr/bin/python3 tests/golden/make_theory_fixture.py
"""
import os

import numpy as np
from scipy.special import logsumexp

rng = np.random.default_rng(20261207)
out = {}


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


# ---- in-context regression with a pool of M tasks (Raventos et al.) ----
M, D, K, noise_var = 6, 4, 10, 0.25
pool = f32(rng.standard_normal((M, D)))
x = f32(rng.standard_normal((K, D)))
y = f32(x @ pool[2] + np.sqrt(noise_var) * rng.standard_normal(K))

dmmse = np.zeros(K)
for k in range(K):
    sse = ((y[:k, None] - x[:k] @ pool.T) ** 2).sum(axis=0)  # (M,)
    logp = -sse / (2 * noise_var)
    post = np.exp(logp - logsumexp(logp))
    dmmse[k] = (post @ pool) @ x[k]
sse = ((y[:, None] - x @ pool.T) ** 2).sum(axis=0)
logp = -sse / (2 * noise_var)
post_all = np.exp(logp - logsumexp(logp))

ridge = np.zeros(K)
ols = np.zeros(K)
for k in range(1, K):
    a = np.vstack([x[:k], np.sqrt(noise_var) * np.eye(D)])
    b = np.concatenate([y[:k], np.zeros(D)])
    ridge[k] = np.linalg.lstsq(a, b, rcond=None)[0] @ x[k]
    ols[k] = (np.linalg.pinv(x[:k]) @ y[:k]) @ x[k]

out.update(pool=pool, x=x, y=y[None, :], noise_var=np.array([[noise_var]]), dmmse=dmmse[None, :],
           dmmse_posterior=post_all[None, :], ridge=ridge[None, :], ols=ols[None, :])

# ---- a linear probe with intercept, ridge lam ----
N, P, T, lam = 30, 5, 2, 0.7
F = f32(rng.standard_normal((N, P)) + 0.5)
W_true = rng.standard_normal((P, T))
Tt = f32(F @ W_true + 0.3 + 0.4 * rng.standard_normal((N, T)))
F2 = f32(rng.standard_normal((20, P)) + 0.5)
T2 = f32(F2 @ W_true + 0.3 + 0.4 * rng.standard_normal((20, T)))
a = np.vstack([np.hstack([F, np.ones((N, 1))]), np.hstack([np.sqrt(lam) * np.eye(P), np.zeros((P, 1))])])
sol = np.linalg.lstsq(a, np.vstack([Tt, np.zeros((P, T))]), rcond=None)[0]
W, bias = sol[:P], sol[P]


def r2(feat, targ):
    pred = feat @ W + bias
    sse = ((targ - pred) ** 2).sum(axis=0)
    sst = ((targ - targ.mean(axis=0)) ** 2).sum(axis=0)
    return np.concatenate([[1 - sse.sum() / sst.sum()], 1 - sse / sst])


out.update(probe_features=F, probe_targets=Tt, probe_lambda=np.array([[lam]]), probe_weights=W,
           probe_bias=bias[None, :], probe_r2_train=r2(F, Tt)[None, :], probe_features_test=F2,
           probe_targets_test=T2, probe_r2_test=r2(F2, T2)[None, :])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "theory_baselines.txt")
with open(path, "w") as f:
    for name, v in out.items():
        v = np.atleast_2d(v)
        f.write(f"{name} {v.shape[0]} {v.shape[1]} " + " ".join(f"{e:.17g}" for e in v.ravel()) + "\n")
print("wrote", path)

// The elementwise and row-wise layers: layernorm, GELU (with the fused bias and fc2
// backward), cross-entropy.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- layernorm -------------------------------------------------------------------
    // Σ x (n)
    static float row_sum(const float* x, int n) {
        B sv(0.0f);
        int j = 0;
        for (; j + W <= n; j += W) sv += B::load_unaligned(x + j);
        float s = lane_sum(sv);
        for (; j < n; ++j) s += x[j];
        return s;
    }

    // y (N,C), mean (N), rstd (N) from x (N,C), gamma (C), beta (C); two-pass variance
    static void layernorm_forward(float* y, float* mean, float* rstd, const float* x,
                                  const float* gamma, const float* beta, int N, int C, float eps) {
        for (int n = 0; n < N; ++n) {
            const float* xr = x + (size_t)n * C;
            float* yr = y + (size_t)n * C;
            const float m = row_sum(xr, C) / C;
            const B mv(m);
            B vv(0.0f);
            int c = 0;
            for (; c + W <= C; c += W) {
                const B d = B::load_unaligned(xr + c) - mv;
                vv += d * d;
            }
            float var = lane_sum(vv);
            for (; c < C; ++c) var += (xr[c] - m) * (xr[c] - m);
            var /= C;
            const float rs = 1.0f / std::sqrt(var + eps);
            const B rv(rs);
            for (c = 0; c + W <= C; c += W)
                ((B::load_unaligned(xr + c) - mv) * rv * B::load_unaligned(gamma + c) +
                 B::load_unaligned(beta + c))
                    .store_unaligned(yr + c);
            for (; c < C; ++c) yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
            mean[n] = m;
            rstd[n] = rs;
        }
    }

    // dx (N,C) +=, dgamma (C) +=, dbeta (C) += ; see the reference for the formula
    static void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy,
                                   const float* x, const float* mean, const float* rstd,
                                   const float* gamma, int N, int C) {
        for (int n = 0; n < N; ++n) {
            const float* dyr = dy + (size_t)n * C;
            const float* xr = x + (size_t)n * C;
            float* dxr = dx + (size_t)n * C;
            const float m = mean[n], rs = rstd[n];
            const B mv(m), rv(rs);
            B gs(0.0f), gxs(0.0f);
            int c = 0;
            for (; c + W <= C; c += W) {
                const B xhat = (B::load_unaligned(xr + c) - mv) * rv;
                const B g = B::load_unaligned(dyr + c) * B::load_unaligned(gamma + c);
                gs += g;
                gxs += g * xhat;
            }
            float g_mean = lane_sum(gs), gx_mean = lane_sum(gxs);
            for (; c < C; ++c) {
                const float xhat = (xr[c] - m) * rs;
                g_mean += dyr[c] * gamma[c];
                gx_mean += dyr[c] * gamma[c] * xhat;
            }
            g_mean /= C;
            gx_mean /= C;
            const B gm(g_mean), gxm(gx_mean);
            for (c = 0; c + W <= C; c += W) {
                const B d = B::load_unaligned(dyr + c);
                const B xhat = (B::load_unaligned(xr + c) - mv) * rv;
                (B::load_unaligned(dbeta + c) + d).store_unaligned(dbeta + c);
                (B::load_unaligned(dgamma + c) + d * xhat).store_unaligned(dgamma + c);
                (B::load_unaligned(dxr + c) +
                 rv * (d * B::load_unaligned(gamma + c) - gm - xhat * gxm))
                    .store_unaligned(dxr + c);
            }
            for (; c < C; ++c) {
                const float xhat = (xr[c] - m) * rs;
                dbeta[c] += dyr[c];
                dgamma[c] += dyr[c] * xhat;
                dxr[c] += rs * (dyr[c] * gamma[c] - g_mean - xhat * gx_mean);
            }
        }
    }

    // ---- GELU (tanh) ---------------------------------------------------------------------
    static constexpr float kS = 0.7978845608028654f;  // sqrt(2/pi)
    static constexpr float kC = 0.044715f;

    // h = 0.5 (1 + tanh u) = σ(2u) = 1 / (1 + e^{−2u}) of N vectors (each step over all
    // N, as exp_n): one exp instead of a tanh. −2u is capped at 88 (e^88 is finite; σ is
    // then 0 to float precision). With u = kS (x + kC x³), −2u = x (−2 kS − 2 kS kC x²):
    // three operations; with the fma-folded gelu' below, cheaper than a tanh.
    template <int N>
    static void gelu_h_n(const B* x, B* h) {
        ICL_EACH(u) h[u] = xsimd::min(x[u] * fma(x[u] * x[u], B(-2.0f * kS * kC), B(-2.0f * kS)), B(88.0f));
        exp_n<N>(h);
        ICL_EACH(u) h[u] = B(1.0f) / (B(1.0f) + h[u]);
    }
    // gelu'(x) of one vector from x and its h = 0.5 (1 + t): 0.5 (1 − t²) = 2 h (1 − h)
    // (with 2 du/dx = 2 kS + 6 kS kC x² folded into one fma)
    static B gelu_grad_v(B xv, B h) {
        const B du2 = fma(xv * xv, B(6.0f * kS * kC), B(2.0f * kS));
        return fma(xv * h, (B(1.0f) - h) * du2, h);
    }
    // gelu and gelu' of one scalar (the tails, as the reference)
    static float gelu_s(float x) { return 0.5f * x * (1.0f + std::tanh(kS * (x + kC * x * x * x))); }
    static float gelu_grad_s(float x) {
        const float t = std::tanh(kS * (x + kC * x * x * x));
        const float du = kS * (1.0f + 3.0f * kC * x * x);
        return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
    }

    // y (n) = 0.5 x (1 + tanh(s (x + c x^3))): kChains vectors at a time, then one, then
    // the scalar tail
    static void gelu_forward(float* y, const float* x, size_t n) {
        size_t i = 0;
        for (; i + kChains * W <= n; i += kChains * W) gelu_fwd_n<kChains>(y + i, x + i);
        for (; i + W <= n; i += W) gelu_fwd_n<1>(y + i, x + i);
        for (; i < n; ++i) y[i] = gelu_s(x[i]);
    }
    template <int N>
    static void gelu_fwd_n(float* y, const float* x) {
        B xv[N], h[N];
        ICL_EACH(u) xv[u] = B::load_unaligned(x + u * W);
        gelu_h_n<N>(xv, h);
        ICL_EACH(u) (xv[u] * h[u]).store_unaligned(y + u * W);
    }

    // dx (n) += dy * gelu'(x)
    static void gelu_backward(float* dx, const float* x, const float* dy, size_t n) {
        size_t i = 0;
        for (; i + kChains * W <= n; i += kChains * W) gelu_bwd_n<kChains>(dx + i, x + i, dy + i);
        for (; i + W <= n; i += W) gelu_bwd_n<1>(dx + i, x + i, dy + i);
        for (; i < n; ++i) dx[i] += dy[i] * gelu_grad_s(x[i]);
    }
    template <int N>
    static void gelu_bwd_n(float* dx, const float* x, const float* dy) {
        B xv[N], h[N];
        ICL_EACH(u) xv[u] = B::load_unaligned(x + u * W);
        gelu_h_n<N>(xv, h);
        ICL_EACH(u) (B::load_unaligned(dx + u * W) + B::load_unaligned(dy + u * W) * gelu_grad_v(xv[u], h[u]))
            .store_unaligned(dx + u * W);
    }

    // pre (N,F) += bias, y = gelu(pre): the bias added over the row, then the row's GELU
    static void bias_gelu_forward(float* y, float* pre, const float* bias, int N, int F) {
        for (int r = 0; r < N; ++r) {
            float* p = pre + (size_t)r * F;
            int j = 0;
            for (; j + W <= F; j += W) (B::load_unaligned(p + j) + B::load_unaligned(bias + j)).store_unaligned(p + j);
            for (; j < F; ++j) p[j] += bias[j];
            gelu_forward(y + (size_t)r * F, p, F);
        }
    }

    // N vectors (gelu_back_s: one float) of the GELU's backward at pre p: d = dy in,
    // dy * gelu'(p) out; dbias += that; y = gelu(p), from the same h. bias_gelu_backward and
    // gelu_pack both go through these, so the two write the same bits.
    template <int N>
    static void gelu_back_n(const float* p, float* d, float* dbias, B* y) {
        B x[N], h[N];
        ICL_EACH(u) x[u] = B::load_unaligned(p + u * W);
        gelu_h_n<N>(x, h);
        ICL_EACH(u) {
            const B g = B::load_unaligned(d + u * W) * gelu_grad_v(x[u], h[u]);
            g.store_unaligned(d + u * W);
            (B::load_unaligned(dbias + u * W) + g).store_unaligned(dbias + u * W);
            y[u] = x[u] * h[u];
        }
    }
    static float gelu_back_s(float p, float& d, float& dbias) {
        dbias += (d *= gelu_grad_s(p));
        return gelu_s(p);
    }

    // d (N,F) = dy in, dy * gelu'(pre) out; y (N,F) = gelu(pre) from the same h; dbias (F)
    // += Σ_n of d: one pass
    static void bias_gelu_backward(float* d, float* y, float* dbias, const float* pre, int N, int F) {
        for (int r = 0; r < N; ++r) {
            const float* p = pre + (size_t)r * F;
            float* dr = d + (size_t)r * F;
            float* yr = y + (size_t)r * F;
            B g[kChains];
            int j = 0;
            for (; j + kChains * W <= F; j += kChains * W) {
                gelu_back_n<kChains>(p + j, dr + j, dbias + j, g);
                ICL_UNROLL for (int u = 0; u < kChains; ++u) g[u].store_unaligned(yr + j + u * W);
            }
            for (; j + W <= F; j += W) {
                gelu_back_n<1>(p + j, dr + j, dbias + j, g);
                g[0].store_unaligned(yr + j);
            }
            for (; j < F; ++j) yr[j] = gelu_back_s(p[j], dr[j], dbias[j]);
        }
    }

    // bias_gelu_backward and then linear_weight_grad(dW2, db2, dY, gelu(pre), N, F, C,
    // accumulate), without gelu(pre) ever written out in rows: for a problem not small(),
    // each block of the weight gradient's B operand is computed straight into the
    // product's packed panels (gelu_pack), which saves the packing's pass over (N,F) —
    // at config M 2 MB read and written again per layer. y (N,F) is used only for
    // small() problems.
    static void gelu_linear_backward(float* d, float* db1, float* dW2, float* db2, float* y,
                                     const float* pre, const float* dY, int N, int F, int C,
                                     bool accumulate) {
        if (small(C, N, F)) {
            bias_gelu_backward(d, y, db1, pre, N, F);
            return linear_weight_grad(dW2, db2, dY, y, N, F, C, accumulate);
        }
        const auto pack = [=](auto nv, float* Bp, int p0, int kc, int j0, int nc) {
            gelu_pack<decltype(nv)::value>(Bp, d, db1, pre, F, p0, kc, j0, nc);
        };
        weight_grad_packed(dW2, db2, dY, pack, N, F, C, accumulate);
    }
    // bias_gelu_backward on rows p0..p0+kc, columns j0..j0+nc of d and pre, with gelu(pre)
    // written as pack_b<NV> packs those rows and columns (zeros past nc), bit for bit what
    // bias_gelu_backward writes: a column goes the vector way iff its whole vector of the
    // row is inside F (j0 and NR are multiples of W).
    template <int NV>
    static void gelu_pack(float* Bp, float* d, float* db1, const float* pre, int F, int p0, int kc,
                          int j0, int nc) {
        constexpr int NR = kNR<NV>;
        const int full = nc / W, vectors = (nc + NR - 1) / NR * NV;  // whole ones; with the padding
        // vector q of row k: panel q / NV, its (q % NV)-th vector
        const auto at = [&](int q, int k) { return Bp + (size_t)(q / NV) * NR * kc + (size_t)k * NR + q % NV * W; };
        for (int k = 0; k < kc; ++k) {
            const float* p = pre + (size_t)(p0 + k) * F + j0;
            float* dr = d + (size_t)(p0 + k) * F + j0;
            float* db = db1 + j0;
            B g[kChains];
            int q = 0;
            for (; q + kChains <= full; q += kChains) {
                gelu_back_n<kChains>(p + q * W, dr + q * W, db + q * W, g);
                ICL_UNROLL for (int u = 0; u < kChains; ++u) g[u].store_aligned(at(q + u, k));
            }
            for (; q < full; ++q) {
                gelu_back_n<1>(p + q * W, dr + q * W, db + q * W, g);
                g[0].store_aligned(at(q, k));
            }
            for (; q < vectors; ++q)  // the partial vector, then the padding: zeros past nc
                for (int c = 0; c < W; ++c) {
                    const int jj = q * W + c;
                    at(q, k)[c] = jj < nc ? gelu_back_s(p[jj], dr[jj], db[jj]) : 0.0f;
                }
        }
    }

    // ---- cross-entropy -----------------------------------------------------------------
    // losses (N), probs (N,V) from logits (N,V), targets (N) in [0, V)
    static void crossentropy_forward(float* losses, float* probs, const float* logits,
                                     const int* targets, int N, int V) {
        for (int n = 0; n < N; ++n) {
            const float* l = logits + (size_t)n * V;
            float* p = probs + (size_t)n * V;
            const float mx = row_max(l, V, 1.0f);
            const float sum = exp_row(p, l, V, 1.0f, mx);
            scale_row(p, V, 1.0f / sum);
            losses[n] = std::log(sum) + mx - l[targets[n]];
        }
    }

    // dlogits (N,V) += dlosses (N) * (probs (N,V) − onehot(targets))
    static void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                                      const float* dlosses, int N, int V) {
        for (int n = 0; n < N; ++n) {
            const float* p = probs + (size_t)n * V;
            float* d = dlogits + (size_t)n * V;
            const float dl = dlosses[n];
            const B dlv(dl);
            int v = 0;
            for (; v + W <= V; v += W)
                (B::load_unaligned(d + v) + dlv * B::load_unaligned(p + v)).store_unaligned(d + v);
            for (; v < V; ++v) d[v] += dl * p[v];
            d[targets[n]] -= dl;
        }
    }

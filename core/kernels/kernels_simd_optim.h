// The optimizers' elementwise updates and the squared norm of the gradient clipping.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- optimizers (elementwise over n) --------------------------------------------------
    // p, g, m, v (n): one AdamW step, t >= 1 (bias corrections 1 − beta^t), on grad_scale·g.
    // Vectors in PyTorch's arithmetic: p (1 − lr wd) − (lr/bc1) m / (sqrt(v)/sqrt(bc2) + eps),
    // one division a lane (m̂ and v̂ are never formed).
    static void adamw_update(float* p, float* g, float* m, float* v, size_t n, float lr,
                             float beta1, float beta2, float eps, float weight_decay, int t,
                             float grad_scale) {
        const float bc1 = 1.0f - std::pow(beta1, (float)t);
        const float bc2 = 1.0f - std::pow(beta2, (float)t);
        const B b1(beta1), b2(beta2), ob1(1.0f - beta1), ob2(1.0f - beta2), gs(grad_scale);
        const B step(lr / bc1), rsb2(1.0f / std::sqrt(bc2)), decay(1.0f - lr * weight_decay);
        size_t i = 0;
        for (; i + W <= n; i += W) {
            const B gv = gs * B::load_unaligned(g + i), pv = B::load_unaligned(p + i);
            B(0.0f).store_unaligned(g + i);
            const B mv = b1 * B::load_unaligned(m + i) + ob1 * gv;
            const B vv = b2 * B::load_unaligned(v + i) + ob2 * gv * gv;
            mv.store_unaligned(m + i);
            vv.store_unaligned(v + i);
            (decay * pv - step * mv / fma(xsimd::sqrt(vv), rsb2, B(eps))).store_unaligned(p + i);
        }
        for (; i < n; ++i) {
            const float gi = grad_scale * g[i];
            g[i] = 0.0f;
            m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
            v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
            const float mhat = m[i] / bc1, vhat = v[i] / bc2;
            p[i] -= lr * (mhat / (std::sqrt(vhat) + eps) + weight_decay * p[i]);
        }
    }

    // p, g, buf (n): buf = momentum buf + g + wd p; p −= lr buf
    static void sgd_momentum_update(float* p, const float* g, float* buf, size_t n, float lr,
                                    float momentum, float weight_decay) {
        size_t i = 0;
        for (; i + W <= n; i += W) {
            const B pv = B::load_unaligned(p + i);
            const B bv = B(momentum) * B::load_unaligned(buf + i) +
                         (B::load_unaligned(g + i) + B(weight_decay) * pv);
            bv.store_unaligned(buf + i);
            (pv - B(lr) * bv).store_unaligned(p + i);
        }
        for (; i < n; ++i) {
            buf[i] = momentum * buf[i] + (g[i] + weight_decay * p[i]);
            p[i] -= lr * buf[i];
        }
    }

    // *sum = Σ x² (n): float vectors over blocks of 64 vectors (four sums, so the adds do
    // not wait on each other; each lane sums 16 squares), each block's total added in
    // double. A scalar sum in double ran at 5.4 floats/ns, in L1 or not: bound by its
    // adds' latency, not by memory.
    static void sum_squares(double* sum, const float* x, size_t n) {
        double total = 0.0;
        size_t i = 0;
        constexpr size_t kBlock = 64 * (size_t)W;
        for (; i + kBlock <= n; i += kBlock) {
            B s[4] = {B(0.0f), B(0.0f), B(0.0f), B(0.0f)};
            for (size_t j = 0; j < kBlock; j += 4 * W)
                ICL_UNROLL for (int u = 0; u < 4; ++u) {
                    const B xv = B::load_unaligned(x + i + j + u * W);
                    s[u] = fma(xv, xv, s[u]);
                }
            total += (double)lane_sum((s[0] + s[1]) + (s[2] + s[3]));
        }
        for (; i < n; ++i) total += (double)x[i] * x[i];
        *sum = total;
    }

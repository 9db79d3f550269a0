// Linear attention: the feature map φ and the fast-weight step.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- linear attention: feature map and fast-weight step ---------------------------
    // φ(x) = elu(x) + 1 = x + 1 for x > 0, e^x otherwise, and φ'(x) = 1 or e^x: e^min(x, 0)
    // by exp_n, kChains vectors at a time, then one, then the scalar tail; not xsimd::exp,
    // which rounds through _mm_cvttps_epi32, four scalar lrint calls under Emscripten.
    template <int N>
    static void feature_map_n(const float* x, B* xv, B* e) {
        ICL_EACH(u) xv[u] = B::load_unaligned(x + u * W);
        ICL_EACH(u) e[u] = xsimd::min(xv[u], B(0.0f));
        exp_n<N>(e);
    }
    // y (n) = φ(x)
    static void feature_map_forward(float* y, const float* x, size_t n) {
        const auto vectors = [&](auto nv, size_t i) {
            constexpr int N = decltype(nv)::value;
            B xv[N], e[N];
            feature_map_n<N>(x + i, xv, e);
            ICL_EACH(u) xsimd::select(xv[u] > B(0.0f), xv[u] + B(1.0f), e[u]).store_unaligned(y + i + u * W);
        };
        size_t i = 0;
        for (; i + kChains * W <= n; i += kChains * W) vectors(std::integral_constant<int, kChains>{}, i);
        for (; i + W <= n; i += W) vectors(std::integral_constant<int, 1>{}, i);
        for (; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] + 1.0f : std::exp(x[i]);
    }

    // dx (n) += dy * φ'(x)
    static void feature_map_backward(float* dx, const float* x, const float* dy, size_t n) {
        const auto vectors = [&](auto nv, size_t i) {
            constexpr int N = decltype(nv)::value;
            B xv[N], e[N];
            feature_map_n<N>(x + i, xv, e);
            ICL_EACH(u) {
                const B d = xsimd::select(xv[u] > B(0.0f), B(1.0f), e[u]);
                (B::load_unaligned(dx + i + u * W) + B::load_unaligned(dy + i + u * W) * d)
                    .store_unaligned(dx + i + u * W);
            }
        };
        size_t i = 0;
        for (; i + kChains * W <= n; i += kChains * W) vectors(std::integral_constant<int, kChains>{}, i);
        for (; i + W <= n; i += W) vectors(std::integral_constant<int, 1>{}, i);
        for (; i < n; ++i) dx[i] += dy[i] * (x[i] > 0.0f ? 1.0f : std::exp(x[i]));
    }

    // W (rows,dk) += u ⊗ k, u = beta (v − W k) [delta] or beta v; y (rows) = W q.
    // One pass per row: its dot with k, the write, its dot with q.
    static void fast_weight_step(float* Wm, float* y, const float* q, const float* k,
                                 const float* v, float beta, bool delta, int rows, int dk) {
        for (int r = 0; r < rows; ++r) {
            float* w = Wm + (size_t)r * dk;
            float wk = 0.0f;
            if (delta) {
                B acc(0.0f);
                int c = 0;
                for (; c + W <= dk; c += W)
                    acc = fma(B::load_unaligned(w + c), B::load_unaligned(k + c), acc);
                wk = lane_sum(acc);
                for (; c < dk; ++c) wk += w[c] * k[c];
            }
            const float u = beta * (v[r] - wk);
            const B uv(u);
            B acc(0.0f);
            int c = 0;
            for (; c + W <= dk; c += W) {
                const B wv = fma(uv, B::load_unaligned(k + c), B::load_unaligned(w + c));
                wv.store_unaligned(w + c);
                acc = fma(wv, B::load_unaligned(q + c), acc);
            }
            float wq = lane_sum(acc);
            for (; c < dk; ++c) {
                w[c] += u * k[c];
                wq += w[c] * q[c];
            }
            y[r] = wq;
        }
    }

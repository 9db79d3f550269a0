// The vector building blocks the other parts share: exp, lane reductions, row helpers.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- exp -------------------------------------------------------------------------
    // e^x for x <= 88 (softmax and cross-entropy pass x − max <= 0): Cephes' expf, a
    // degree-5 polynomial after taking out n·ln 2, within 2 ulp of std::exp. Inputs
    // below −87.3 give e^−87.3 ≈ 1.2e−38 (a normal float, never a slow denormal).
    //
    // exp_n<N> takes N independent vectors in place, each step over all N before the next
    // (ICL_EACH), so their dependency chains (about 20 operations deep) issue side by
    // side: a small FP scheduler overlaps only about two chains otherwise; six or eight spill.
    // Each vector goes through the same operations for every N. kChains is the N the loops use.
    static constexpr int kChains = 4;
    template <int N>
    static void exp_n(B* x) {
        using I = xsimd::batch<int32_t, Arch>;
        // n = x·log2(e) rounded to the nearest integer by adding 1.5·2^23, which leaves n
        // in the sum's low mantissa bits: 2^n's exponent field comes from those bits by an
        // integer subtract, with no float-to-int conversion (SIMD128 has no rounding one,
        // and Emscripten emulates _mm_cvttps_epi32 with four scalar lrint calls)
        const B magic(12582912.0f);
        B nm[N], n[N], r[N], p[N];
        ICL_EACH(u) x[u] = xsimd::max(x[u], B(-87.33654f));
        ICL_EACH(u) nm[u] = fma(x[u], B(1.44269504088896341f), magic);
        ICL_EACH(u) n[u] = nm[u] - magic;
        ICL_EACH(u) r[u] = fma(n[u], B(-0.693359375f), x[u]);
        ICL_EACH(u) r[u] = fma(n[u], B(2.12194440e-4f), r[u]);
        ICL_EACH(u) p[u] = fma(B(1.9875691500e-4f), r[u], B(1.3981999507e-3f));
        ICL_EACH(u) p[u] = fma(p[u], r[u], B(8.3334519073e-3f));
        ICL_EACH(u) p[u] = fma(p[u], r[u], B(4.1665795894e-2f));
        ICL_EACH(u) p[u] = fma(p[u], r[u], B(1.6666665459e-1f));
        ICL_EACH(u) p[u] = fma(p[u], r[u], B(5.0000001201e-1f));
        ICL_EACH(u) p[u] = fma(p[u] * r[u], r[u], r[u] + B(1.0f));  // y
#if defined(__AVX512F__)
        // y · 2^n in one instruction (exact, as the integer form below)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>) {
            ICL_EACH(u) x[u] = B(_mm512_scalef_ps(p[u], n[u]));
            return;
        }
#endif
        ICL_EACH(u) {  // 2^n, n >= −126
            const I e = (xsimd::bitwise_cast<I>(nm[u]) - xsimd::bitwise_cast<I>(magic) + I(127)) << 23;
            x[u] = p[u] * xsimd::bitwise_cast<B>(e);
        }
    }
    static B exp_approx(B x) {
        exp_n<1>(&x);
        return x;
    }
    // y (N vectors) = exp(scale · x + shift); sum += each, in order
    template <int N>
    static void exp_affine_n(float* y, const float* x, B scale, B shift, B& sum) {
        B e[N];
        ICL_EACH(u) e[u] = fma(scale, B::load_unaligned(x + u * W), shift);
        exp_n<N>(e);
        ICL_EACH(u) {
            e[u].store_unaligned(y + u * W);
            sum += e[u];
        }
    }

    // The sum of the lanes: with AVX-512 the compiler's shuffle tree, in place of xsimd's hadd
    // (8-lane horizontal adds; lane_max below goes through memory).
    static float lane_sum(B v) {
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>) return _mm512_reduce_add_ps(v);
#endif
        return xsimd::hadd(v);
    }
    // the largest lane (NaN-free input; std::max, not a call to std::fmax per lane)
    static float lane_max(B v) {
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>) return _mm512_reduce_max_ps(v);
#endif
        alignas(64) float lanes[W];
        v.store_aligned(lanes);
        float m = lanes[0];
        for (int l = 1; l < W; ++l) m = std::max(m, lanes[l]);
        return m;
    }

    // (0, 1, ..., W−1)
    static B lane_index() {
        alignas(64) float idx[W];
        for (int l = 0; l < W; ++l) idx[l] = (float)l;
        return B::load_aligned(idx);
    }

    // ---- row helpers --------------------------------------------------------------
    // max over j of scale * x[j], x (n); −inf for n = 0
    static float row_max(const float* x, int n, float scale) {
        float m = -INFINITY;
        int j = 0;
        if (n >= W) {
            B mv = B(scale) * B::load_unaligned(x);
            for (j = W; j + W <= n; j += W) mv = xsimd::max(mv, B(scale) * B::load_unaligned(x + j));
            m = lane_max(mv);
        }
        for (; j < n; ++j) m = std::max(m, scale * x[j]);
        return m;
    }
    // y (n) = exp(scale * x (n) − shift); returns the sum of y
    static float exp_row(float* y, const float* x, int n, float scale, float shift) {
        B sv(0.0f);
        int j = 0;
        for (; j + kChains * W <= n; j += kChains * W) exp_affine_n<kChains>(y + j, x + j, B(scale), B(-shift), sv);
        for (; j + W <= n; j += W) exp_affine_n<1>(y + j, x + j, B(scale), B(-shift), sv);
        float s = lane_sum(sv);
        for (; j < n; ++j) s += (y[j] = std::exp(scale * x[j] - shift));
        return s;
    }
    // y (n) *= f
    static void scale_row(float* y, int n, float f) {
        int j = 0;
        for (; j + W <= n; j += W) (B::load_unaligned(y + j) * B(f)).store_unaligned(y + j);
        for (; j < n; ++j) y[j] *= f;
    }

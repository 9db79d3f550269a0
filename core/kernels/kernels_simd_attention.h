// One attention head: the causal (lower-triangular) products, the masked softmax and its
// backward, and the banded form that computes only the window.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- causal (lower-triangular) products of one attention head ---------------------
    // Packed like the full products, each MR-row tile only over the k (or the column
    // tiles) the triangle leaves; small ones row by row with the same bounds.
    static void matmul_nt_lower(float* S, const float* A, const float* Bm, int T, int K, int lda,
                                int ldb) {
        // above the diagonal: what the tiles that straddle it computed, the rest untouched
        // (zeroing it, row by row, would cost a good share of this product)
        if (!small(T, K, T)) return gemm_packed(S, T, A, lda, 1, Bm, 1, ldb, T, K, T, false, kLowerC);
        for (int i = 0; i < T; ++i)
            gemm_dots(S + (size_t)i * T, A + (size_t)i * lda, 0, Bm, ldb, 1, K, i + 1, false);
    }
    static void matmul_nn_lower(float* C, const float* L, const float* Bm, int T, int N, int ldb,
                                int ldc) {
        if (!small(T, T, N)) return gemm_packed(C, ldc, L, T, 1, Bm, ldb, 1, T, T, N, false, kLowerA);
        for (int i = 0; i < T; ++i)  // row i: k <= i
            gemm_rows(C + (size_t)i * ldc, 0, L + (size_t)i * T, T, 1, Bm, ldb, 1, i + 1, N, false);
    }
    static void matmul_tn_lower(float* C, const float* L, const float* Bm, int T, int N, int ldb,
                                int ldc) {
        if (!small(T, T, N)) return gemm_packed(C, ldc, L, 1, T, Bm, ldb, 1, T, T, N, false, kUpperA);
        for (int i = 0; i < T; ++i)  // row i: k >= i, A(i,k) = L[k*T + i]
            gemm_rows(C + (size_t)i * ldc, 0, L + (size_t)i * T + i, 1, T, Bm + (size_t)i * ldb, ldb, 1,
                      T - i, N, false);
    }

    // ---- attention softmax ----------------------------------------------------------
    // P (T,T) = masked row softmax of scale * S (T,T). Row i allows a contiguous run
    // [lo, i] (all j for causal, the window for banded, the local run for strided)
    // plus, for strided, the columns i − m·stride below the run.
    // The run is done in whole vectors from lo, the last one up to the first past i
    // (only its lanes past i masked to 0, so no scalar tail) when it fits in the row;
    // only the columns past the row's last whole vector are scalar. Every other entry
    // is written 0 once.
    static void attention_softmax(float* P, const float* S, int T, float scale,
                                  AttentionMask mask) {
        for (int i = 0; i < T; ++i) softmax_row(P + (size_t)i * T, S + (size_t)i * T, i, T, scale, mask);
    }
    // Row i of the above: p (T) from s (T). For a mask without extra columns (causal,
    // banded) p may be s, as the banded forward has it: each entry of s in the run is read
    // before p's is written, and the lanes past the run that the partial vector loads are
    // selected away, whatever they hold.
    ICL_INLINE static void softmax_row(float* p, const float* s, int i, int T, float scale, AttentionMask mask) {
        const B sc(scale), lane = lane_index();
        // the lanes of the vector at column j that lie in the run (column < hi)
        auto below = [&lane](int j, int hi) { return lane < B((float)(hi - j)); };
        int lo = 0;
        if (mask.kind == AttentionMask::banded) lo = std::max(0, i - mask.window + 1);
        if (mask.kind == AttentionMask::strided) lo = std::max(0, i - mask.stride + 1);
        // strided: the extra columns i - stride, i - 2 stride, ... (none otherwise)
        const int extra = mask.kind == AttentionMask::strided ? i - mask.stride : -1;
        const int hi = i + 1;                                  // the run is [lo, hi)
        const int vfull = lo + (hi - lo) / W * W;              // whole vectors inside it
        const bool part = vfull < hi && vfull + W <= T;        // its partial last one, masked
        const int vend = part ? vfull + W : vfull;
        std::fill(p, p + lo, 0.0f);
        B mv(-INFINITY);
        for (int j = lo; j < vfull; j += W) mv = xsimd::max(mv, sc * B::load_unaligned(s + j));
        if (part)
            mv = xsimd::max(mv, xsimd::select(below(vfull, hi), sc * B::load_unaligned(s + vfull), B(-INFINITY)));
        float mx = lane_max(mv);
        for (int j = vend; j < hi; ++j) mx = std::max(mx, scale * s[j]);
        for (int j = extra; j >= 0; j -= mask.stride) mx = std::max(mx, scale * s[j]);
        B sv(0.0f);
        const B nmx(-mx);
        int j = lo;
        for (; j + kChains * W <= vfull; j += kChains * W) exp_affine_n<kChains>(p + j, s + j, sc, nmx, sv);
        for (; j < vfull; j += W) exp_affine_n<1>(p + j, s + j, sc, nmx, sv);
        if (part) {
            const B e = xsimd::select(below(vfull, hi), exp_approx(fma(sc, B::load_unaligned(s + vfull), nmx)), B(0.0f));
            e.store_unaligned(p + vfull);
            sv += e;
        }
        float sum = lane_sum(sv);
        for (int j = vend; j < hi; ++j) sum += (p[j] = std::exp(scale * s[j] - mx));
        std::fill(p + std::max(vend, hi), p + T, 0.0f);
        for (int j = extra; j >= 0; j -= mask.stride)
            sum += (p[j] = std::exp(scale * s[j] - mx));
        const float inv = 1.0f / sum;
        scale_row(p + lo, std::max(vend, hi) - lo, inv);
        for (int j = extra; j >= 0; j -= mask.stride) p[j] *= inv;
    }

    // d (T,T): dP in, dS = scale * P ∘ (dP − rowsum(dP ∘ P)) out, in place. Every mask
    // allows only j <= i, so dP is read on and below the diagonal only (matmul_nt_lower
    // leaves the rest unspecified): whole vectors up to the diagonal, then the vector that
    // holds it with its lanes past i selected away (a scalar tail where it would pass the
    // row's end). dS is written 0 above the diagonal, what the lower products read there.
    static void attention_softmax_backward(float* d, const float* P, int T, float scale) {
        const B sc(scale), lane = lane_index();
        for (int i = 0; i < T; ++i) {
            float* dp = d + (size_t)i * T;
            const float* p = P + (size_t)i * T;
            const int hi = i + 1, vfull = hi / W * W;
            const bool part = vfull < hi && vfull + W <= T;
            const int vend = part ? vfull + W : vfull;
            const auto keep = lane < B((float)(hi - vfull));  // the partial vector's lanes j <= i
            B dv(0.0f);
            int j = 0;
            for (; j < vfull; j += W) dv += B::load_unaligned(dp + j) * B::load_unaligned(p + j);
            if (part)
                dv += xsimd::select(keep, B::load_unaligned(dp + vfull) * B::load_unaligned(p + vfull), B(0.0f));
            float dot = lane_sum(dv);
            for (j = vend; j < hi; ++j) dot += dp[j] * p[j];
            const B dotv(dot);
            for (j = 0; j < vfull; j += W)
                (sc * B::load_unaligned(p + j) * (B::load_unaligned(dp + j) - dotv)).store_unaligned(dp + j);
            if (part)
                xsimd::select(keep, sc * B::load_unaligned(p + vfull) * (B::load_unaligned(dp + vfull) - dotv), B(0.0f))
                    .store_unaligned(dp + vfull);
            for (j = vend; j < hi; ++j) dp[j] = scale * p[j] * (dp[j] - dot);
            for (j = std::max(vend, hi); j + W <= T; j += W) B(0.0f).store_unaligned(dp + j);
            for (; j < T; ++j) dp[j] = 0.0f;
        }
    }

    // ---- banded attention -------------------------------------------------------------
    // Vectors run along hs (a head's q, k, v rows are contiguous); the band's scores,
    // at most w of them, go through the row helpers above.
    // Σ a (n) · b (n)
    static float dot(const float* a, const float* b, int n) {
        B acc(0.0f);
        int c = 0;
        for (; c + W <= n; c += W) acc = fma(B::load_unaligned(a + c), B::load_unaligned(b + c), acc);
        float s = lane_sum(acc);
        for (; c < n; ++c) s += a[c] * b[c];
        return s;
    }
    // y (n) += a x (n)
    static void axpy(float* y, float a, const float* x, int n) {
        const B av(a);
        int c = 0;
        for (; c + W <= n; c += W)
            fma(av, B::load_unaligned(x + c), B::load_unaligned(y + c)).store_unaligned(y + c);
        for (; c < n; ++c) y[c] += a * x[c];
    }

    // y (n) = Σ_j a[j] x_j over m rows x_j (n floats each, ldx apart), in the order of one
    // axpy a row, each vector of y summed in a register across the rows
    static void weighted_sum(float* y, const float* a, const float* x, size_t ldx, int m, int n) {
        int c = 0;
        for (; c + W <= n; c += W) {
            B acc(0.0f);
            for (int j = 0; j < m; ++j) acc = fma(B(a[j]), B::load_unaligned(x + (size_t)j * ldx + c), acc);
            acc.store_unaligned(y + c);
        }
        for (; c < n; ++c) {
            float acc = 0.0f;
            for (int j = 0; j < m; ++j) acc += a[j] * x[(size_t)j * ldx + c];
            y[c] = acc;
        }
    }

    // P (T,T) band softmax of scale q_t · k_j (0 outside), O (T,hs) = P v; q, k, v read in
    // place (rows ld apart), O's rows ldo apart. Row t's band scores go into its P row, and
    // the dense path's masked row softmax turns that row into P in place, zeros outside the
    // band included: vectors over the band (a window under the vector width is one masked
    // vector), no scalar exp, no pass zeroing P first.
    static void banded_attention_forward(float* P, float* O, size_t ldo, const float* q, const float* k,
                                         const float* v, size_t ld, int T, int hs, int w, float scale) {
        AttentionMask band;
        band.kind = AttentionMask::banded;
        band.window = w;
        for (int t = 0; t < T; ++t) {
            const int lo = std::max(0, t - w + 1), n = t - lo + 1;
            const float* qt = q + (size_t)t * ld;
            float* row = P + (size_t)t * T;
            float* p = row + lo;
            for (int j = 0; j < n; ++j) p[j] = dot(qt, k + (size_t)(lo + j) * ld, hs);
            softmax_row(row, row, t, T, scale, band);
            weighted_sum(O + (size_t)t * ldo, p, v + (size_t)lo * ld, ld, n, hs);
        }
    }

    // dq, dk, dv (rows ldg apart) = the band's gradients (see the reference), from dO (rows
    // ldo apart) and q, k, v (rows ld apart); dp scratch (w). Row t of dk and dv first gets a
    // term at step t (keys j <= t), so it is zeroed then: no pass zeroing them first.
    static void banded_attention_backward(float* dq, float* dk, float* dv, size_t ldg, float* dp,
                                          const float* dO, size_t ldo, const float* q, const float* k,
                                          const float* v, size_t ld, const float* P, int T, int hs, int w,
                                          float scale) {
        for (int t = 0; t < T; ++t) {
            const int lo = std::max(0, t - w + 1), n = t - lo + 1;
            const float* p = P + (size_t)t * T + lo;
            const float* dot_t = dO + (size_t)t * ldo;
            std::fill_n(dk + (size_t)t * ldg, hs, 0.0f);
            std::fill_n(dv + (size_t)t * ldg, hs, 0.0f);
            float rowsum = 0.0f;  // Σ_j P_tj dP_tj
            for (int j = 0; j < n; ++j) {
                dp[j] = dot(dot_t, v + (size_t)(lo + j) * ld, hs);
                axpy(dv + (size_t)(lo + j) * ldg, p[j], dot_t, hs);
                rowsum += p[j] * dp[j];
            }
            const float* qt = q + (size_t)t * ld;
            for (int j = 0; j < n; ++j) {
                dp[j] = scale * p[j] * (dp[j] - rowsum);  // now dS_tj
                axpy(dk + (size_t)(lo + j) * ldg, dp[j], qt, hs);
            }
            weighted_sum(dq + (size_t)t * ldg, dp, k + (size_t)lo * ld, ld, n, hs);
        }
    }

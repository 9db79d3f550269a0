// The GEMM driver (packing, the register-tiled micro-kernel, blocking for the caches)
// and the full products and a linear layer's weight gradient built on it.
// A part of Kernels<Arch>'s body: kernels_simd.h includes it inside the struct, so
// B, W, fma and every other part's members are in scope; not a header of its own.
#if !defined(ICL_KERNELS_SIMD_BODY)
#error "included by kernels_simd.h only"
#endif

    // ---- GEMM ------------------------------------------------------------------
    // One driver serves the three layouts. A(i,k) = A[i*rsa + k*csa] and
    // B(k,j) = B[k*rsb + j*csb]; nn, nt and tn only differ in those strides.
    // Blocking as in BLIS/GotoBLAS: a KC x NC panel of B is packed into contiguous
    // NR-column micro-panels, then every MR x NR tile of C is computed by a
    // register-blocked micro-kernel: per k, two B vectors times MR broadcasts of A.
    // A is read in place (row-major for nn/nt, column-major for tn): the kernel
    // walks MR row pointers, so A needs no packing, which matters for small n.
    static constexpr int MR = GemmShape<Arch>::MR;
    // 512: a weight gradient's K = B·T (1024 at config M) in two blocks, not four, so C is
    // read and written back half as often (1024 gained nothing more).
    static constexpr int KC = 512;
    static constexpr int MC = 128 / MR * MR;
    // Whether gemm_blocked packs an A read down its columns (tn, csa = lda): AVX2 only, where
    // the tile's walk down A (a cache line per k) held weight gradients back; in wasm the
    // packed variant made the whole GEMM compile worse, so the 128-bit sets read A in place.
    static constexpr bool kPackA = std::is_same_v<Arch, xsimd::fma3<xsimd::avx2>>;
    // NR = NV vectors: 2 (the usual tile), or 1 when all of C's columns fit in one
    // vector (an attention head's hs = 16 with AVX-512), where a 2-vector tile would
    // compute zeros in half its lanes.
    template <int NV>
    static constexpr int kNR = NV * W;
    template <int NV>
    static constexpr int kNC = 2048 / kNR<NV> * kNR<NV>;

    // What a tile adds as it leaves the registers, after the product: R (rows ldc floats
    // apart, as C's) and bias (the tile's columns), either may be null; c + (r + bias).
    struct Epilogue {
        const float* bias = nullptr;
        const float* R = nullptr;
    };

    // C tile (mr,nr) (+)= A (mr,kc) · Bp (kc,NR), A(r,k) = A[r*rsa + k*csa], Bp packed
    // k-major. Rows past mr repeat row mr−1 (valid memory, result dropped). C is
    // written directly for a full tile, otherwise through a local tile.
    // With SUM, also sums[r] += Σ_k A(r,k) for r < mr: vector adds of the broadcasts the
    // tile makes anyway (a linear layer's bias gradient rides on its dW product).
    // With ep, the tile adds ep's sum as it leaves the registers (see Epilogue).
    // Bp is packed for PNV vectors (NR = PNV·W floats per k): a tile may compute only the
    // first NV of them.
    template <int NV, bool SUM = false, int PNV = NV>
    static void micro_kernel(int kc, const float* A, size_t rsa, size_t csa, const float* Bp,
                             float* C, int ldc, int mr, int nr, bool accumulate,
                             float* sums = nullptr, Epilogue ep = {}) {
        constexpr int nrf = kNR<NV>;
        const float* a[MR];
        ICL_UNROLL for (int r = 0; r < MR; ++r) a[r] = A + std::min(r, mr - 1) * rsa;
        B c[MR][NV];
        ICL_UNROLL for (int r = 0; r < MR; ++r) ICL_UNROLL for (int v = 0; v < NV; ++v) c[r][v] = B(0.0f);
        B s[SUM ? MR : 1];
        ICL_UNROLL for (int r = 0; r < (SUM ? MR : 1); ++r) s[r] = B(0.0f);
        size_t kk = 0;
        const auto step = [&]() ICL_INLINE {  // one k: NV vectors of Bp times MR broadcasts of A
            B b[NV];
            ICL_UNROLL for (int v = 0; v < NV; ++v) b[v] = B::load_aligned(Bp + v * W);
            ICL_UNROLL for (int r = 0; r < MR; ++r) {
                const B av(a[r][kk]);
                if constexpr (SUM) s[r] += av;  // every lane the same sum
                ICL_UNROLL for (int v = 0; v < NV; ++v) c[r][v] = fma(av, b[v], c[r][v]);
            }
            Bp += kNR<PNV>;
            kk += csa;
        };
        int k = 0;
        // AVX-512: two k per trip (the same operations in the same order). Not for the 128-bit
        // sets: in wasm clang hoists the unrolled trips' B loads and V8 spills.
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>)
            for (; k + 2 <= kc; k += 2) {
                step();
                step();
            }
        for (; k < kc; ++k) step();
        if constexpr (SUM)
            for (int r = 0; r < mr; ++r) sums[r] += s[r].get(0);
        if (mr == MR && nr == nrf) {
            B bias[NV];
            ICL_UNROLL for (int v = 0; v < NV; ++v) bias[v] = ep.bias ? B::load_unaligned(ep.bias + v * W) : B(0.0f);
            ICL_UNROLL for (int r = 0; r < MR; ++r) {
                float* cr = C + (size_t)r * ldc;
                const float* rr = ep.R ? ep.R + (size_t)r * ldc : nullptr;
                ICL_UNROLL for (int v = 0; v < NV; ++v) {
                    if (accumulate) c[r][v] += B::load_unaligned(cr + v * W);
                    if (ep.R && ep.bias) c[r][v] += B::load_unaligned(rr + v * W) + bias[v];
                    else if (ep.R) c[r][v] += B::load_unaligned(rr + v * W);
                    else if (ep.bias) c[r][v] += bias[v];
                    c[r][v].store_unaligned(cr + v * W);
                }
            }
            return;
        }
        alignas(64) float tile[MR * nrf];
        ICL_UNROLL for (int r = 0; r < MR; ++r)
            ICL_UNROLL for (int v = 0; v < NV; ++v) c[r][v].store_aligned(tile + r * nrf + v * W);
        for (int r = 0; r < mr; ++r)
            for (int j = 0; j < nr; ++j) {
                float& cj = C[(size_t)r * ldc + j];
                cj = accumulate ? cj + tile[r * nrf + j] : tile[r * nrf + j];
                if (ep.R && ep.bias) cj += ep.R[(size_t)r * ldc + j] + ep.bias[j];
                else if (ep.R) cj += ep.R[(size_t)r * ldc + j];
                else if (ep.bias) cj += ep.bias[j];
            }
    }

    // Bp (kc, nc rounded up to NR): rows p0.. of op(B), columns j0.., as NR-column
    // micro-panels, each k-major (Bp[panel][k][c]); columns past nc are zero.
    template <int NV>
    static void pack_b(float* Bp, const float* Bm, size_t rsb, size_t csb, int p0, int kc, int j0,
                       int nc) {
        constexpr int NR = kNR<NV>;
        for (int jr = 0; jr < nc; jr += NR, Bp += (size_t)NR * kc) {
            const int nr = std::min(NR, nc - jr);
            if (csb == 1 && nr == NR) {  // rows of B contiguous (nn, tn): vector copies
                for (int k = 0; k < kc; ++k) {
                    const float* b = Bm + (p0 + k) * rsb + (j0 + jr);
                    ICL_UNROLL for (int v = 0; v < NV; ++v)
                        B::load_unaligned(b + v * W).store_aligned(Bp + k * NR + v * W);
                }
            } else if (csb == 1) {
                for (int k = 0; k < kc; ++k) {
                    const float* b = Bm + (p0 + k) * rsb + (j0 + jr);
                    for (int c = 0; c < NR; ++c) Bp[k * NR + c] = c < nr ? b[c] : 0.0f;
                }
            } else {  // columns of B contiguous (nt, rsb == 1): transpose 4x4 blocks
                // (SSE intrinsics: on every x86 target, and lowered to SIMD128 in wasm)
                int c = 0;
                for (; c + 4 <= nr; c += 4) {
                    const float* b = Bm + (j0 + jr + c) * csb + p0;
                    int k = 0;
                    for (; k + 4 <= kc; k += 4) {
                        __m128 r0 = _mm_loadu_ps(b + k), r1 = _mm_loadu_ps(b + csb + k);
                        __m128 r2 = _mm_loadu_ps(b + 2 * csb + k), r3 = _mm_loadu_ps(b + 3 * csb + k);
                        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                        _mm_store_ps(Bp + k * NR + c, r0);
                        _mm_store_ps(Bp + (k + 1) * NR + c, r1);
                        _mm_store_ps(Bp + (k + 2) * NR + c, r2);
                        _mm_store_ps(Bp + (k + 3) * NR + c, r3);
                    }
                    for (; k < kc; ++k)
                        for (int q = 0; q < 4; ++q) Bp[k * NR + c + q] = b[q * csb + k];
                }
                for (; c < nr; ++c) {
                    const float* b = Bm + (j0 + jr + c) * csb + p0;
                    for (int k = 0; k < kc; ++k) Bp[k * NR + c] = b[k];
                }
                for (; c < NR; ++c)
                    for (int k = 0; k < kc; ++k) Bp[k * NR + c] = 0.0f;
            }
        }
    }

    // Which triangle a causal product skips (see matmul_*_lower): none; C's tiles wholly
    // above the diagonal (not written: that triangle is left unspecified, see
    // matmul_nt_lower); A's entries above the diagonal (nn: k > i), or, A read transposed
    // (tn), A's entries below it (k < i).
    enum Tri { kFull, kLowerC, kLowerA, kUpperA };

    // C (M,N) (+)= op(A) (M,K) · op(B) (K,N), B packed, blocked for the caches; C's rows
    // ldc floats apart. rowsum (M), if given: rowsum[i] += Σ_k op(A)(i,k), summed by the
    // first column tile.
    // ep: added by each tile of the last K block (ep.R's rows ldc apart, as C's).
    // pack(Bp, p0, kc, j0, nc) fills Bp as pack_b<NV> would with op(B)'s rows p0.. and
    // columns j0..; each block of op(B) is asked for exactly once, in order (p0 within j0).
    // A read down its columns (tn: csa = lda floats per k) is packed too (PACK_A, see
    // pack_a_block) when its block serves at least 128 columns of C.
    template <int NV, class PackB>
    static void gemm_blocked(float* C, size_t ldc, const float* A, size_t rsa, size_t csa,
                             const PackB& pack, int M, int K, int N, bool accumulate, Tri tri,
                             float* rowsum, Epilogue ep) {
        if constexpr (kPackA)
            if (csa != 1 && N >= 128)
                return gemm_blocked_a<NV, true>(C, ldc, A, rsa, csa, pack, M, K, N, accumulate, tri,
                                                rowsum, ep);
        gemm_blocked_a<NV, false>(C, ldc, A, rsa, csa, pack, M, K, N, accumulate, tri, rowsum, ep);
    }
    template <int NV, bool PACK_A, class PackB>
    static void gemm_blocked_a(float* C, size_t ldc, const float* A, size_t rsa, size_t csa,
                               const PackB& pack, int M, int K, int N, bool accumulate, Tri tri,
                               float* rowsum, Epilogue ep) {
        constexpr int NR = kNR<NV>, NC = kNC<NV>;
        const int kc_max = std::min(K, KC);
        const int nc_max = std::min((N + NR - 1) / NR * NR, NC);
        float* Bp = detail::scratch((size_t)kc_max * nc_max + (PACK_A ? (size_t)MC * kc_max : 0));
        float* Ap = Bp + (size_t)kc_max * nc_max;
        for (int jc = 0; jc < N; jc += NC) {
            const int nc = std::min(NC, N - jc);
            for (int pc = 0; pc < K; pc += KC) {
                const int kc = std::min(KC, K - pc);
                const bool acc = accumulate || pc > 0;  // later K blocks add to C
                pack(Bp, pc, kc, jc, nc);
                for (int ic = 0; ic < M; ic += MC) {
                    const int mc = std::min(MC, M - ic);
                    if constexpr (PACK_A) pack_a_block(Ap, A + ic * rsa + pc * csa, rsa, csa, mc, kc);
                    for (int jr = 0; jr < nc; jr += NR)
                        for (int ir = 0; ir < mc; ir += MR) {
                            const int i0 = ic + ir, j0 = jc + jr;
                            const int mr = std::min(MR, mc - ir), nr = std::min(NR, nc - jr);
                            float* Ct = C + (size_t)i0 * ldc + j0;
                            if (tri == kLowerC && j0 > i0 + mr - 1) continue;  // wholly above the diagonal
                            int k0 = pc, k1 = pc + kc;  // the k this tile needs in this K block
                            if (tri == kLowerA) k1 = std::min(k1, i0 + mr);
                            if (tri == kUpperA) k0 = std::max(k0, i0);
                            // the tile's A: packed (rows adjacent, MR floats per k) or in place
                            const float* At = PACK_A ? Ap + (size_t)ir * kc + (size_t)(k0 - pc) * MR
                                                     : A + i0 * rsa + k0 * csa;
                            const size_t rsa_t = PACK_A ? 1 : rsa, csa_t = PACK_A ? MR : csa;
                            const float* Bt = Bp + (size_t)jr * kc + (size_t)(k0 - pc) * NR;
                            // a tile on the diagonal whose rows stop within its first vector:
                            // only that vector's columns (attention's q kᵀ and dO vᵀ). AVX-512
                            // only: in wasm the branch makes the whole GEMM compile worse.
                            if constexpr (NV == 2 && std::is_same_v<Arch, xsimd::avx512f>)
                                if (tri == kLowerC && i0 + mr - 1 < j0 + W) {
                                    micro_kernel<1, false, 2>(k1 - k0, At, rsa_t, csa_t, Bt, Ct, (int)ldc, mr,
                                                              std::min(nr, W), acc);
                                    continue;
                                }
                            if (rowsum && jc == 0 && jr == 0)
                                micro_kernel<NV, true>(std::max(0, k1 - k0), At, rsa_t, csa_t, Bt, Ct,
                                                       (int)ldc, mr, nr, acc, rowsum + i0);
                            else if (pc + kc == K && (ep.bias || ep.R))
                                micro_kernel<NV>(std::max(0, k1 - k0), At, rsa_t, csa_t, Bt, Ct, (int)ldc,
                                                 mr, nr, acc, nullptr,
                                                 {ep.bias ? ep.bias + j0 : nullptr,
                                                  ep.R ? ep.R + (size_t)i0 * ldc + j0 : nullptr});
                            else
                                micro_kernel<NV>(std::max(0, k1 - k0), At, rsa_t, csa_t, Bt, Ct, (int)ldc,
                                                 mr, nr, acc);
                        }
                }
            }
        }
    }
    // Ap: A's block (mc,kc) from A(i,k) = A[i*rsa + k*csa] as MR-row tiles, each k-major
    // (Ap[tile*MR*kc + k*MR + r]); rows past mc repeat the block's last row.
    static void pack_a_block(float* Ap, const float* A, size_t rsa, size_t csa, int mc, int kc) {
        for (int ir = 0; ir < mc; ir += MR, Ap += (size_t)MR * kc) {
            const int mr = std::min(MR, mc - ir);
            if (rsa == 1 && mr == MR) {  // tn: the tile's rows are adjacent floats
                const float* a = A + ir;
                for (int k = 0; k < kc; ++k)
                    ICL_UNROLL for (int r = 0; r < MR; ++r) Ap[k * MR + r] = a[(size_t)k * csa + r];
                continue;
            }
            for (int k = 0; k < kc; ++k)
                for (int r = 0; r < MR; ++r)
                    Ap[k * MR + r] = A[(size_t)(ir + std::min(r, mr - 1)) * rsa + (size_t)k * csa];
        }
    }
    // gemm_blocked with op(B) (K,N), B(k,j) = Bm[k*rsb + j*csb], packed by pack_b
    template <int NV>
    static void gemm_packed_nv(float* C, size_t ldc, const float* A, size_t rsa, size_t csa,
                               const float* Bm, size_t rsb, size_t csb, int M, int K, int N,
                               bool accumulate, Tri tri, float* rowsum, Epilogue ep) {
        const auto pack = [=](float* Bp, int p0, int kc, int j0, int nc) {
            pack_b<NV>(Bp, Bm, rsb, csb, p0, kc, j0, nc);
        };
        gemm_blocked<NV>(C, ldc, A, rsa, csa, pack, M, K, N, accumulate, tri, rowsum, ep);
    }
    static void gemm_packed(float* C, size_t ldc, const float* A, size_t rsa, size_t csa,
                            const float* Bm, size_t rsb, size_t csb, int M, int K, int N,
                            bool accumulate, Tri tri = kFull, float* rowsum = nullptr,
                            Epilogue ep = {}) {
        if (N <= W)
            return gemm_packed_nv<1>(C, ldc, A, rsa, csa, Bm, rsb, csb, M, K, N, accumulate, tri, rowsum, ep);
        gemm_packed_nv<2>(C, ldc, A, rsa, csa, Bm, rsb, csb, M, K, N, accumulate, tri, rowsum, ep);
    }

    // Small problems (few rows, few columns, or little work) skip packing.
    static bool small(int M, int K, int N) {
        return M < 4 || N < W || (long)M * K * N <= 4096;
    }

    // C (M,N) (+)= A (M,K) · B (K,N) with A(i,k) = A[i*rsa + k*csa], B's and C's rows
    // contiguous, ldb and ldc floats apart: each row of C is a sum of rows of B scaled by
    // A(i,k) (axpy over N), done in column blocks of 1024 so the part of C being summed
    // stays in L1.
    static void gemm_rows(float* C, size_t ldc, const float* A, size_t rsa, size_t csa,
                          const float* Bm, size_t ldb, int M, int K, int N, bool accumulate) {
        for (int j0 = 0; j0 < N; j0 += 1024) {
            const int j1 = std::min(N, j0 + 1024);
            for (int i = 0; i < M; ++i) {
                float* c = C + (size_t)i * ldc;
                if (!accumulate) std::fill(c + j0, c + j1, 0.0f);
                for (int k = 0; k < K; ++k) {
                    const float a = A[i * rsa + k * csa];
                    const float* b = Bm + (size_t)k * ldb;
                    const B av(a);
                    int j = j0;
                    for (; j + W <= j1; j += W)
                        fma(av, B::load_unaligned(b + j), B::load_unaligned(c + j))
                            .store_unaligned(c + j);
                    for (; j < j1; ++j) c[j] += a * b[j];
                }
            }
        }
    }

    // C (M,N) (+)= A (M,K) · B(N,K)ᵀ: every entry a dot product of two rows (A's, B's
    // rows lda, ldb floats apart).
    static void gemm_dots(float* C, const float* A, size_t lda, const float* Bm, size_t ldb, int M,
                          int K, int N, bool accumulate) {
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                const float* a = A + (size_t)i * lda;
                const float* b = Bm + (size_t)j * ldb;
                B acc(0.0f);
                int k = 0;
                for (; k + W <= K; k += W)
                    acc = fma(B::load_unaligned(a + k), B::load_unaligned(b + k), acc);
                float s = lane_sum(acc);
                for (; k < K; ++k) s += a[k] * b[k];
                float& c = C[(size_t)i * N + j];
                c = accumulate ? c + s : s;
            }
    }

    // C (M,N) = A (M,K) · B (K,N)   [+= C]
    static void matmul_nn(float* C, const float* A, const float* Bm, int M, int K, int N,
                          bool accumulate) {
        if (small(M, K, N)) return gemm_rows(C, N, A, K, 1, Bm, N, M, K, N, accumulate);
        gemm_packed(C, N, A, K, 1, Bm, N, 1, M, K, N, accumulate);
    }
    // C (M,N) = A (M,K) · B(N,K)ᵀ   [+= C]
    static void matmul_nt(float* C, const float* A, const float* Bm, int M, int K, int N,
                          bool accumulate) {
        if (small(M, K, N)) return gemm_dots(C, A, K, Bm, K, M, K, N, accumulate);
        gemm_packed(C, N, A, K, 1, Bm, 1, K, M, K, N, accumulate);
    }
    // C (M,N) = A (M,K) · B(N,K)ᵀ + (R + bias), the sum added by each tile (small problems:
    // the dot products, then one pass)
    static void matmul_nt_add(float* C, const float* A, const float* Bm, const float* bias,
                              const float* R, int M, int K, int N) {
        if (!small(M, K, N)) return gemm_packed(C, N, A, K, 1, Bm, 1, K, M, K, N, false, kFull, nullptr, {bias, R});
        gemm_dots(C, A, K, Bm, K, M, K, N, false);
        if (!bias && !R) return;
        for (int i = 0; i < M; ++i) {
            float* c = C + (size_t)i * N;
            const float* r = R ? R + (size_t)i * N : nullptr;
            for (int j = 0; j < N; ++j) {
                if (r && bias) c[j] += r[j] + bias[j];
                else if (r) c[j] += r[j];
                else c[j] += bias[j];
            }
        }
    }
    // C (M,N) = A(K,M)ᵀ · B (K,N)   [+= C]
    static void matmul_tn(float* C, const float* A, const float* Bm, int M, int K, int N,
                          bool accumulate) {
        if (small(M, K, N)) return gemm_rows(C, N, A, 1, M, Bm, N, M, K, N, accumulate);
        gemm_packed(C, N, A, 1, M, Bm, N, 1, M, K, N, accumulate);
    }

    // dW (OC,IC) (+)= dY(N,OC)ᵀ · X (N,IC), the tn product; db (OC) (+)= Σ_n dY(n, :). With
    // AVX-512 db is summed from the dY entries the product's first column tile broadcasts
    // (MR more vector registers: 27 of 32); the narrower sets have none to spare (AVX2's
    // 6x2 tile would need 21 of 16, SSE/SIMD128's 4x2 one 15 of 16, where V8 already
    // spills a 6x2 tile), so there db is one pass over dY after the product.
    // Without accumulate, dW is stored, not loaded and added to: a gradient buffer the
    // optimizer zeroed a whole step ago is cold, and the first K block's loads of it stalled
    // the product.
    static void linear_weight_grad(float* dW, float* db, const float* dY, const float* X, int N,
                                   int IC, int OC, bool accumulate) {
        if (small(OC, N, IC)) {
            if (db && !accumulate) std::fill_n(db, OC, 0.0f);
            gemm_rows(dW, IC, dY, 1, OC, X, IC, OC, N, IC, accumulate);
            if (db) add_rows(db, dY, N, OC);
            return;
        }
        const auto pack = [=](auto nv, float* Bp, int p0, int kc, int j0, int nc) {
            pack_b<decltype(nv)::value>(Bp, X, IC, 1, p0, kc, j0, nc);
        };
        weight_grad_packed(dW, db, dY, pack, N, IC, OC, accumulate);
    }
    // linear_weight_grad's product for a problem not small(), X's blocks from
    // pack(nv, Bp, p0, kc, j0, nc) (as gemm_blocked's, nv a std::integral_constant of NV)
    template <class Pack>
    static void weight_grad_packed(float* dW, float* db, const float* dY, const Pack& pack, int N,
                                   int IC, int OC, bool accumulate) {
        constexpr bool fuse = std::is_same_v<Arch, xsimd::avx512f>;
        if (db && !accumulate) std::fill_n(db, OC, 0.0f);
        float* rowsum = fuse ? db : nullptr;
        const auto pack1 = [&](float* Bp, int p0, int kc, int j0, int nc) {
            pack(std::integral_constant<int, 1>{}, Bp, p0, kc, j0, nc);
        };
        const auto pack2 = [&](float* Bp, int p0, int kc, int j0, int nc) {
            pack(std::integral_constant<int, 2>{}, Bp, p0, kc, j0, nc);
        };
        if (IC <= W) gemm_blocked<1>(dW, IC, dY, 1, OC, pack1, OC, N, IC, accumulate, kFull, rowsum, {});
        else gemm_blocked<2>(dW, IC, dY, 1, OC, pack2, OC, N, IC, accumulate, kFull, rowsum, {});
        if (db && !fuse) add_rows(db, dY, N, OC);
    }
    // db (OC) += Σ_n dY(n, :)
    static void add_rows(float* db, const float* dY, int N, int OC) {
        for (int n = 0; n < N; ++n) {
            const float* d = dY + (size_t)n * OC;
            int o = 0;
            for (; o + W <= OC; o += W) (B::load_unaligned(db + o) + B::load_unaligned(d + o)).store_unaligned(db + o);
            for (; o < OC; ++o) db[o] += d[o];
        }
    }

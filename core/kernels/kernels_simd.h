// The fast kernels, written once over an xsimd architecture. Each kernels_<isa>.cpp
// includes this header, compiled with that instruction set's flags, and fills a
// KernelTable with Kernels<Arch>. Everything here has internal linkage (anonymous
// namespace or a template over Arch), so no function compiled for one instruction
// set can be picked by the linker for another.
//
// Layout: row-major everywhere. Scalar tails use the same formula as the reference.
#pragma once
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels_table.h"

#if defined(__clang__)
#define ICL_UNROLL _Pragma("unroll")
#else
#define ICL_UNROLL _Pragma("GCC unroll 16")
#endif
// on a lambda or a function: the compiler must inline it (a per-k step called out of line
// keeps its accumulators in memory).
#define ICL_INLINE __attribute__((always_inline))
// one step over each of N vectors (exp_n below)
#define ICL_EACH(u) ICL_UNROLL for (int u = 0; u < N; ++u)

namespace icl::detail {

// 64-byte aligned per-thread scratch, grown on demand and kept (kernels.cpp).
float* scratch(size_t floats);

}  // namespace icl::detail

namespace icl {
namespace {

// GEMM register-tile rows (MR) per architecture; the tile is MR x 2 batches wide.
template <class Arch>
struct GemmShape {
    // SSE4.1 / SIMD128: 8 accumulators. V8 keeps a 4x8 tile in registers but spills a 6x8 one.
    static constexpr int MR = 4;
};
template <>
struct GemmShape<xsimd::fma3<xsimd::avx2>> {
    static constexpr int MR = 6;  // 12 accumulators + 2 B + 1 broadcast of 16 registers
};
template <>
struct GemmShape<xsimd::avx512f> {
    // 16 accumulators of 32 registers; 64 divides by 8 (docs/performance.md has the other row counts).
    static constexpr int MR = 8;
};

template <class Arch>
struct Kernels {
    using B = xsimd::batch<float, Arch>;
    static constexpr int W = static_cast<int>(B::size);

    // a·b + c, fused where the instruction set has it. xsimd 8.1 has no fused form
    // for avx512f (it falls back to a multiply and an add), so that one is spelled out.
    static B fma(const B& a, const B& b, const B& c) {
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>) return B(_mm512_fmadd_ps(a, b, c));
#endif
        return xsimd::fma(a, b, c);
    }

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

    // The entry points, one per line of kernel_list.h.
    static constexpr detail::KernelTable table() {
        return {
#define ICL_KERNEL(name, params, args) name,
#include "icl/kernel_list.h"
#undef ICL_KERNEL
        };
    }
};

}  // namespace
}  // namespace icl

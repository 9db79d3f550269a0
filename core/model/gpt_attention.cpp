// The transformer's attention heads: the softmax layer's heads over the kernels (dense or
// banded, with momentum), the linear and delta-rule heads in their parallel form and
// token by token (the fast weights), and all heads of a linear or delta layer.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpt_heads.h"
#include "icl/gpt.h"
#include "icl/profile.h"

namespace icl::gpt {

namespace {

// O (T,hs) += m, m_t = Σ_{i<t} η^{t−i} v_i for v (T,hs); O's, v's rows ldo, ldv floats
// apart; m scratch (hs)
void add_momentum_forward(float* O, size_t ldo, float* m, const float* v, size_t ldv, int T, int hs,
                          float eta) {
    std::fill_n(m, hs, 0.0f);
    for (int t = 1; t < T; ++t)
        for (int c = 0; c < hs; ++c) {
            m[c] = eta * (m[c] + v[(size_t)(t - 1) * ldv + c]);
            O[(size_t)t * ldo + c] += m[c];
        }
}

// dv (T,hs) += r, r_i = Σ_{t>i} η^{t−i} dO_t, by r_{T−1} = 0, r_i = η (r_{i+1} + dO_{i+1});
// dv's, dO's rows ldv, ldo floats apart; r scratch (hs)
void add_momentum_backward(float* dv, size_t ldv, float* r, const float* dO, size_t ldo, int T, int hs,
                           float eta) {
    std::fill_n(r, hs, 0.0f);
    for (int i = T - 2; i >= 0; --i)
        for (int c = 0; c < hs; ++c) {
            r[c] = eta * (r[c] + dO[(size_t)(i + 1) * ldo + c]);
            dv[(size_t)i * ldv + c] += r[c];
        }
}

// A banded layer with window w < T computes only its band (banded_attention_*, see
// kernel_list.h for the cost); a window >= T allows every causal pair, which the
// dense matmuls compute with less work per pair.
bool skips_masked_work(AttentionMask mask, int T) {
    return mask.kind == AttentionMask::banded && mask.window < T;
}

// A softmax layer's heads as its forward and backward read them: head size hs, the row
// stride ld of the (B,T,3C) q/k/v rows, the score scale 1/√hs, and whether only the
// mask's band is computed.
struct HeadShape {
    int hs;
    size_t ld;
    float scale;
    bool band;
};
HeadShape head_shape(int T, int C, int H, AttentionMask mask) {
    const int hs = C / H;
    return {hs, 3 * (size_t)C, 1.0f / std::sqrt((float)hs), skips_masked_work(mask, T)};
}

}  // namespace

// ---- attention ------------------------------------------------------------------------

namespace {

// Asks for the cache lines of P's lower triangle (T,T) ahead of their use: the backward
// reads each head's P from memory (the forward wrote it long before), column by column in
// dv = Pᵀ dO, so it is asked for one head ahead, every line.
// A hint only: in wasm it compiles to nothing.
void prefetch_lower(const float* P, int T) {
    for (int i = 0; i < T; ++i)
        for (int j = 0; j <= i; j += 16) __builtin_prefetch(P + (size_t)i * T + j, 0, 2);  // a 64-byte line
}

}  // namespace

// Every head reads its q, k, v in place from the (B,T,3C) rows (row stride 3C) and writes
// its output into atty's (B,T,C) rows.
// scratch: one (T,T) score matrix, then the momentum sum (hs): head_scratch_floats.
// With momentum η > 0, O_t += m_t = Σ_{i<t} η^{t−i} v_i, by m_0 = 0, m_t = η (m_{t−1} + v_{t−1}).
void attention_forward(float* att, float* atty, const float* qkv, float* scratch, int B, int T, int C,
                       int H, AttentionMask mask, float momentum) {
    const auto [hs, ld, scale, band] = head_shape(T, C, H, mask);
    float* S = scratch;
    float* m = S + (size_t)T * T;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const float* qh = qkv + (size_t)b * T * ld + (size_t)h * hs;  // (T,hs), rows ld apart
            const float* kh = qh + C;
            const float* vh = qh + 2 * C;
            float* Oh = atty + (size_t)b * T * C + (size_t)h * hs;      // (T,hs), rows C apart
            float* P = att + ((size_t)b * H + h) * T * T;
            if (band) {
                banded_attention_forward(P, Oh, C, qh, kh, vh, ld, T, hs, mask.window, scale);
            } else {
                matmul_nt_lower(S, qh, kh, T, hs, (int)ld, (int)ld);  // S (T,T) = q kᵀ, j <= i
                attention_softmax(P, S, T, scale, mask);
                matmul_nn_lower(Oh, P, vh, T, hs, (int)ld, C);  // O (T,hs) = P v, P lower-triangular
            }
            if (momentum > 0.0f) {
                ICL_PROFILE_SCOPE("fwd attn momentum");
                add_momentum_forward(Oh, C, m, vh, ld, T, hs, momentum);
            }
        }
}

// dq, dk, dv written in place into dqkv's (B,T,3C) rows (where q, k, v sit in qkv), from
// dO's (B,T,C) rows.
// scratch: dP, (T,T), which becomes dS in place (the banded path uses one band of it), then
// the momentum sum (hs).
void attention_backward(float* dqkv, const float* dO, const float* qkv, const float* att,
                        float* scratch, int B, int T, int C, int H, AttentionMask mask,
                        float momentum) {
    const auto [hs, ld, scale, band] = head_shape(T, C, H, mask);
    float* dP = scratch;
    float* r = dP + (size_t)T * T;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t row = (size_t)b * T * ld + (size_t)h * hs;
            const float *qh = qkv + row, *kh = qh + C, *vh = qh + 2 * C;  // rows ld apart
            float *dqh = dqkv + row, *dkh = dqh + C, *dvh = dqh + 2 * C;
            const float* dOh = dO + (size_t)b * T * C + (size_t)h * hs;   // rows C apart
            const float* P = att + ((size_t)b * H + h) * T * T;
            if (!band && b * H + h + 1 < B * H) {
                ICL_PROFILE_SCOPE("bwd attn prefetch");  // the next head's P
                prefetch_lower(P + (size_t)T * T, T);
            }
            if (band) {
                banded_attention_backward(dqh, dkh, dvh, ld, dP, dOh, C, qh, kh, vh, ld, P, T, hs, mask.window,
                                          scale);
            } else {
                // P and dS are 0 above the diagonal (every mask): only the lower half is worked
                matmul_nt_lower(dP, dOh, vh, T, hs, C, (int)ld);    // dP (T,T) = dO vᵀ, j <= i
                matmul_tn_lower(dvh, P, dOh, T, hs, C, (int)ld);    // dv (T,hs) = Pᵀ dO
                // dP becomes dS in place, 0 above the diagonal
                attention_softmax_backward(dP, P, T, scale);
                const float* dS = dP;
                matmul_nn_lower(dqh, dS, kh, T, hs, (int)ld, (int)ld);  // dq = dS k
                matmul_tn_lower(dkh, dS, qh, T, hs, (int)ld, (int)ld);  // dk = dSᵀ q
            }
            if (momentum > 0.0f) {
                ICL_PROFILE_SCOPE("bwd attn momentum");
                add_momentum_backward(dvh, ld, r, dOh, C, T, hs, momentum);
            }
        }
}

// ---- linear and delta-rule heads ------------------------------------------------------

namespace {

// x (T,hs) -> f (T,hs) = φ(x), then each row divided by its sum when `normalise`;
// sums (T) gets the row sums (may be null)
void features(float* f, float* sums, const float* x, int T, int hs, bool normalise) {
    feature_map_forward(f, x, (size_t)T * hs);
    if (!normalise) return;
    for (int t = 0; t < T; ++t) {
        float* r = f + (size_t)t * hs;
        float s = 0.0f;
        for (int c = 0; c < hs; ++c) s += r[c];
        const float inv = 1.0f / s;  // s > 0: φ > 0
        for (int c = 0; c < hs; ++c) r[c] *= inv;
        if (sums) sums[t] = s;
    }
}

// From d(f/s) to dx for f = φ(x), s = Σf per row: d f = (dn − (dn·n)) / s, then φ'.
// dx (T,hs) WRITTEN; n the normalised features (T,hs); dn is overwritten.
void features_backward(float* dx, float* dn, const float* x, const float* n, const float* sums,
                       int T, int hs) {
    for (int t = 0; t < T; ++t) {
        float* d = dn + (size_t)t * hs;
        const float* r = n + (size_t)t * hs;
        float dot = 0.0f;
        for (int c = 0; c < hs; ++c) dot += d[c] * r[c];
        const float inv = 1.0f / sums[t];
        for (int c = 0; c < hs; ++c) d[c] = (d[c] - dot) * inv;
    }
    std::fill_n(dx, (size_t)T * hs, 0.0f);
    feature_map_backward(dx, x, dn, (size_t)T * hs);
}

void zero_upper(float* M, int T) {  // M (T,T): j > t set to 0
    for (int t = 0; t + 1 < T; ++t) std::fill_n(M + (size_t)t * T + t + 1, T - t - 1, 0.0f);
}

}  // namespace

void linear_head_forward(float* P, float* O, const float* q, const float* k, const float* v,
                         float* scratch, int T, int hs) {
    float* fq = scratch;
    float* fk = fq + (size_t)T * hs;
    features(fq, nullptr, q, T, hs, false);
    features(fk, nullptr, k, T, hs, false);
    matmul_nt(P, fq, fk, T, hs, T, false);  // A (T,T) = φ(q) φ(k)ᵀ
    zero_upper(P, T);
    for (int t = 0; t < T; ++t) {
        float* p = P + (size_t)t * T;
        float n = 0.0f;
        for (int j = 0; j <= t; ++j) n += p[j];
        const float inv = 1.0f / n;  // n > 0: every φ(q)·φ(k) > 0
        for (int j = 0; j <= t; ++j) p[j] *= inv;
    }
    matmul_nn(O, P, v, T, T, hs, false);  // O = P v
}

// P = A / n (row sums n_t): dA_tj = (dP_tj − Σ_i P_ti dP_ti) / n_t for j ≤ t;
// d φ(q) = dA φ(k), d φ(k) = dAᵀ φ(q); n_t = φ(q_t) · Σ_{j≤t} φ(k_j).
void linear_head_backward(float* dq, float* dk, float* dv, const float* dO, const float* q,
                          const float* k, const float* v, const float* P, float* scratch, int T,
                          int hs) {
    float* dA = scratch;
    float* fq = dA + (size_t)T * T;
    float* fk = fq + (size_t)T * hs;
    float* dfq = fk + (size_t)T * hs;
    float* dfk = dfq + (size_t)T * hs;
    features(fq, nullptr, q, T, hs, false);
    features(fk, nullptr, k, T, hs, false);
    matmul_nt(dA, dO, v, T, hs, T, false);  // dP = dO vᵀ
    matmul_tn(dv, P, dO, T, T, hs, false);  // dv = Pᵀ dO
    std::fill_n(dfk, hs, 0.0f);             // the running Σ_{j≤t} φ(k_j), in dfk's first row
    for (int t = 0; t < T; ++t) {
        const float* p = P + (size_t)t * T;
        float* d = dA + (size_t)t * T;
        float n = 0.0f, rowsum = 0.0f;
        for (int c = 0; c < hs; ++c) {
            dfk[c] += fk[(size_t)t * hs + c];
            n += fq[(size_t)t * hs + c] * dfk[c];
        }
        for (int j = 0; j <= t; ++j) rowsum += p[j] * d[j];
        const float inv = 1.0f / n;
        for (int j = 0; j <= t; ++j) d[j] = (d[j] - rowsum) * inv;
        std::fill(d + t + 1, d + T, 0.0f);
    }
    matmul_nn(dfq, dA, fk, T, T, hs, false);  // d φ(q) = dA φ(k)
    matmul_tn(dfk, dA, fq, T, T, hs, false);  // d φ(k) = dAᵀ φ(q)
    std::fill_n(dq, (size_t)T * hs, 0.0f);
    std::fill_n(dk, (size_t)T * hs, 0.0f);
    feature_map_backward(dq, q, dfq, (size_t)T * hs);
    feature_map_backward(dk, k, dfk, (size_t)T * hs);
}

namespace {
// acc (N) ∓= Σ_{i<n} coef[i·cs] · rows[i·ld] (N floats each), i ascending (a negative
// stride walks back): each acc[c] goes through the same operations, in the same order, as
// the plain loop over i then c, but stays in registers across i, where the plain loop
// stored and reloaded it every i. N is a
// compile-time chunk; the overload below covers `width`.
template <int N, bool SUB>
void accumulate_rows(float* acc_out, const float* coef, ptrdiff_t cs, const float* rows, ptrdiff_t ld, int n) {
    float acc[N];
    for (int c = 0; c < N; ++c) acc[c] = acc_out[c];
    for (int i = 0; i < n; ++i) {
        const float a = coef[i * cs];
        const float* row = rows + i * ld;
        for (int c = 0; c < N; ++c) {
            if (SUB) acc[c] -= a * row[c];
            else acc[c] += a * row[c];
        }
    }
    for (int c = 0; c < N; ++c) acc_out[c] = acc[c];
}
template <bool SUB>
void accumulate_rows(float* acc, int width, const float* coef, ptrdiff_t cs, const float* rows, ptrdiff_t ld, int n) {
    int c = 0;
    for (; c + 16 <= width; c += 16) accumulate_rows<16, SUB>(acc + c, coef, cs, rows + c, ld, n);
    for (; c < width; ++c) accumulate_rows<1, SUB>(acc + c, coef, cs, rows + c, ld, n);
}

// u_j = β_j (v_j − Σ_{i<j} G_ji u_i); r (hs) gets v_j − Σ_{i<j} G_ji u_i
void delta_residual(float* r, const float* G, const float* U, const float* v, int j, int T, int hs) {
    std::copy_n(v + (size_t)j * hs, hs, r);
    accumulate_rows<true>(r, hs, G + (size_t)j * T, 1, U, hs, j);
}
}  // namespace

void delta_head_forward(float* A, float* U, float* O, const float* q, const float* k,
                        const float* v, const float* beta, float* scratch, int T, int hs) {
    float* G = scratch;
    float* qn = G + (size_t)T * T;
    float* kn = qn + (size_t)T * hs;
    features(qn, nullptr, q, T, hs, true);
    features(kn, nullptr, k, T, hs, true);
    matmul_nt(A, qn, kn, T, hs, T, false);   // A_tj = q̂_t · k̂_j
    zero_upper(A, T);
    matmul_nt(G, kn, kn, T, hs, T, false);   // G_ji = k̂_j · k̂_i
    for (int j = 0; j < T; ++j) {
        float* uj = U + (size_t)j * hs;
        delta_residual(uj, G, U, v, j, T, hs);
        for (int c = 0; c < hs; ++c) uj[c] *= beta[j];
    }
    matmul_nn(O, A, U, T, T, hs, false);     // O = A U
}

// Backward through O = A U, then the triangular solve in reverse (u_j depends on the u_i
// before it), then the sum normalisation and φ.
void delta_head_backward(float* dq, float* dk, float* dv, float* dbeta, const float* dO,
                         const float* q, const float* k, const float* v, const float* beta,
                         const float* A, const float* U, float* scratch, int T, int hs) {
    float* dA = scratch;
    float* G = dA + (size_t)T * T;
    float* qn = G + (size_t)T * T;
    float* kn = qn + (size_t)T * hs;
    float* dqn = kn + (size_t)T * hs;
    float* dkn = dqn + (size_t)T * hs;
    float* dU = dkn + (size_t)T * hs;
    float* UT = dU + (size_t)T * hs;     // (hs,T) Uᵀ
    float* qsums = UT + (size_t)T * hs;  // (T)
    float* ksums = qsums + T;            // (T)
    float* r = ksums + T;                // (hs)
    features(qn, qsums, q, T, hs, true);
    features(kn, ksums, k, T, hs, true);
    matmul_nt(G, kn, kn, T, hs, T, false);
    matmul_nt(dA, dO, U, T, hs, T, false);   // dA = dO Uᵀ, j ≤ t
    zero_upper(dA, T);
    matmul_tn(dU, A, dO, T, T, hs, false);   // dU = Aᵀ dO
    matmul_nn(dqn, dA, kn, T, T, hs, false); // d q̂ = dA k̂
    matmul_tn(dkn, dA, qn, T, T, hs, false); // d k̂ = dAᵀ q̂
    float* dG = dA;                          // (T,T) dA's last use was above: row j holds dG_ji, i < j
    for (int i = 0; i < T; ++i)
        for (int c = 0; c < hs; ++c) UT[(size_t)c * T + i] = U[(size_t)i * hs + c];
    // Row j takes what the rows after it send back when its turn comes (the sums over
    // j' > j, walked from T−1 down, as the updates once arrived one row at a time), so every
    // sum runs in the order the plain loops (i, then c) had and the gradients are the same
    // bits (`icl run fast_weights --json` at widths 20, 24 and 32, natively and in wasm,
    // gave the same Result as before); the loops are only arranged to vectorise.
    for (int j = T - 1; j >= 0; --j) {
        delta_residual(r, G, U, v, j, T, hs);
        float* duj = dU + (size_t)j * hs;
        const int after = T - 1 - j;
        // d u_j −= Σ_{j' > j} G_j'j dr_j' (dv holds the dr_j')
        accumulate_rows<true>(duj, hs, G + (size_t)(T - 1) * T + j, -(ptrdiff_t)T, dv + (size_t)(T - 1) * hs,
                              -(ptrdiff_t)hs, after);
        float db = 0.0f;
        for (int c = 0; c < hs; ++c) {
            db += duj[c] * r[c];
            duj[c] *= beta[j];  // now dr_j
            dv[(size_t)j * hs + c] = duj[c];
        }
        dbeta[j] = db;
        // dG_ji = −dr_j · u_i for every i < j at once (each summed over c in order)
        float* dg = dG + (size_t)j * T;
        std::fill_n(dg, j, 0.0f);
        accumulate_rows<true>(dg, j, duj, 1, UT, T, hs);
        // dk̂_j += Σ_{j' > j} dG_j'j k̂_j', then Σ_{i < j} dG_ji k̂_i
        float* dknj = dkn + (size_t)j * hs;
        accumulate_rows<false>(dknj, hs, dG + (size_t)(T - 1) * T + j, -(ptrdiff_t)T, kn + (size_t)(T - 1) * hs,
                               -(ptrdiff_t)hs, after);
        accumulate_rows<false>(dknj, hs, dg, 1, kn, hs, j);
    }
    features_backward(dk, dkn, k, kn, ksums, T, hs);
    features_backward(dq, dqn, q, qn, qsums, T, hs);
}

int fast_weight_rows(AttentionKind kind, int hs) { return kind == AttentionKind::linear ? hs + 1 : hs; }

void fast_weight_token(AttentionKind kind, float* W, float* y, const float* q, const float* k,
                       const float* v, float beta, float* scratch, int hs) {
    const bool delta = kind == AttentionKind::delta;
    float* fq = scratch;
    float* fk = fq + hs;
    float* vext = fk + hs;     // (hs+1)
    float* read = vext + hs + 1;  // (hs+1)
    features(fq, nullptr, q, 1, hs, delta);
    features(fk, nullptr, k, 1, hs, delta);
    if (delta) {
        fast_weight_step(W, y, fq, fk, v, beta, true, hs, hs);
        return;
    }
    // linear: the state's last row is z; v extended by 1 writes it
    std::copy_n(v, hs, vext);
    vext[hs] = 1.0f;
    fast_weight_step(W, read, fq, fk, vext, 1.0f, false, hs + 1, hs);
    const float inv = 1.0f / read[hs];  // z·φ(q) > 0
    for (int c = 0; c < hs; ++c) y[c] = read[c] * inv;
}

void fast_weight_head(AttentionKind kind, float* O, float* states, const float* q, const float* k,
                      const float* v, const float* beta, int T, int hs) {
    const int rows = fast_weight_rows(kind, hs);
    std::vector<float> W((size_t)rows * hs, 0.0f), scratch(4 * (size_t)hs + 2);
    for (int t = 0; t < T; ++t) {
        const size_t o = (size_t)t * hs;
        fast_weight_token(kind, W.data(), O + o, q + o, k + o, v + o,
                          kind == AttentionKind::delta ? beta[t] : 1.0f, scratch.data(), hs);
        if (states) std::copy(W.begin(), W.end(), states + (size_t)t * rows * hs);
    }
}

namespace detail {

// All heads of a linear or delta layer (parallel form): att (B,H,T,T), atty (B,T,C),
// u (B,H,T,hs) and beta (B,H,T) for delta; scratch: T*T + 3*T*hs (the last T*hs holds
// one head's output).
void fast_attention_forward(AttentionKind kind, float* att, float* atty, float* u, const float* q,
                            const float* k, const float* v, const float* beta, float* scratch, int B,
                            int T, int C, int H) {
    ICL_PROFILE_SCOPE("fwd attn linear/delta");  // the heads' own loops; their kernels are phases of their own
    const int hs = C / H;
    float* O = scratch + (size_t)T * T + 2 * (size_t)T * hs;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t bh = (size_t)b * H + h, o = bh * T * hs;
            float* P = att + bh * T * T;
            if (kind == AttentionKind::linear)
                linear_head_forward(P, O, q + o, k + o, v + o, scratch, T, hs);
            else
                delta_head_forward(P, u + o, O, q + o, k + o, v + o, beta + bh * T, scratch, T, hs);
            for (int t = 0; t < T; ++t)
                copy_head(atty + ((size_t)b * T + t) * C + h * hs, O + (size_t)t * hs, hs);
        }
}

// dq, dk, dv (B,H,T,hs) and dbeta (B,H,T, delta only) WRITTEN; scratch as delta_head_backward.
void fast_attention_backward(AttentionKind kind, float* dq, float* dk, float* dv, float* dbeta,
                             const float* dO, const float* q, const float* k, const float* v,
                             const float* beta, const float* att, const float* u, float* scratch,
                             int B, int T, int C, int H) {
    ICL_PROFILE_SCOPE("bwd attn linear/delta");  // the heads' own loops; their kernels are phases of their own
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t bh = (size_t)b * H + h, o = bh * T * hs;
            const float* P = att + bh * T * T;
            if (kind == AttentionKind::linear)
                linear_head_backward(dq + o, dk + o, dv + o, dO + o, q + o, k + o, v + o, P, scratch, T, hs);
            else
                delta_head_backward(dq + o, dk + o, dv + o, dbeta + bh * T, dO + o, q + o, k + o, v + o,
                                    beta + bh * T, P, u + o, scratch, T, hs);
        }
}
}  // namespace detail

}  // namespace icl::gpt

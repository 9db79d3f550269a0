// The tiny GPT's forward and hand-written backward (see gpt.h for the architecture).
#include "icl/gpt.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "icl/gpt_io.h"
#include "icl/profile.h"

namespace icl::gpt {

// ---- activations ---------------------------------------------------------------------

size_t activation_count(const Config& c, int B, int T) {
    if (c.arch == Arch::gru) return detail::gru_activation_count(c, B, T);
    const size_t BT = (size_t)B * T, C = (size_t)c.width, F = (size_t)c.ffn_width();
    size_t block = BT * (3 * C + 2) + (size_t)B * c.heads * T * T + 2 * BT * C;  // ln1, qkv, att, atty, res_attn
    if (!c.attention_only) block += BT * (C + 2) + BT * F;                     // ln2, fc
    block += BT * C;                                                            // res_out
    const size_t mlp_out = c.attention_only ? 0 : BT * F;
    size_t delta = 0;  // β (B,H,T) and u (B,T,C) per delta layer
    if (c.kinds.size() == (size_t)c.layers)
        for (AttentionKind k : c.kinds)
            if (k == AttentionKind::delta) delta += BT * (c.heads + C);
    return BT * C + (size_t)c.layers * block + mlp_out + detail::readout_count(c, B, T) + delta;
}

const float* Activations::residual(int layer) const {
    return layer == 0 ? ptr(embed) : ptr(blocks[(size_t)layer - 1].res_out);
}

namespace {

// One head's forward scratch: fast_attention_forward's T² + 3 T·hs, attention_forward's
// T² + hs.
size_t head_scratch_floats(int T, int hs) { return (size_t)T * T + 3 * (size_t)T * hs + hs; }

void allocate(Activations& a, const Config& c, int B, int T) {
    const size_t BT = (size_t)B * T, C = (size_t)c.width, F = (size_t)c.ffn_width();
    detail::Arena arena;
    auto take = [&arena](size_t count) { return arena.take(count); };
    a.B = B;
    a.T = T;
    a.C = (int)C;
    a.H = c.heads;
    a.embed = take(BT * C);
    a.blocks.assign((size_t)c.layers, BlockActs{});
    for (size_t l = 0; l < a.blocks.size(); ++l) {
        BlockActs& k = a.blocks[l];
        if (c.kind((int)l) == AttentionKind::delta) {
            k.beta = take(BT * c.heads);
            k.u = take(BT * C);
        }
        k.ln1 = take(BT * C);
        k.ln1_mean = take(BT);
        k.ln1_rstd = take(BT);
        k.qkv = take(BT * 3 * C);
        k.att = take((size_t)B * c.heads * T * T);
        k.atty = take(BT * C);
        k.res_attn = take(BT * C);
        if (!c.attention_only) {
            k.ln2 = take(BT * C);
            k.ln2_mean = take(BT);
            k.ln2_rstd = take(BT);
            k.fc = take(BT * F);
        }
        k.res_out = take(BT * C);
    }
    a.mlp_out = c.attention_only ? 0 : take(BT * F);
    detail::take_readout(a, c, arena, B, T);
    a.gru.clear();
    detail::finish_allocate(a, arena);
    // scratch: a linear or delta layer's q, k, v split into heads (B,H,T,hs) x3 (forward and
    // backward), then one head's head_scratch_floats, then β's logits (B,T,H)
    a.scratch.resize(BT * 3 * C + head_scratch_floats(T, c.head_size()) + BT * c.heads);
}

// dst (hs) = src (hs), one head's slice of a row. A memcpy of a constant size compiles
// to a few vector moves; a call with a run-time size costs more than these copies.
void copy_head(float* dst, const float* src, int hs) {
    switch (hs) {
        case 8: std::memcpy(dst, src, 8 * sizeof(float)); return;
        case 16: std::memcpy(dst, src, 16 * sizeof(float)); return;
        case 32: std::memcpy(dst, src, 32 * sizeof(float)); return;
        case 64: std::memcpy(dst, src, 64 * sizeof(float)); return;
        default: std::memcpy(dst, src, sizeof(float) * hs);
    }
}

// (B,T,3C) -> three (B,H,T,hs): the q, k, v of every head made contiguous, for the
// linear and delta layers' parallel form (softmax layers read them in place)
void split_heads(float* q, float* k, float* v, const float* qkv, int B, int T, int C, int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            const float* row = qkv + ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; ++h) {
                const size_t dst = (((size_t)b * H + h) * T + t) * hs;
                copy_head(q + dst, row + h * hs, hs);
                copy_head(k + dst, row + C + h * hs, hs);
                copy_head(v + dst, row + 2 * C + h * hs, hs);
            }
        }
}

// dst (T,hs) rows ldd floats apart = src (T,hs) rows lds apart: one head gathered from
// wider rows into its own (T,hs), or scattered back
void copy_rows(float* dst, size_t ldd, const float* src, size_t lds, int T, int hs) {
    for (int t = 0; t < T; ++t) copy_head(dst + (size_t)t * ldd, src + (size_t)t * lds, hs);
}

// three (B,H,T,hs) -> (B,T,3C): the inverse of split_heads
void merge_heads(float* qkv, const float* q, const float* k, const float* v, int B, int T, int C,
                 int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            float* row = qkv + ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; ++h) {
                const size_t src = (((size_t)b * H + h) * T + t) * hs;
                copy_head(row + h * hs, q + src, hs);
                copy_head(row + C + h * hs, k + src, hs);
                copy_head(row + 2 * C + h * hs, v + src, hs);
            }
        }
}

void zero_head(float* x /* (B,T,C) */, int B, int T, int C, int hs, int h) {
    for (size_t r = 0; r < (size_t)B * T; ++r) std::fill_n(x + r * C + (size_t)h * hs, hs, 0.0f);
}

// x (B,T,C): head p.head at p.position of every row = p.output (hs), or 0 (zero = true)
void patch_head(float* x, const HeadPatch& p, int B, int T, int C, int hs, bool zero) {
    if (p.position >= T) return;
    for (int b = 0; b < B; ++b) {
        float* o = x + ((size_t)b * T + p.position) * C + (size_t)p.head * hs;
        for (int i = 0; i < hs; ++i) o[i] = zero ? 0.0f : p.output[(size_t)i];
    }
}

// (B,T,C) with head h in columns h*hs.. -> (B,H,T,hs)
void rows_to_heads(float* heads, const float* rows, int B, int T, int C, int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                copy_head(heads + (((size_t)b * H + h) * T + t) * hs, rows + ((size_t)b * T + t) * C + h * hs, hs);
}

void apply_residual_adds(float* x /* (B,T,C) */, const Hooks* hooks, int layer, int B, int T, int C) {
    if (!hooks) return;
    for (const ResidualAdd& a : hooks->residual_adds) {
        if (a.layer != layer || a.position >= T) continue;
        for (int b = 0; b < B; ++b) {
            float* row = x + ((size_t)b * T + a.position) * C;
            for (int c = 0; c < C; ++c) row[c] += a.vector[(size_t)c];
        }
    }
}

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

}  // namespace

std::vector<float> Activations::head_qkv(int layer, int which, int b, int h) const {
    const int hs = C / H;
    std::vector<float> out((size_t)T * hs);
    copy_rows(out.data(), hs, ptr(blocks[(size_t)layer].qkv) + (size_t)b * T * 3 * C + (size_t)which * C + (size_t)h * hs,
              3 * (size_t)C, T, hs);
    return out;
}

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
    const int hs = C / H;
    const size_t ld = 3 * (size_t)C;
    const float scale = 1.0f / std::sqrt((float)hs);
    const bool band = skips_masked_work(mask, T);
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
                ICL_PROFILE_SCOPE("fwd attn banded");
                banded_attention_forward(P, Oh, C, qh, kh, vh, ld, T, hs, mask.window, scale);
            } else {
                {
                    ICL_PROFILE_SCOPE("fwd attn matmul q x kT");
                    matmul_nt_lower(S, qh, kh, T, hs, (int)ld, (int)ld);  // S (T,T) = q kᵀ, j <= i
                }
                {
                    ICL_PROFILE_SCOPE("fwd attn softmax");
                    attention_softmax(P, S, T, scale, mask);
                }
                ICL_PROFILE_SCOPE("fwd attn matmul P x v");
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
    const int hs = C / H;
    const size_t ld = 3 * (size_t)C;
    const float scale = 1.0f / std::sqrt((float)hs);
    const bool band = skips_masked_work(mask, T);
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
                ICL_PROFILE_SCOPE("bwd attn banded");
                banded_attention_backward(dqh, dkh, dvh, ld, dP, dOh, C, qh, kh, vh, ld, P, T, hs, mask.window,
                                          scale);
            } else {
                {
                    ICL_PROFILE_SCOPE("bwd attn matmul dO x vT, PT x dO");
                    // P and dS are 0 above the diagonal (every mask): only the lower half is worked
                    matmul_nt_lower(dP, dOh, vh, T, hs, C, (int)ld);    // dP (T,T) = dO vᵀ, j <= i
                    matmul_tn_lower(dvh, P, dOh, T, hs, C, (int)ld);    // dv (T,hs) = Pᵀ dO
                }
                {
                    ICL_PROFILE_SCOPE("bwd attn softmax");  // dP becomes dS in place, 0 above the diagonal
                    attention_softmax_backward(dP, P, T, scale);
                }
                const float* dS = dP;
                ICL_PROFILE_SCOPE("bwd attn matmul dS x k, dST x q");
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

namespace {

// All heads of a linear or delta layer (parallel form): att (B,H,T,T), atty (B,T,C),
// u (B,H,T,hs) and beta (B,H,T) for delta; scratch: T*T + 3*T*hs (the last T*hs holds
// one head's output).
void fast_attention_forward(AttentionKind kind, float* att, float* atty, float* u, const float* q,
                            const float* k, const float* v, const float* beta, float* scratch, int B,
                            int T, int C, int H) {
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

}  // namespace

// ---- linear ---------------------------------------------------------------------------

void linear_forward(float* out, const float* inp, const float* W, const float* bias, int N, int IC,
                    int OC) {
    matmul_nt_add(out, inp, W, bias, nullptr, N, IC, OC);  // the bias added as each tile is stored
}

void linear_backward(float* dinp, float* dW, float* dbias, const float* dout, const float* inp,
                     const float* W, int N, int IC, int OC, bool accumulate_dinp, bool accumulate_dw) {
    matmul_nn(dinp, dout, W, N, OC, IC, accumulate_dinp);  // dinp (N,IC) (+)= dout (N,OC) · W (OC,IC)
    linear_weight_grad(dW, dbias, dout, inp, N, IC, OC, accumulate_dw);  // dW (+)= doutᵀ · inp, dbias (+)= Σ dout
}

// ---- forward ----------------------------------------------------------------------------

Status forward(const Model& model, Activations& acts, const int* tokens, const int* targets, int B,
               int T, const Hooks* hooks) {
    Batch batch;
    batch.B = B;
    batch.T = T;
    batch.tokens = tokens;
    batch.targets = targets;
    return forward(model, acts, batch, hooks);
}

Status forward(const Model& model, Activations& acts, const Batch& batch, const Hooks* hooks) {
    const Config& c = model.config;
    acts.loss = 0.0f;
    if (c.arch == Arch::gru) {
        if (hooks) return make_error("gru forward: hooks (residual adds, ablations, patches) apply to the transformer only");
        return detail::gru_forward(model, acts, batch);
    }
    ICL_PROFILE_SCOPE("fwd checks, setup");
    if (Status s = detail::check_batch(model, batch, "gpt forward"); !s) return s;
    if (hooks)
        if (Status s = validate(*hooks, c); !s) return s;

    const int B = batch.B, T = batch.T;
    allocate(acts, c, B, T);
    detail::bind_batch(acts, c, batch);
    acts.ablations = hooks ? hooks->ablations : std::vector<HeadAblation>{};
    acts.head_patches = hooks ? hooks->head_patches : std::vector<HeadPatch>{};
    const int C = c.width, H = c.heads, F = c.ffn_width();
    const int BT = B * T;
    const Layout& lay = model.layout;

    detail::input_forward(model, acts, acts.ptr(acts.embed));
    apply_residual_adds(acts.ptr(acts.embed), hooks, 0, B, T, C);
    const float* x = acts.ptr(acts.embed);
    // a linear or delta layer's q, k, v split into heads, then one head's scratch
    float* hq = acts.scratch.data();
    float* hk = hq + (size_t)BT * C;
    float* hv = hk + (size_t)BT * C;
    float* head_scratch = hv + (size_t)BT * C;
    for (int l = 0; l < c.layers; ++l) {
        const BlockSlots& p = lay.blocks[(size_t)l];
        BlockActs& a = acts.blocks[(size_t)l];
        {
            ICL_PROFILE_SCOPE("fwd layernorm");
            layernorm_forward(acts.ptr(a.ln1), acts.ptr(a.ln1_mean), acts.ptr(a.ln1_rstd), x,
                              model.at(p.ln1_w), model.at(p.ln1_b), BT, C, kLayerNormEps);
        }
        float* qkv = acts.ptr(a.qkv);
        {
            ICL_PROFILE_SCOPE("fwd matmul qkv (BT,C) x (C,3C)");  // + bq
            linear_forward(qkv, acts.ptr(a.ln1), model.at(p.wq), model.at(p.bq), BT, C, 3 * C);
        }
        const AttentionKind kind = c.kind(l);
        if (kind == AttentionKind::softmax) {
            attention_forward(acts.ptr(a.att), acts.ptr(a.atty), qkv, head_scratch, B, T, C, H, c.mask(l),
                              c.momentum);
        } else {
            ICL_PROFILE_SCOPE("fwd attn linear/delta");
            split_heads(hq, hk, hv, qkv, B, T, C, H);
            if (kind == AttentionKind::delta) {  // β (B,H,T) = σ(ln1 · wbᵀ + bb)
                float* logits = head_scratch + head_scratch_floats(T, C / H);
                linear_forward(logits, acts.ptr(a.ln1), model.at(p.wb), model.at(p.bb), BT, C, H);
                float* beta = acts.ptr(a.beta);
                for (int b = 0; b < B; ++b)
                    for (int t = 0; t < T; ++t)
                        for (int h = 0; h < H; ++h)
                            beta[((size_t)b * H + h) * T + t] =
                                1.0f / (1.0f + std::exp(-logits[((size_t)b * T + t) * H + h]));
            }
            fast_attention_forward(kind, acts.ptr(a.att), acts.ptr(a.atty), acts.ptr(a.u), hq, hk, hv,
                                   acts.ptr(a.beta), head_scratch, B, T, C, H);
        }
        for (const HeadAblation& h : acts.ablations)
            if (h.layer == l) zero_head(acts.ptr(a.atty), B, T, C, C / H, h.head);
        for (const HeadPatch& h : acts.head_patches)
            if (h.layer == l) patch_head(acts.ptr(a.atty), h, B, T, C, C / H, false);
        // res_attn = atty · Woᵀ + (x + bo), the residual and bias added as each tile of the
        // product is stored, not in a pass of their own (as fc2's below)
        float* ra = acts.ptr(a.res_attn);
        {
            ICL_PROFILE_SCOPE("fwd matmul wo (BT,C) x (C,C)");
            matmul_nt_add(ra, acts.ptr(a.atty), model.at(p.wo), model.at(p.bo), x, BT, C, C);
        }
        float* out = acts.ptr(a.res_out);
        if (c.attention_only) {
            ICL_PROFILE_SCOPE("fwd residual add");
            std::memcpy(out, ra, sizeof(float) * BT * C);
        } else {
            {
                ICL_PROFILE_SCOPE("fwd layernorm");
                layernorm_forward(acts.ptr(a.ln2), acts.ptr(a.ln2_mean), acts.ptr(a.ln2_rstd), ra,
                                  model.at(p.ln2_w), model.at(p.ln2_b), BT, C, kLayerNormEps);
            }
            {
                ICL_PROFILE_SCOPE("fwd matmul fc (BT,C) x (C,F)");
                linear_forward(acts.ptr(a.fc), acts.ptr(a.ln2), model.at(p.w1), nullptr, BT, C, F);
            }
            {
                ICL_PROFILE_SCOPE("fwd bias + gelu");  // fc += b1 (kept for the backward), gelu
                bias_gelu_forward(acts.ptr(acts.mlp_out), acts.ptr(a.fc), model.at(p.b1), BT, F);
            }
            ICL_PROFILE_SCOPE("fwd matmul fc2 (BT,F) x (F,C)");  // out = mlp_out · W2ᵀ + (ra + b2)
            matmul_nt_add(out, acts.ptr(acts.mlp_out), model.at(p.w2), model.at(p.b2), ra, BT, F, C);
        }
        apply_residual_adds(out, hooks, l + 1, B, T, C);
        x = out;
    }
    return detail::readout_forward(model, acts, x, "gpt forward");
}

// ---- backward ----------------------------------------------------------------------------

Status backward(const Model& model, Activations& acts, float* grads, GradsOnEntry on_entry) {
    ICL_PROFILE_SCOPE("bwd setup, zero");
    const Config& c = model.config;
    if (!acts.has_targets || acts.B == 0)
        return make_error("gpt backward: the last forward had no targets");
    if (c.arch == Arch::gru) return detail::gru_backward(model, acts, grads, on_entry);
    const int B = acts.B, T = acts.T, C = c.width, H = c.heads, F = c.ffn_width();
    const int BT = B * T;
    const size_t BTC = (size_t)BT * C;
    const Layout& lay = model.layout;
    auto g = [grads](size_t off) { return grads + off; };
    // Every weight matrix below gets one product's gradient, and wte's lm-head part comes
    // before its embedding part: with grads all 0 on entry each product may store.
    const bool add = on_entry == GradsOnEntry::any;

    // backward scratch, (re)sized for this batch shape and kept in acts
    const size_t FT = c.attention_only ? 0 : (size_t)BT * F;
    const size_t dlogits_n = detail::readout_scratch(c, B, T);  // the heads' scratch: dlogits, dy
    const size_t hs = (size_t)(C / H), BTH = (size_t)BT * H;
    // one head's backward scratch: the delta heads' 2T² + 6 T·hs + 2T + hs, which covers
    // attention_backward's T² + hs
    const size_t head_n = 2 * (size_t)T * T + 6 * (size_t)T * hs + 2 * (size_t)T + hs;
    acts.grad_scratch.resize(dlogits_n + FT + 9 * BTC + head_n + 2 * BTH);
    float* dlogits = acts.grad_scratch.data();
    float* dhidden = dlogits + dlogits_n;  // (B,T,F): d(gelu out), then in place d(fc)
    float* dres = dhidden + FT;            // (B,T,C)
    float* dln = dres + BTC;               // (B,T,C)
    float* dO = dln + BTC;                 // (B,H,T,hs): linear and delta layers' d(heads' outputs)
    float* dq = dO + BTC;                  // (B,H,T,hs) x3, theirs too
    float* dk = dq + BTC;
    float* dv = dk + BTC;
    float* dqkv = dv + BTC;                // (B,T,3C)
    float* dP = dqkv + 3 * BTC;            // one head's backward scratch (head_n)
    float* dbeta = dP + head_n;            // (B,H,T)
    // a linear or delta layer's q, k, v split into heads again (the forward's scratch)
    float* hq = acts.scratch.data();
    float* hk = hq + BTC;
    float* hv = hk + BTC;
    float* dbl = dbeta + BTH;              // (B,T,H) d(β's logits)
    std::fill_n(dres, BTC, 0.0f);
    // the heads, then the final LayerNorm: dres = d(loss)/d(last residual)
    detail::readout_backward(model, acts, grads, dres, acts.residual(c.layers), dln, dlogits, add);

    // blocks in reverse; dres carries d(loss)/d(residual) downwards
    for (int l = c.layers - 1; l >= 0; --l) {
        const BlockSlots& p = lay.blocks[(size_t)l];
        const BlockActs& a = acts.blocks[(size_t)l];
        const float* x_in = acts.residual(l);
        if (!c.attention_only) {
            // fc2: dhidden = dres · W2 first; then one kernel turns it into d(fc) and takes fc2's
            // weight gradient from gelu(fc) computed again, straight into the product's packed
            // panels (cheaper than keeping every layer's gelu(fc))
            {
                ICL_PROFILE_SCOPE("bwd matmul fc2");
                matmul_nn(dhidden, dres, model.at(p.w2), BT, C, F, false);
            }
            {
                ICL_PROFILE_SCOPE("bwd matmul fc2 dW + gelu");  // dhidden becomes d(fc); b1's, W2's, b2's gradients
                gelu_linear_backward(dhidden, g(p.b1), g(p.w2), g(p.b2), acts.ptr(acts.mlp_out),
                                     acts.ptr(a.fc), dres, BT, F, C, add);
            }
            {
                ICL_PROFILE_SCOPE("bwd matmul fc");
                linear_backward(dln, g(p.w1), nullptr, dhidden, acts.ptr(a.ln2), model.at(p.w1), BT, C, F,
                                false, add);
            }
            ICL_PROFILE_SCOPE("bwd layernorm");
            layernorm_backward(dres, g(p.ln2_w), g(p.ln2_b), dln, acts.ptr(a.res_attn),
                               acts.ptr(a.ln2_mean), acts.ptr(a.ln2_rstd), model.at(p.ln2_w), BT, C);
        }
        {
            // attention sublayer: d(atty) (B,T,C) reuses dln
            ICL_PROFILE_SCOPE("bwd matmul wo");
            linear_backward(dln, g(p.wo), g(p.bo), dres, acts.ptr(a.atty), model.at(p.wo), BT, C, C, false, add);
        }
        for (const HeadAblation& h : acts.ablations)
            if (h.layer == l) zero_head(dln, B, T, C, C / H, h.head);
        for (const HeadPatch& h : acts.head_patches)
            if (h.layer == l) patch_head(dln, h, B, T, C, C / H, true);
        const AttentionKind kind = c.kind(l);
        const float* qkv = acts.ptr(a.qkv);
        if (kind == AttentionKind::softmax) {  // d(atty) read in place from dln
            attention_backward(dqkv, dln, qkv, acts.ptr(a.att), dP, B, T, C, H, c.mask(l), c.momentum);
        } else {
            ICL_PROFILE_SCOPE("bwd attn linear/delta");  // with the splits into heads and the merge
            rows_to_heads(dO, dln, B, T, C, H);
            split_heads(hq, hk, hv, qkv, B, T, C, H);
            fast_attention_backward(kind, dq, dk, dv, dbeta, dO, hq, hk, hv, acts.ptr(a.beta),
                                    acts.ptr(a.att), acts.ptr(a.u), dP, B, T, C, H);
            merge_heads(dqkv, dq, dk, dv, B, T, C, H);
        }
        {
            ICL_PROFILE_SCOPE("bwd matmul qkv");
            linear_backward(dln, g(p.wq), g(p.bq), dqkv, acts.ptr(a.ln1), model.at(p.wq), BT, C, 3 * C, false,
                            add);
        }
        if (kind == AttentionKind::delta) {  // β = σ(logit): dlogit = dβ β (1 − β)
            const float* beta = acts.ptr(a.beta);
            for (int b = 0; b < B; ++b)
                for (int t = 0; t < T; ++t)
                    for (int h = 0; h < H; ++h) {
                        const size_t i = ((size_t)b * H + h) * T + t;
                        dbl[((size_t)b * T + t) * H + h] = dbeta[i] * beta[i] * (1.0f - beta[i]);
                    }
            linear_backward(dln, g(p.wb), g(p.bb), dbl, acts.ptr(a.ln1), model.at(p.wb), BT, C, H, true, add);
        }
        ICL_PROFILE_SCOPE("bwd layernorm");
        layernorm_backward(dres, g(p.ln1_w), g(p.ln1_b), dln, x_in, acts.ptr(a.ln1_mean),
                           acts.ptr(a.ln1_rstd), model.at(p.ln1_w), BT, C);
    }
    detail::input_backward(model, acts, grads, dres, add);
    return Ok{};
}

}  // namespace icl::gpt

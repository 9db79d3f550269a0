// One block's attention (gpt::attention_forward / attention_backward) against a
// straightforward double-precision computation that scores every (t, j) pair and then
// masks. Banded layers with window < T take a path that scores only the band; every
// other mask (window >= T, causal, strided) multiplies (T,T) matrices. Both must give
// the masked full computation's probabilities, outputs and gradients, momentum on or off.
#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>
#include <vector>

#include "icl/gpt.h"
#include "icl/rng.h"

using namespace icl;

namespace {

struct Attention {
    std::vector<double> att, atty, dq, dk, dv;  // (B,H,T,T), (B,T,C), (B,H,T,hs) x3
};

// q, k, v, dO (B,H,T,hs); the formulas of gpt.h's attention, pair by pair.
Attention reference(const std::vector<float>& q, const std::vector<float>& k,
                    const std::vector<float>& v, const std::vector<float>& dO, int B, int T, int C,
                    int H, AttentionMask mask, double eta) {
    const int hs = C / H;
    const double scale = 1.0 / std::sqrt((double)hs);
    Attention r;
    r.att.assign((size_t)B * H * T * T, 0.0);
    r.atty.assign((size_t)B * T * C, 0.0);
    r.dq.assign((size_t)B * H * T * hs, 0.0);
    r.dk = r.dq;
    r.dv = r.dq;
    auto dot = [hs](const float* a, const float* b) {
        double s = 0.0;
        for (int c = 0; c < hs; ++c) s += (double)a[c] * b[c];
        return s;
    };
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t o = ((size_t)b * H + h) * T * hs;
            double* P = r.att.data() + ((size_t)b * H + h) * T * T;
            for (int t = 0; t < T; ++t) {
                double mx = -INFINITY, sum = 0.0;
                for (int j = 0; j < T; ++j)
                    if (mask.allows(t, j)) mx = std::fmax(mx, scale * dot(&q[o + t * hs], &k[o + j * hs]));
                for (int j = 0; j < T; ++j)
                    if (mask.allows(t, j)) sum += P[t * T + j] = std::exp(scale * dot(&q[o + t * hs], &k[o + j * hs]) - mx);
                for (int j = 0; j < T; ++j) P[t * T + j] /= sum;
                for (int c = 0; c < hs; ++c) {
                    double out = 0.0;
                    for (int j = 0; j < T; ++j) out += P[t * T + j] * v[o + j * hs + c];
                    for (int i = 0; i < t; ++i) out += std::pow(eta, t - i) * v[o + i * hs + c];
                    r.atty[((size_t)b * T + t) * C + h * hs + c] = out;
                }
            }
            // dP_tj = dO_t · v_j, dS_tj = scale P_tj (dP_tj − Σ_i P_ti dP_ti)
            std::vector<double> dS((size_t)T * T);
            for (int t = 0; t < T; ++t) {
                double rowsum = 0.0;
                for (int j = 0; j < T; ++j) rowsum += P[t * T + j] * dot(&dO[o + t * hs], &v[o + j * hs]);
                for (int j = 0; j < T; ++j)
                    dS[t * T + j] = scale * P[t * T + j] * (dot(&dO[o + t * hs], &v[o + j * hs]) - rowsum);
            }
            for (int t = 0; t < T; ++t)
                for (int c = 0; c < hs; ++c) {
                    double gq = 0.0, gk = 0.0, gv = 0.0;
                    for (int j = 0; j < T; ++j) {
                        gq += dS[t * T + j] * k[o + j * hs + c];
                        gk += dS[j * T + t] * q[o + j * hs + c];  // t as the key
                        gv += P[j * T + t] * dO[o + j * hs + c];
                        if (j > t) gv += std::pow(eta, j - t) * dO[o + j * hs + c];
                    }
                    r.dq[o + t * hs + c] = gq;
                    r.dk[o + t * hs + c] = gk;
                    r.dv[o + t * hs + c] = gv;
                }
        }
    return r;
}

// max |ours − ref| over the reference's largest |value|
double error(const std::vector<float>& ours, const std::vector<double>& ref) {
    double diff = 0.0, scale = 1e-6;
    for (size_t i = 0; i < ref.size(); ++i) {
        diff = std::fmax(diff, std::fabs(ours[i] - ref[i]));
        scale = std::fmax(scale, std::fabs(ref[i]));
    }
    return diff / scale;
}

void check_attention(int B, int T, int C, int H, AttentionMask mask, float eta, uint64_t seed) {
    const int hs = C / H;
    const size_t n = (size_t)B * H * T * hs;
    Rng rng(seed);
    std::vector<float> q(n), k(n), v(n), dO(n);
    for (auto* x : {&q, &k, &v, &dO})
        for (float& e : *x) e = rng.normal(0.0f, 1.5f);  // scores far from uniform
    const Attention ref = reference(q, k, v, dO, B, T, C, H, mask, eta);

    // the model's layout: q, k, v as (B,T,3C) rows (head h's q in columns h*hs.., k in
    // C + h*hs.., v in 2C + h*hs..), dO as (B,T,C) rows
    std::vector<float> qkv((size_t)B * T * 3 * C), dOrows((size_t)B * T * C);
    auto rows_at = [&](int b, int h, int t) { return ((size_t)b * T + t) * 3 * C + (size_t)h * hs; };
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int e = 0; e < hs; ++e) {
                    const size_t at = (((size_t)b * H + h) * T + t) * hs + e;
                    qkv[rows_at(b, h, t) + e] = q[at];
                    qkv[rows_at(b, h, t) + C + e] = k[at];
                    qkv[rows_at(b, h, t) + 2 * C + e] = v[at];
                    dOrows[((size_t)b * T + t) * C + (size_t)h * hs + e] = dO[at];
                }

    // every output pre-filled with garbage: each must be written, not accumulated
    std::vector<float> att((size_t)B * H * T * T, 7.0f), atty((size_t)B * T * C, 7.0f);
    std::vector<float> dqkv((size_t)B * T * 3 * C, 7.0f);
    // the larger of forward's T² + 4 T·hs + hs and backward's 2T² + 7 T·hs + hs
    std::vector<float> scratch(2 * (size_t)T * T + 7 * (size_t)T * hs + hs, 7.0f);
    gpt::attention_forward(att.data(), atty.data(), qkv.data(), scratch.data(), B, T, C, H, mask, eta);
    gpt::attention_backward(dqkv.data(), dOrows.data(), qkv.data(), att.data(), scratch.data(), B, T, C,
                            H, mask, eta);
    std::vector<float> dq(n), dk(n), dv(n);  // back to (B,H,T,hs), the reference's layout
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int e = 0; e < hs; ++e) {
                    const size_t at = (((size_t)b * H + h) * T + t) * hs + e;
                    dq[at] = dqkv[rows_at(b, h, t) + e];
                    dk[at] = dqkv[rows_at(b, h, t) + C + e];
                    dv[at] = dqkv[rows_at(b, h, t) + 2 * C + e];
                }
    INFO("B=" << B << " T=" << T << " H=" << H << " hs=" << hs << " kind=" << mask.kind
              << " window=" << mask.window << " stride=" << mask.stride << " momentum=" << eta);
    size_t masked_nonzero = 0;
    for (size_t i = 0; i < att.size(); ++i) masked_nonzero += ref.att[i] == 0.0 && att[i] != 0.0f;
    CHECK(masked_nonzero == 0);
    CHECK(error(att, ref.att) <= 1e-5);
    CHECK(error(atty, ref.atty) <= 1e-5);
    CHECK(error(dq, ref.dq) <= 1e-5);
    CHECK(error(dk, ref.dk) <= 1e-5);
    CHECK(error(dv, ref.dv) <= 1e-5);
}

}  // namespace

TEST_CASE("gpt attention: banded layers score only the band and match the masked full computation") {
    uint64_t seed = 1;
    for (int T : {1, 2, 5, 13})
        for (int w : {1, 3, T - 1, T, T + 4}) {
            if (w < 1) continue;
            const AttentionMask mask{AttentionMask::banded, w, 0};
            for (float eta : {0.0f, 0.7f}) {
                check_attention(2, T, 8, 2, mask, eta, seed++);    // hs = 4
                check_attention(3, T, 48, 3, mask, eta, seed++);   // hs = 16
            }
        }
}

TEST_CASE("gpt attention: causal and strided layers match the masked full computation") {
    uint64_t seed = 100;
    for (int T : {1, 6, 13})
        for (const AttentionMask mask : {AttentionMask{}, AttentionMask{AttentionMask::strided, 0, 3}})
            for (float eta : {0.0f, 0.7f}) check_attention(2, T, 24, 2, mask, eta, seed++);
}

#include "icl/icl_split.h"

#include <algorithm>
#include <cmath>

#include "icl/gpt_probe.h"
#include "icl/metrics.h"

namespace icl {

HeadSplit split_head(const gpt::Activations& acts, const gpt::Config& c, int layer, int head, int b, int t,
                     int demo_from, int demo_to) {
    const int H = c.heads, hs = c.width / H;
    const gpt::View Q = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::q).value(),  // (T,hs) each
        K = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::k).value(),
        V = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::v).value();
    const auto q = xt::view(Q, t);  // (hs) at the query
    HeadSplit s;
    // the two fast-weight matrices (hs,hs): W[r][c] = Σ v_i[r] k_i[c]
    std::vector<double> w_zsl((size_t)hs * hs, 0.0), w_icl((size_t)hs * hs, 0.0);
    for (int i = 0; i <= t; ++i) {
        std::vector<double>& w = i >= demo_from && i < demo_to ? w_icl : w_zsl;
        for (int r = 0; r < hs; ++r)
            for (int cc = 0; cc < hs; ++cc) w[(size_t)r * hs + cc] += (double)V(i, r) * K(i, cc);
    }
    s.zsl.assign((size_t)hs, 0.0f);
    s.icl.assign((size_t)hs, 0.0f);
    s.linear.assign((size_t)hs, 0.0f);
    for (int r = 0; r < hs; ++r) {
        double z = 0, d = 0;
        for (int cc = 0; cc < hs; ++cc) {
            z += w_zsl[(size_t)r * hs + cc] * q(cc);
            d += w_icl[(size_t)r * hs + cc] * q(cc);
        }
        s.zsl[(size_t)r] = (float)z;
        s.icl[(size_t)r] = (float)d;
    }
    // the attention form Σ_i v_i (k_i · q), summed independently of the matrices
    std::vector<double> attn((size_t)hs, 0.0);
    for (int i = 0; i <= t; ++i) {
        double score = 0;
        for (int cc = 0; cc < hs; ++cc) score += (double)K(i, cc) * q(cc);
        for (int r = 0; r < hs; ++r) attn[(size_t)r] += score * V(i, r);
    }
    double largest = 0, worst = 0;
    for (int r = 0; r < hs; ++r) {
        s.linear[(size_t)r] = (float)attn[(size_t)r];
        largest = std::max(largest, std::fabs(attn[(size_t)r]));
        worst = std::max(worst, std::fabs((double)s.zsl[(size_t)r] + s.icl[(size_t)r] - attn[(size_t)r]));
    }
    s.identity_err = largest > 0 ? worst / largest : 0.0;
    // the real head: its output before Wo, as the forward pass computed it
    const gpt::View o = gpt::head_output(acts, layer, b, head).value();  // (T,hs)
    const auto at_t = xt::view(o, t);                                      // (hs) at position t
    s.softmax.assign(at_t.begin(), at_t.end());
    const double on = metrics::norm(s.softmax), ln = metrics::norm(s.linear);
    double diff = 0;
    for (int r = 0; r < hs; ++r) diff += std::pow((double)s.linear[(size_t)r] - s.softmax[(size_t)r], 2);
    s.rel_err = on > 0 ? std::sqrt(diff) / on : 0.0;
    s.cosine = metrics::cosine(s.linear, s.softmax);
    s.rel_err_scaled = std::sqrt(std::max(0.0, 1.0 - s.cosine * s.cosine));
    s.demo_norm_ratio = ln > 0 ? metrics::norm(s.icl) / ln : 0.0;
    const gpt::View p = gpt::attention_map(acts, layer, b, head).value();  // (T,T)
    for (int i = demo_from; i < demo_to; ++i) s.softmax_on_demos += p(t, i);
    return s;
}

}  // namespace icl

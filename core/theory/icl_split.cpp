#include "icl/icl_split.h"

#include <algorithm>
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "icl/gpt_probe.h"
#include "icl/metrics.h"

namespace icl {

// (the config is not read: the head's width comes with the views)
HeadSplit split_head(const gpt::Activations& acts, const gpt::Config&, int layer, int head, int b, int t,
                     int demo_from, int demo_to) {
    const gpt::View Q = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::q).value(),  // (T,hs) each
        K = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::k).value(),
        V = gpt::head_qkv(acts, layer, b, head, gpt::Qkv::v).value();
    const size_t seen = (size_t)t + 1;
    // in double from here: the query, and the keys and values of the positions it sees (seen,hs)
    const xt::xtensor<double, 1> q = xt::cast<double>(xt::view(Q, t));
    const xt::xtensor<double, 2> k = xt::cast<double>(xt::view(K, xt::range(0, seen))),
                                 v = xt::cast<double>(xt::view(V, xt::range(0, seen)));
    // 1 on the demonstrations X', 0 on the rest X
    xt::xtensor<double, 1> in_demos = xt::zeros<double>({seen});
    for (size_t i = 0; i < seen; ++i) in_demos(i) = (int)i >= demo_from && (int)i < demo_to ? 1.0 : 0.0;
    // the two fast-weight matrices (hs,hs), W = Σ_i v_i ⊗ k_i over X and over X':
    // v_i ⊗ k_i for every i as (seen,hs,hs), weighted by the mask, summed over i
    const auto outer = xt::view(v, xt::all(), xt::all(), xt::newaxis()) * xt::view(k, xt::all(), xt::newaxis(), xt::all());
    const auto mask = xt::view(in_demos, xt::all(), xt::newaxis(), xt::newaxis());
    const xt::xtensor<double, 2> w_icl = xt::sum(outer * mask, {0}), w_zsl = xt::sum(outer * (1.0 - mask), {0});
    // W_ZSL q, ΔW_ICL q; and the attention form Σ_i v_i (k_i · q), summed independently of the matrices
    const xt::xtensor<double, 1> zsl = xt::sum(w_zsl * q, {1}), icl = xt::sum(w_icl * q, {1});
    const xt::xtensor<double, 1> scores = xt::sum(k * q, {1});
    const xt::xtensor<double, 1> attn = xt::sum(v * xt::view(scores, xt::all(), xt::newaxis()), {0});
    HeadSplit s;
    s.zsl.assign(zsl.begin(), zsl.end());  // to float, as the head's numbers are
    s.icl.assign(icl.begin(), icl.end());
    s.linear.assign(attn.begin(), attn.end());
    // the identity's error, with W_ZSL q and ΔW_ICL q as rounded to float
    const auto parts = xt::cast<double>(xt::adapt(s.zsl)) + xt::cast<double>(xt::adapt(s.icl));
    const double largest = xt::amax(xt::abs(attn))(), worst = xt::amax(xt::abs(parts - attn))();
    s.identity_err = largest > 0 ? worst / largest : 0.0;
    // the real head: its output before Wo, as the forward pass computed it
    const gpt::View o = gpt::head_output(acts, layer, b, head).value();  // (T,hs)
    const auto at_t = xt::view(o, t);                                      // (hs) at position t
    s.softmax.assign(at_t.begin(), at_t.end());
    const double on = metrics::norm(s.softmax), ln = metrics::norm(s.linear);
    const double diff = xt::sum(xt::square(xt::cast<double>(xt::adapt(s.linear)) - xt::cast<double>(xt::adapt(s.softmax))))();
    s.rel_err = on > 0 ? std::sqrt(diff) / on : 0.0;
    s.cosine = metrics::cosine(s.linear, s.softmax);
    s.rel_err_scaled = std::sqrt(std::max(0.0, 1.0 - s.cosine * s.cosine));
    s.demo_norm_ratio = ln > 0 ? metrics::norm(s.icl) / ln : 0.0;
    const gpt::View p = gpt::attention_map(acts, layer, b, head).value();  // (T,T)
    for (int i = demo_from; i < demo_to; ++i) s.softmax_on_demos += p(t, i);
    return s;
}

}  // namespace icl

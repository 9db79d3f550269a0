// Dai et al. 2023's split of one attention head's output at the query into a zero-shot
// part and an in-context part, read from a real forward pass of the tiny GPT.
//
// For one head with keys k_i, values v_i (i = 0..t, the positions the query sees) and
// the query q = q_t, relaxed linear attention drops the softmax and the 1/sqrt(d):
//     F(q) = Σ_i v_i (k_i · q) = (W_ZSL + ΔW_ICL) q,
//     W_ZSL  = Σ_{i in X}  v_i ⊗ k_i   X: the zero-shot prompt's own tokens (BOS, x, →)
//     ΔW_ICL = Σ_{i in X'} v_i ⊗ k_i   X': the demonstration tokens
// The real head computes o = Σ_i softmax_i(k_i · q / sqrt(d)) v_i instead.
#pragma once
#include <vector>

#include "icl/gpt.h"

namespace icl {

struct HeadSplit {
    std::vector<float> zsl, icl, linear, softmax;  // (hs) W_ZSL q, ΔW_ICL q, F(q), o
    double identity_err = 0;     // max |(W_ZSL + ΔW_ICL) q − Σ_i v_i (k_i · q)| / max |F(q)|
    double rel_err = 0;          // ||F(q) − o|| / ||o||
    double rel_err_scaled = 0;   // min over α of ||α F(q) − o|| / ||o||  (= sqrt(1 − cos²))
    double cosine = 0;           // cos(F(q), o)
    double demo_norm_ratio = 0;  // ||ΔW_ICL q|| / ||F(q)||: a norm ratio, not a share (the parts can cancel, so it can exceed 1)
    double softmax_on_demos = 0; // softmax attention mass on X'
};

// Head h of layer l, batch row b, query position t of a forward pass; positions
// [demo_from, demo_to) are the demonstrations X', every other position <= t is X.
HeadSplit split_head(const gpt::Activations& acts, const gpt::Config& config, int layer, int head, int b, int t,
                     int demo_from, int demo_to);

}  // namespace icl

// Metrics the mechanism demos report, each defined as in the paper it comes from.
//
//  Dai et al. 2023 (ICL vs fine-tuning):
//    rec2ftp          Rec2FTP = #(FT right, ZSL wrong, ICL right) / #(FT right, ZSL wrong),
//                     per example: how much of what fine-tuning fixes ICL fixes too.
//    cosine           SimAOU is cosine(h_ICL − h_ZSL, h_FT − h_ZSL) of attention outputs;
//                     SimAM is cosine of two attention-weight rows.
//    update_cosine    that SimAOU cosine from the three vectors.
//    kendall_tau      Kendall's τ-b between two score vectors (ties counted as neither).
//  Olsson et al. 2022 (induction heads):
//    prefix_matching  mean attention from each token to the token after its earlier
//                     occurrences.
//    icl_score        loss late in the context minus loss early (negative = the context helps).
//  Todd et al. 2024 (function vectors):
//    indirect_effect  P(target | patched) − P(target | corrupted).
#pragma once
#include <cstddef>
#include <vector>

#include "icl/expected.h"

namespace icl::metrics {

// The mean of v; NaN (written as JSON null) while there is nothing to average.
double mean(const std::vector<double>& v);

// The mean of v and its spread (population standard deviation, over n); both NaN while
// there is nothing to average (a NaN in v makes both NaN).
struct MeanSd {
    double mean, sd;
};
MeanSd mean_sd(const std::vector<double>& v);

// The Euclidean length ‖v‖, summed in double.
double norm(const std::vector<float>& v);

// KL(p ‖ q) = Σ p_i log(p_i / q_i) in nats over terms with p_i > 0, each q_i floored at
// 1e-30 (a model's probability that underflowed). NaN in p gives NaN.
double kl_divergence(const std::vector<double>& p, const std::vector<double>& q);

// cos(a, b) over n floats; 0 when either vector is zero.
double cosine(const float* a, const float* b, size_t n);
double cosine(const std::vector<float>& a, const std::vector<float>& b);

// cos(icl − zsl, ft − zsl) over n floats (SimAOU for one example and layer).
double update_cosine(const float* zsl, const float* icl, const float* ft, size_t n);

struct Rec2Ftp {
    double value = 0;  // both_fixed / ft_fixed; 0 when ft_fixed = 0
    int ft_fixed = 0;  // examples FT gets right that ZSL gets wrong
    int both_fixed = 0;  // ... that ICL gets right too
};
// One entry per example: whether ZSL, FT, ICL predicted it correctly. Sizes must agree.
Expected<Rec2Ftp> rec2ftp(const std::vector<bool>& zsl, const std::vector<bool>& ft, const std::vector<bool>& icl);

// Kendall's τ-b of two equally long score vectors (n >= 2): (concordant − discordant)
// / sqrt((pairs − ties in a)(pairs − ties in b)); 0 when either vector is constant.
Expected<double> kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

// attention (T,T), read as attention(t, j) (a probe's view, a Matrix): row t = attention
// from position t over positions 0..T−1, one head; tokens (T).
// For every t whose token occurred before at some j < t, the attention mass on the
// positions j + 1 that followed those occurrences (j + 1 <= t); averaged over such t.
// Returns 0 when no token repeats.
template <class Attention>
double prefix_matching(const Attention& attention, const int* tokens) {
    const int T = static_cast<int>(attention.shape()[0]);
    double sum = 0;
    int counted = 0;
    for (int t = 1; t < T; ++t) {
        double mass = 0;
        bool seen = false;
        for (int j = 0; j < t; ++j)
            if (tokens[j] == tokens[t]) {
                seen = true;
                mass += attention(t, j + 1);
            }
        if (!seen) continue;
        sum += mass;
        ++counted;
    }
    return counted ? sum / counted : 0.0;
}

// Mean of losses over positions [late_from, late_to) minus the mean over
// [early_from, early_to) of a per-position loss vector. Negative: later tokens (more
// context) are predicted better — Olsson et al.'s loss(token 500) − loss(token 50) at
// lesson scale.
double icl_score(const std::vector<double>& loss_by_position, int early_from, int early_to, int late_from,
                 int late_to);

// Todd et al.'s causal indirect effect of one patch on one prompt.
inline double indirect_effect(double p_patched, double p_corrupted) { return p_patched - p_corrupted; }

}  // namespace icl::metrics

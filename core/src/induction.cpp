#include "icl/induction.h"

#include <string>

#include "icl/metrics.h"

namespace icl::induction {

Status validate(const Data& d) {
    if (d.min_period < 6 || d.min_period > d.max_period)
        return make_error("induction data: periods [" + std::to_string(d.min_period) + ", " +
                          std::to_string(d.max_period) + "] must satisfy 6 <= min <= max");
    if (d.length < 2 * d.max_period + 4)
        return make_error("induction data: length " + std::to_string(d.length) +
                          " must hold two periods and the late window (>= 2 * max_period + 4)");
    return Ok{};
}

void make_batch(const Data& d, int B, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets) {
    const int T = d.length;
    tokens.assign((size_t)B * T, 0);
    targets.assign((size_t)B * T, -1);
    std::vector<int> block((size_t)d.max_period);
    for (int b = 0; b < B; ++b) {
        const int p = d.min_period + (int)rng.below((uint32_t)(d.max_period - d.min_period + 1));
        for (int i = 0; i < p; ++i) block[(size_t)i] = (int)rng.below((uint32_t)d.vocab);
        int* row = tokens.data() + (size_t)b * T;
        for (int t = 0; t < T; ++t) row[t] = block[(size_t)(t % p)];
        for (int t = 0; t + 1 < T; ++t) targets[(size_t)b * T + t] = row[t + 1];
    }
}

Window early_window(const Data&) { return {1, 5}; }
Window late_window(const Data& d) { return {d.length - 5, d.length - 1}; }

Expected<Eval> evaluate(const gpt::Model& model, const Data& d, const std::vector<int>& tokens,
                        const std::vector<int>& targets, int B, const gpt::Hooks* hooks) {
    const int T = d.length, L = model.config.layers, H = model.config.heads;
    gpt::Activations acts;
    if (Status s = gpt::forward(model, acts, tokens.data(), targets.data(), B, T, hooks); !s) return s.error();
    Eval e;
    e.loss = acts.loss;
    e.loss_by_position.assign((size_t)T, 0.0);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t + 1 < T; ++t) e.loss_by_position[(size_t)t] += acts.ptr(acts.losses)[(size_t)b * T + t] / B;
    const Window early = early_window(d), late = late_window(d);
    e.icl_score = metrics::icl_score(e.loss_by_position, early.from, early.to, late.from, late.to);
    e.prefix_matching.assign((size_t)L * H, 0.0);
    e.previous_token.assign((size_t)L * H, 0.0);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            double pm = 0, prev = 0;
            for (int b = 0; b < B; ++b) {
                const float* att = acts.attention(l, b, h, H);
                pm += metrics::prefix_matching(att, tokens.data() + (size_t)b * T, T) / B;
                for (int t = 1; t < T; ++t) prev += att[(size_t)t * T + t - 1] / ((double)B * (T - 1));
            }
            e.prefix_matching[(size_t)l * H + h] = pm;
            e.previous_token[(size_t)l * H + h] = prev;
        }
    return e;
}

}  // namespace icl::induction

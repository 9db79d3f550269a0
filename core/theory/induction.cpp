#include "icl/induction.h"

#include <algorithm>
#include <string>

#include "icl/gpt_probe.h"
#include "icl/metrics.h"

namespace icl::induction {

Status validate(const Data& d) {
    if (!(d.copy_prob >= 0.0f && d.copy_prob <= 1.0f))
        return make_error("induction data: copy_prob = " + std::to_string(d.copy_prob) + " is outside [0, 1]");
    if (d.vocab < 8 || d.length < 16)
        return make_error("induction data: needs vocab >= 8 and length >= 16 (got " + std::to_string(d.vocab) + ", " +
                          std::to_string(d.length) + ")");
    return Ok{};
}

void make_batch(const Data& d, int B, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets) {
    const int T = d.length;
    tokens.assign((size_t)B * T, 0);
    targets.assign((size_t)B * T, -1);
    std::vector<int> last_seen((size_t)d.vocab);
    for (int b = 0; b < B; ++b) {
        int* row = tokens.data() + (size_t)b * T;
        std::fill(last_seen.begin(), last_seen.end(), -1);
        row[0] = (int)rng.below((uint32_t)d.vocab);
        for (int t = 1; t < T; ++t) {
            // last_seen holds positions < t − 1; the copy continues the earlier occurrence
            const int j = last_seen[(size_t)row[t - 1]];
            const bool copy = j >= 0 && rng.uniform() < d.copy_prob;
            row[t] = copy ? row[j + 1] : (int)rng.below((uint32_t)d.vocab);
            last_seen[(size_t)row[t - 1]] = t - 1;
        }
        for (int t = 0; t + 1 < T; ++t) targets[(size_t)b * T + t] = row[t + 1];
    }
}

void make_repeat_probe(const Data& d, int B, Rng& rng, std::vector<int>& tokens) {
    const int T = d.length, n = T / 2;
    tokens.assign((size_t)B * T, 0);
    std::vector<int> pool((size_t)d.vocab);
    for (int b = 0; b < B; ++b) {
        for (int i = 0; i < d.vocab; ++i) pool[(size_t)i] = i;
        int* row = tokens.data() + (size_t)b * T;
        for (int i = 0; i < n; ++i) {
            if (i < d.vocab) {  // partial Fisher–Yates: distinct while the vocabulary lasts
                std::swap(pool[(size_t)i], pool[(size_t)i + rng.below((uint32_t)(d.vocab - i))]);
                row[i] = pool[(size_t)i];
            } else {
                row[i] = (int)rng.below((uint32_t)d.vocab);
            }
        }
        for (int t = n; t < T; ++t) row[t] = row[t - n];
    }
}

Window early_window(const Data&) { return {1, 5}; }
Window late_window(const Data& d) { return {d.length - 5, d.length - 1}; }

Expected<Eval> evaluate(const gpt::Model& model, const Data& d, const std::vector<int>& tokens,
                        const std::vector<int>& targets, const std::vector<int>& probe, int B,
                        const gpt::Hooks* hooks) {
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
    if (Status s = gpt::forward(model, acts, probe.data(), nullptr, B, T, hooks); !s) return s.error();
    e.prefix_matching.assign((size_t)L * H, 0.0);
    e.previous_token.assign((size_t)L * H, 0.0);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            double pm = 0, prev = 0;
            for (int b = 0; b < B; ++b) {
                const gpt::View att = gpt::attention_map(acts, l, b, h).value();  // (T,T)
                pm += metrics::prefix_matching(att, probe.data() + (size_t)b * T) / B;
                for (int t = 1; t < T; ++t) prev += att(t, t - 1) / ((double)B * (T - 1));
            }
            e.prefix_matching[(size_t)l * H + h] = pm;
            e.previous_token[(size_t)l * H + h] = prev;
        }
    return e;
}

}  // namespace icl::induction

// Induction heads at lesson scale (Olsson et al. 2022): an attention-only GPT trained on
// sequences made of a block of random tokens (drawn with replacement) repeated until
// the context is full. The block length (the period) varies per sequence, so no fixed
// positional offset predicts the repeat, and tokens may recur inside a block, so
// "a context token not seen lately" does not either: the model must find where the
// current token occurred before and copy what followed it — a previous-token head
// feeding an induction head, which needs two layers.
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/rng.h"

namespace icl::induction {

struct Data {
    int vocab = 64;
    int length = 48;                   // T
    int min_period = 4, max_period = 16;
};
Status validate(const Data& d);

// B sequences (B,T): a period p uniform in [min_period, max_period], p tokens uniform
// over the vocabulary, repeated; targets (B,T) = the next token (the last position is -1, not scored).
void make_batch(const Data& d, int B, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets);

// Olsson et al.'s probe for prefix matching: B sequences of max_period + 1 random tokens
// (distinct when the vocabulary allows) repeated until T is full. The probe's period is
// one no training sequence has, so a head that learned "attend p − 1 back" for the
// training periods does not score; only matching on content does.
void make_repeat_probe(const Data& d, int B, Rng& rng, std::vector<int>& tokens);

// Positions whose losses make the ICL score (Olsson et al.: loss at token 500 minus
// loss at token 50). Early: t in [1, min(5, min_period − 1)), predicting tokens of the
// first block, never seen before. Late: the last four scored positions, deep in the repeats.
struct Window { int from = 0, to = 0; };
Window early_window(const Data& d);
Window late_window(const Data& d);

// What a model does on one evaluation batch (loss, ICL score) and on the repeat probe
// (prefix matching, previous-token attention).
struct Eval {
    double loss = 0;                          // mean over scored positions
    std::vector<double> loss_by_position;     // (T), mean over the batch; last one unscored (0)
    double icl_score = 0;                     // late − early (negative: the context helps)
    std::vector<double> prefix_matching;      // (L*H) per head, Olsson et al.'s score
    std::vector<double> previous_token;       // (L*H) per head: mean attention from t to t − 1
};
Expected<Eval> evaluate(const gpt::Model& model, const Data& d, const std::vector<int>& tokens,
                        const std::vector<int>& targets, const std::vector<int>& probe, int B,
                        const gpt::Hooks* hooks = nullptr);

}  // namespace icl::induction

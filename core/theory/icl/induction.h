// Induction heads at lesson scale (Olsson et al. 2022): an attention-only GPT trained on
// random token sequences in which, with probability copy_prob, the next token continues
// the most recent earlier occurrence of the current token (A B ... A -> B); otherwise it
// is drawn uniformly. The copies sit at arbitrary distances, so no positional offset
// predicts them: the model has to find where the current token occurred before and copy
// what followed it — a previous-token head feeding an induction head, which needs two
// layers.
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/rng.h"

namespace icl::induction {

struct Data {
    int vocab = 32;
    int length = 48;          // T
    float copy_prob = 0.7f;   // chance that a recurring token is followed as before
};
Status validate(const Data& d);

// B sequences (B,T) as above; targets (B,T) = the next token (the last position is -1,
// not scored).
void make_batch(const Data& d, int B, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets);

// Olsson et al.'s probe for prefix matching: B sequences of T/2 random tokens (distinct
// when the vocabulary allows) followed by the same tokens again.
void make_repeat_probe(const Data& d, int B, Rng& rng, std::vector<int>& tokens);

// Positions whose losses make the ICL score (Olsson et al.: loss at token 500 minus
// loss at token 50). Early: t in [1, 5), where few tokens have occurred before. Late: the last four scored positions, deep in the repeats.
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

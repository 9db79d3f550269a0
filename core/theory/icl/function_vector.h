// Todd et al. 2024's function vector of one task in a GPT trained on the task suite:
// each head's mean output (before W_O) at the last token over ICL prompts of the task,
// each head's causal indirect effect when that mean is patched into corrupted prompts,
// and the vector = Σ over the top heads of W_O[:, head] · mean. The function_vectors
// demo shows it; prompt_lab adds it to a learner's prompt.
#pragma once
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/rng.h"
#include "icl/tasks.h"

namespace icl {

struct FunctionVectorOptions {
    int shots = 8;                 // demonstrations per ICL prompt
    int prompts = 32;              // ICL prompts averaged over
    int top_heads = 6;             // heads summed into the vector
    bool shuffled_labels = false;  // corrupted prompts: Todd et al.'s shuffled labels (else zero-shot)
};

struct FunctionVector {
    std::vector<float> vector;     // (C)
    std::vector<float> mean;       // (L*C) mean head outputs at the last token, head h in columns h*hs..
    std::vector<double> cie;       // (L*H) causal indirect effect per head
    std::vector<std::string> top;  // the heads summed, "L1H2", best first
    double p_clean = 0, p_corrupt = 0;  // mean P(right answer) on the clean and corrupted prompts
    std::vector<tasks::Pair> built_from, held_back;  // the task's training pairs split in two
};

// Draws from rng: the split of the task's training pairs, then the prompts.
Expected<FunctionVector> function_vector(const gpt::Model& model, const tasks::Task& task,
                                         const FunctionVectorOptions& options, Rng& rng);

// Last-position softmax probabilities (B,V) of a batch of equally long prompts.
Status last_position_probs(const gpt::Model& model, gpt::Activations& acts, const std::vector<std::vector<int>>& prompts,
                           const gpt::Hooks* hooks, std::vector<float>& out);

}  // namespace icl

// Fine-tuning a model on a handful of demonstrations, the baseline against in-context
// learning: the same k (x, y) pairs, but as a training set that changes the weights,
// each as its own zero-shot prompt "BOS x →" with the loss on y.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/optim.h"

namespace icl::finetune {

struct Example { int x = 0, y = 0; };

struct Options {
    int steps = 10;                      // full-batch optimizer steps over the k examples
    OptimizerConfig optimizer;           // default: AdamW, lr 1e-3, no decay
    std::vector<std::string> trainable;  // tensor names; empty = all
};

// Fine-tunes `model` in place on the examples; returns the mean loss before the first
// step and after the last. Errors: no examples, a bad optimizer config or tensor name,
// a diverging step (named).
struct Losses { float before = 0, after = 0; };
Expected<Losses> finetune(gpt::Model& model, const std::vector<Example>& examples, const Options& options);

// sqrt(Σ (a - b)²) over two parameter buffers of the same size.
double delta_norm(const std::vector<float>& a, const std::vector<float>& b);
// FNV-1a 64 of a parameter buffer's bytes, as 16 hex digits.
std::string weights_hash(const std::vector<float>& params);

}  // namespace icl::finetune

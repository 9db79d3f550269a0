// Fine-tuning a model on a handful of demonstrations, the baseline against in-context
// learning: the same k (x, y) pairs, but as a training set that changes the weights,
// each as its own zero-shot prompt "BOS x →" with the loss on y.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/optim.h"

namespace icl::finetune {

struct Example { int x = 0, y = 0; };

struct Options {
    int steps = 10;                      // optimizer steps
    int batch = 0;                       // examples a step: 0 = all of them (full batch); b > 0:
                                         // b at a time, in order, wrapping around (batch 1 and
                                         // steps = k: one epoch of SGD, example by example)
    OptimizerConfig optimizer;           // default: AdamW, lr 1e-3, no decay
    std::vector<std::string> trainable;  // tensor names; empty = all
    bool losses = true;                  // false: skip the forward passes Losses needs
};

// Fine-tunes `model` in place on the examples; returns the mean loss over all of them
// before the first step and after the last (NaN with options.losses false). Errors: no examples, steps < 0, a batch
// outside [0, k], a bad optimizer config or tensor name, a diverging step (named).
struct Losses { float before = 0, after = 0; };
Expected<Losses> finetune(gpt::Model& model, const std::vector<Example>& examples, const Options& options);

// sqrt(Σ (a - b)²) over two parameter buffers of the same size (or n floats of each).
double delta_norm(const std::vector<float>& a, const std::vector<float>& b);
double delta_norm(const float* a, const float* b, size_t n);
// FNV-1a 64 of a parameter buffer's bytes, as 16 hex digits.
std::string weights_hash(const std::vector<float>& params);

}  // namespace icl::finetune

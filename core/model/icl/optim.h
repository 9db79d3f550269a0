// Optimizers over one contiguous parameter buffer: AdamW (Loshchilov & Hutter 2019,
// decoupled weight decay) and SGD with momentum (PyTorch's form), with a per-tensor
// trainable mask, a per-tensor no-decay flag and global-norm gradient clipping.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "icl/expected.h"

namespace icl {

// One tensor of the parameter buffer as the optimizer sees it.
struct ParamSlot {
    std::string name;
    size_t offset = 0, size = 0;  // in floats
    bool decay = false;           // weight decay applies (not to LayerNorm or biases)
    bool trainable = true;        // false: the optimizer never changes it
};

struct OptimizerConfig {
    enum Kind { adamw, sgd } kind = adamw;
    float lr = 1e-3f;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  // AdamW
    float momentum = 0.9f;                            // SGD
    float weight_decay = 0.0f;                        // decoupled (AdamW) / L2 (SGD), decay slots only
    float clip_norm = 0.0f;  // > 0: scale the gradients so their global norm is at most this
};
Status validate(const OptimizerConfig& config);

// Marks trainable exactly the slots named in `names` (the rest frozen). An unknown
// name is an error naming it, and leaves `slots` unchanged.
Status set_trainable(std::vector<ParamSlot>& slots, const std::vector<std::string>& names);

// Weight decay applies exactly to the slots named in `names` that decay by nature (ParamSlot::decay:
// not LayerNorm or biases); the rest do not decay. An unknown name is an error naming it, and
// leaves `slots` unchanged (as set_trainable).
Status set_decay(std::vector<ParamSlot>& slots, const std::vector<std::string>& names);

// sqrt(sum of g²) over the trainable slots of grads
float global_grad_norm(const float* grads, const std::vector<ParamSlot>& slots);

// What an optimizer has learnt besides the parameters: its step count and moments (AdamW's
// m and v; SGD's momentum buffer in m, v empty). Saving it with the parameters and
// restoring both makes the next steps exactly those an uninterrupted run takes.
struct OptimizerState {
    int steps = 0;
    std::vector<float> m, v;
};

class Optimizer {
public:
    // `slots` cover a buffer of `total` floats; config must be valid.
    Optimizer(OptimizerConfig config, std::vector<ParamSlot> slots, size_t total);

    // One update of params from grads (both `total` floats), the gradients clipped
    // when clip_norm > 0 (AdamW scales them as it reads them; SGD scales grads in place).
    // The trainable slots' gradients are consumed: 0 on return, ready for the next backward
    // to accumulate into (the frozen slots' are left as they were). Returns the gradient
    // norm before clipping, or an error if it is NaN or infinite (then params and grads
    // are unchanged).
    Expected<float> step(float* params, float* grads);

    OptimizerState state() const { return {t_, m_, v_}; }
    // The inverse; an error (and nothing changed) if the moments' sizes are not this
    // optimizer's or the step count is negative.
    Status restore(const OptimizerState& state);

    int steps() const { return t_; }
    const std::vector<ParamSlot>& slots() const { return slots_; }
    const OptimizerConfig& config() const { return config_; }

private:
    OptimizerConfig config_;
    std::vector<ParamSlot> slots_;
    std::vector<ParamSlot> runs_;  // trainable slots, adjacent ones of the same decay merged
    std::vector<float> m_, v_;  // AdamW moments, or SGD's momentum buffer in m_
    int t_ = 0;
};

}  // namespace icl

// Training the tiny GPT (or its recurrent control, Arch::gru): one step = forward, backward, optimizer update, with the
// trainable mask (e.g. only W_K and W_V, for the ICL-vs-fine-tuning lesson) and a
// stop with the step number when training diverges.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "icl/divergence.h"
#include "icl/gpt.h"
#include "icl/optim.h"

namespace icl::gpt {

// The model's tensors as optimizer slots (all trainable; decay as in TensorInfo).
std::vector<ParamSlot> param_slots(const Model& model);
// The names of its attention matrices (each block's W_Q, W_K, W_V, W_O, and a delta-rule
// layer's W_β): what weight decay
// on the attention weights only (Nguyen & Reddy 2024) shrinks. None in the GRU.
std::vector<std::string> attention_matrices(const Model& model);

class Trainer {
public:
    // `trainable` names the tensors to train (empty = all); `decaying`, where given, the
    // only tensors weight decay shrinks (set_decay; absent = every matrix and embedding).
    // Errors: a bad optimizer config, an unknown tensor name.
    static Expected<Trainer> make(Model& model, const OptimizerConfig& config,
                                  const std::vector<std::string>& trainable = {},
                                  const std::optional<std::vector<std::string>>& decaying = std::nullopt);

    // One step on a (B,T) batch (targets -1 = not scored). Returns the loss before the
    // update. A NaN/Inf loss or gradient, or a loss exploded past DivergenceWatch's
    // bound (icl/divergence.h), is an error naming the step (1-based) and the lr; the
    // parameters are then left as they were before that step.
    Expected<float> step(const int* tokens, const int* targets, int B, int T);
    // The same for any model (either architecture, any inputs and readouts): the batch needs
    // targets, target_vectors or both; the loss is their sum (Activations::loss).
    Expected<float> step(const Batch& batch);

    // What training has gathered besides the parameters (the optimizer's state and the
    // divergence watch's first loss): a run saved with it and the parameters, and both
    // restored into a new Trainer of the same model and config, goes on exactly as it would
    // have (tests/unit/test_checkpoint_resume.cpp).
    struct State {
        OptimizerState optimizer;
        double first_loss = -1;
    };
    State state() const { return {optimizer_.state(), watch_.first_loss()}; }
    // An error (nothing changed) where the state does not fit this trainer's model.
    Status restore(const State& state) {
        if (Status s = optimizer_.restore(state.optimizer); !s) return s;
        watch_.restore(state.first_loss);
        return Ok{};
    }

    int steps() const { return optimizer_.steps(); }
    const Activations& activations() const { return acts_; }
    float last_grad_norm() const { return grad_norm_; }

private:
    Trainer(Model& model, Optimizer optimizer)
        : model_(&model), grads_(model.params.size(), 0.0f), optimizer_(std::move(optimizer)) {}

    Model* model_;
    Activations acts_;
    std::vector<float> grads_;
    bool grads_clear_ = true;  // the trainable slots' gradients are 0 (the optimizer consumed them)
    Optimizer optimizer_;
    float grad_norm_ = 0.0f;
    DivergenceWatch watch_;
};

}  // namespace icl::gpt

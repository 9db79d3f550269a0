#include "icl/gpt_train.h"

#include <algorithm>
#include <cmath>

namespace icl::gpt {

std::vector<ParamSlot> param_slots(const Model& model) {
    std::vector<ParamSlot> slots;
    for (const TensorInfo& t : model.layout.tensors)
        slots.push_back(ParamSlot{t.name, t.offset, t.size, t.decay, true});
    return slots;
}

Expected<Trainer> Trainer::make(Model& model, const OptimizerConfig& config,
                                const std::vector<std::string>& trainable) {
    if (Status s = validate(config); !s) return s.error();
    std::vector<ParamSlot> slots = param_slots(model);
    if (!trainable.empty())
        if (Status s = set_trainable(slots, trainable); !s) return s.error();
    return Trainer(model, Optimizer(config, std::move(slots), model.params.size()));
}

Expected<float> Trainer::step(const int* tokens, const int* targets, int B, int T) {
    const int n = steps() + 1;
    auto diverged = [n](const std::string& what) {
        return make_error("training diverged at step " + std::to_string(n) + ": " + what);
    };
    if (!targets) return make_error("training step " + std::to_string(n) + ": no targets given");
    Status f = forward(*model_, acts_, tokens, targets, B, T);
    if (!f) {
        if (!std::isfinite(acts_.loss)) return diverged(f.error().message);  // forward resets it first
        return make_error("training step " + std::to_string(n) + ": " + f.error().message);
    }
    std::fill(grads_.begin(), grads_.end(), 0.0f);
    if (Status b = backward(*model_, acts_, grads_.data()); !b) return b.error();
    Expected<float> norm = optimizer_.step(model_->params.data(), grads_.data());
    if (!norm) return diverged(norm.error().message);
    grad_norm_ = norm.value();
    return acts_.loss;
}

}  // namespace icl::gpt

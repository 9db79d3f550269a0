#include "icl/gpt_train.h"

#include <algorithm>
#include <cmath>

#include "icl/profile.h"

namespace icl::gpt {

std::vector<ParamSlot> param_slots(const Model& model) {
    std::vector<ParamSlot> slots;
    for (const TensorInfo& t : model.layout.tensors)
        slots.push_back(ParamSlot{t.name, t.offset, t.size, t.decay, true});
    return slots;
}

std::vector<std::string> attention_matrices(const Model& model) {
    std::vector<std::string> names;
    for (const TensorInfo& t : model.layout.tensors) {
        const size_t dot = t.name.find(".attn.w");
        if (dot != std::string::npos && t.name.size() == dot + 8) names.push_back(t.name);  // wq, wk, wv, wo (and a delta layer's wb)
    }
    return names;
}

Expected<Trainer> Trainer::make(Model& model, const OptimizerConfig& config,
                                const std::vector<std::string>& trainable,
                                const std::optional<std::vector<std::string>>& decaying) {
    if (Status s = validate(config); !s) return s.error();
    std::vector<ParamSlot> slots = param_slots(model);
    if (!trainable.empty())
        if (Status s = set_trainable(slots, trainable); !s) return s.error();
    if (decaying)
        if (Status s = set_decay(slots, *decaying); !s) return s.error();
    return Trainer(model, Optimizer(config, std::move(slots), model.params.size()));
}

Expected<float> Trainer::step(const int* tokens, const int* targets, int B, int T) {
    Batch batch;
    batch.B = B;
    batch.T = T;
    batch.tokens = tokens;
    batch.targets = targets;
    return step(batch);
}

Expected<float> Trainer::step(const Batch& batch) {
    const int n = steps() + 1;
    const double lr = optimizer_.config().lr;
    if (!batch.targets && !batch.target_vectors)
        return make_error("training step " + std::to_string(n) + ": no targets given");
    Status f = forward(*model_, acts_, batch);
    if (!f) {
        if (!std::isfinite(acts_.loss)) return make_error(watch_.check(n, acts_.loss, lr));  // forward resets it first
        return make_error("training step " + std::to_string(n) + ": " + f.error().message);
    }
    // An exploding loss stops here, before this step's update.
    if (std::string why = watch_.check(n, acts_.loss, lr); !why.empty()) return make_error(why);
    {
        // backward needs every gradient at 0 (it adds into some and is told it may store the
        // rest): after a completed step the optimizer has left the trainable slots' gradients
        // at 0 (it zeroes them as it reads them), so only the frozen ones are zeroed here;
        // after a failed one, all
        ICL_PROFILE_SCOPE("zero grads");
        if (!grads_clear_) std::fill(grads_.begin(), grads_.end(), 0.0f);
        else
            for (const ParamSlot& s : optimizer_.slots())
                if (!s.trainable) std::fill_n(grads_.data() + s.offset, s.size, 0.0f);
    }
    grads_clear_ = false;
    // every gradient is 0 here (above), so backward may store the weight products' gradients
    if (Status b = backward(*model_, acts_, grads_.data(), GradsOnEntry::zero); !b) return b.error();
    Expected<float> norm = optimizer_.step(model_->params.data(), grads_.data());
    if (!norm)
        return make_error("training diverged at step " + std::to_string(n) + ": " + norm.error().message +
                          DivergenceWatch::lr_hint(lr));
    grads_clear_ = true;
    grad_norm_ = norm.value();
    return acts_.loss;
}

}  // namespace icl::gpt

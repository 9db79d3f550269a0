#include "icl/optim.h"

#include <algorithm>
#include <cmath>

#include "icl/kernels.h"
#include "icl/profile.h"

namespace icl {

Status validate(const OptimizerConfig& c) {
    auto bad = [](const char* name, float v, const char* rule) {
        return make_error(std::string("optimizer: ") + name + " = " + std::to_string(v) + " " + rule);
    };
    if (!(c.lr > 0.0f) || !std::isfinite(c.lr)) return bad("lr", c.lr, "must be a finite number > 0");
    if (!(c.beta1 >= 0.0f && c.beta1 < 1.0f)) return bad("beta1", c.beta1, "must be in [0, 1)");
    if (!(c.beta2 >= 0.0f && c.beta2 < 1.0f)) return bad("beta2", c.beta2, "must be in [0, 1)");
    if (!(c.eps > 0.0f)) return bad("eps", c.eps, "must be > 0");
    if (!(c.momentum >= 0.0f && c.momentum < 1.0f)) return bad("momentum", c.momentum, "must be in [0, 1)");
    if (!(c.weight_decay >= 0.0f) || !std::isfinite(c.weight_decay))
        return bad("weight_decay", c.weight_decay, "must be a finite number >= 0");
    if (!(c.clip_norm >= 0.0f)) return bad("clip_norm", c.clip_norm, "must be >= 0 (0 = no clipping)");
    return Ok{};
}

Status set_trainable(std::vector<ParamSlot>& slots, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        bool found = false;
        for (const ParamSlot& s : slots) found = found || s.name == n;
        if (!found) return make_error("optimizer: no parameter tensor named '" + n + "'");
    }
    for (ParamSlot& s : slots) {
        s.trainable = false;
        for (const std::string& n : names) s.trainable = s.trainable || s.name == n;
    }
    return Ok{};
}

Status set_decay(std::vector<ParamSlot>& slots, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        bool found = false;
        for (const ParamSlot& s : slots) found = found || s.name == n;
        if (!found) return make_error("optimizer: no parameter tensor named '" + n + "'");
    }
    for (ParamSlot& s : slots) {
        bool named = false;
        for (const std::string& n : names) named = named || s.name == n;
        s.decay = s.decay && named;
    }
    return Ok{};
}

namespace {

// The trainable slots with adjacent ones of the same decay merged: the optimizer's
// passes then run over a few long stretches of the buffer (all of it, in two kinds,
// when everything trains) instead of one short call per tensor.
std::vector<ParamSlot> merge_runs(const std::vector<ParamSlot>& slots) {
    std::vector<ParamSlot> runs;
    for (const ParamSlot& s : slots) {
        if (!s.trainable || s.size == 0) continue;
        if (!runs.empty() && runs.back().decay == s.decay && runs.back().offset + runs.back().size == s.offset)
            runs.back().size += s.size;
        else
            runs.push_back(ParamSlot{"", s.offset, s.size, s.decay, true});
    }
    return runs;
}

}  // namespace

float global_grad_norm(const float* grads, const std::vector<ParamSlot>& slots) {
    double sum = 0.0;
    for (const ParamSlot& s : slots)
        if (s.trainable) {
            double part = 0.0;
            sum_squares(&part, grads + s.offset, s.size);
            sum += part;
        }
    return (float)std::sqrt(sum);
}

Optimizer::Optimizer(OptimizerConfig config, std::vector<ParamSlot> slots, size_t total)
    : config_(config), slots_(std::move(slots)), runs_(merge_runs(slots_)), m_(total, 0.0f),
      v_(config.kind == OptimizerConfig::adamw ? total : 0, 0.0f) {}

Status Optimizer::restore(const OptimizerState& s) {
    if (s.steps < 0) return make_error("optimizer state: " + std::to_string(s.steps) + " steps");
    if (s.m.size() != m_.size() || s.v.size() != v_.size())
        return make_error("optimizer state: moments of " + std::to_string(s.m.size()) + " and " + std::to_string(s.v.size()) +
                          " numbers, not " + std::to_string(m_.size()) + " and " + std::to_string(v_.size()));
    t_ = s.steps;
    m_ = s.m;
    v_ = s.v;
    return Ok{};
}

Expected<float> Optimizer::step(float* params, float* grads) {
    ICL_PROFILE_CONTEXT("opt");
    const float norm = global_grad_norm(grads, runs_);
    if (!std::isfinite(norm))
        return make_error(std::string("optimizer: the gradient norm is ") +
                          (std::isnan(norm) ? "NaN" : "infinite"));
    // As torch.nn.utils.clip_grad_norm_: scale by clip / (norm + 1e-6) when that is < 1
    // (AdamW applies the scale as it reads each gradient; SGD's pass scales them first).
    float coef = 1.0f;
    if (config_.clip_norm > 0.0f) coef = std::min(1.0f, config_.clip_norm / (norm + 1e-6f));
    if (coef < 1.0f && config_.kind != OptimizerConfig::adamw)
        for (const ParamSlot& s : runs_)
            for (size_t i = 0; i < s.size; ++i) grads[s.offset + i] *= coef;
    ++t_;
    for (const ParamSlot& s : runs_) {
        const float wd = s.decay ? config_.weight_decay : 0.0f;
        float* p = params + s.offset;
        float* g = grads + s.offset;
        if (config_.kind == OptimizerConfig::adamw) {
            adamw_update(p, g, m_.data() + s.offset, v_.data() + s.offset, s.size, config_.lr,
                         config_.beta1, config_.beta2, config_.eps, wd, t_, coef);  // g now 0
        } else {
            sgd_momentum_update(p, g, m_.data() + s.offset, s.size, config_.lr, config_.momentum, wd);
            std::fill_n(g, s.size, 0.0f);
        }
    }
    return norm;
}

}  // namespace icl

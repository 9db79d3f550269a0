// Adam (Kingma & Ba 2015) for the small models the demos train: one moment pair per
// parameter tensor, bias-corrected, no weight decay.
#pragma once
#include <vector>

namespace icl {

class Adam {
public:
    explicit Adam(float lr, float beta1 = 0.9f, float beta2 = 0.999f, float eps = 1e-8f)
        : lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps) {}
    // One step: params[k] -= lr · m̂/(√v̂ + eps) from grads[k], for every tensor k.
    // The list must name the same tensors, in the same order, at every step.
    void step(const std::vector<std::vector<float>*>& params, const std::vector<const std::vector<float>*>& grads);
    int steps() const { return t_; }

private:
    float lr_, beta1_, beta2_, eps_;
    int t_ = 0;
    std::vector<std::vector<float>> m_, v_;
};

}  // namespace icl

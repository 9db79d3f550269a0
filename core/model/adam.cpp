#include "icl/adam.h"

#include <cmath>

namespace icl {

void Adam::step(const std::vector<std::vector<float>*>& params, const std::vector<const std::vector<float>*>& grads) {
    if (m_.empty()) {
        for (const auto* p : params) {
            m_.emplace_back(p->size(), 0.0f);
            v_.emplace_back(p->size(), 0.0f);
        }
    }
    ++t_;
    const float c1 = 1.0f - std::pow(beta1_, float(t_)), c2 = 1.0f - std::pow(beta2_, float(t_));
    for (size_t k = 0; k < params.size(); ++k) {
        std::vector<float>& p = *params[k];
        const std::vector<float>& g = *grads[k];
        for (size_t i = 0; i < p.size(); ++i) {
            m_[k][i] = beta1_ * m_[k][i] + (1.0f - beta1_) * g[i];
            v_[k][i] = beta2_ * v_[k][i] + (1.0f - beta2_) * g[i] * g[i];
            p[i] -= lr_ * (m_[k][i] / c1) / (std::sqrt(v_[k][i] / c2) + eps_);
        }
    }
}

}  // namespace icl

#include "icl/attention_dual.h"

#include <algorithm>
#include <cmath>
#include <xtensor/xview.hpp>

namespace icl {

Matrix linear_attention_causal(const Matrix& q, const Matrix& k, const Matrix& v) {
    Matrix y = matrix(rows(q), cols(v));
    for (int t = 0; t < rows(q); ++t)
        for (int i = 0; i <= t; ++i) {
            const float score = dot(row(k, i), row(q, t), cols(k));
            for (int c = 0; c < cols(v); ++c) y(t, c) += v(i, c) * score;
        }
    return y;
}

Matrix fast_weight_causal(const Matrix& q, const Matrix& k, const Matrix& v, std::vector<Matrix>* history) {
    Matrix w = matrix(cols(v), cols(k)), y = matrix(rows(q), cols(v));
    for (int t = 0; t < rows(q); ++t) {
        add_outer(w, 1.0f, row(v, t), row(k, t));
        matvec(w, row(q, t), row(y, t));
        if (history) history->push_back(w);
    }
    return y;
}

Matrix softmax_attention_causal(const Matrix& q, const Matrix& k, const Matrix& v) {
    Matrix y = matrix(rows(q), cols(v));
    const float scale = 1.0f / std::sqrt(float(cols(k)));
    std::vector<float> p(static_cast<size_t>(rows(q)));
    for (int t = 0; t < rows(q); ++t) {
        float top = -INFINITY;
        for (int i = 0; i <= t; ++i) top = std::max(top, p[i] = scale * dot(row(k, i), row(q, t), cols(k)));
        float sum = 0.0f;
        for (int i = 0; i <= t; ++i) sum += p[i] = std::exp(p[i] - top);
        for (int i = 0; i <= t; ++i)
            for (int c = 0; c < cols(v); ++c) y(t, c) += v(i, c) * (p[i] / sum);
    }
    return y;
}

Matrix outer_product_sum(const Matrix& v, const Matrix& k, int begin, int end) {
    if (end <= begin) return matrix(cols(v), cols(k));
    // Σ_i v_i ⊗ k_i = Vᵀ K over those rows: (d_v, n) · (n, d_k), summed over i in order
    const auto rows_of = [&](const Matrix& m) -> Matrix { return xt::view(m, xt::range(begin, end), xt::all()); };
    return matmul(transpose(rows_of(v)), rows_of(k));
}

}  // namespace icl

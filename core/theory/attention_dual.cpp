#include "icl/attention_dual.h"

#include <algorithm>
#include <cmath>

namespace icl {

Mat linear_attention_causal(const Mat& q, const Mat& k, const Mat& v) {
    Mat y(q.rows, v.cols);
    for (int t = 0; t < q.rows; ++t)
        for (int i = 0; i <= t; ++i) {
            const float score = dot(k.row(i), q.row(t), k.cols);
            for (int c = 0; c < v.cols; ++c) y(t, c) += v(i, c) * score;
        }
    return y;
}

Mat fast_weight_causal(const Mat& q, const Mat& k, const Mat& v, std::vector<Mat>* history) {
    Mat w(v.cols, k.cols), y(q.rows, v.cols);
    for (int t = 0; t < q.rows; ++t) {
        add_outer(w, 1.0f, v.row(t), k.row(t));
        matvec(w, q.row(t), y.row(t));
        if (history) history->push_back(w);
    }
    return y;
}

Mat softmax_attention_causal(const Mat& q, const Mat& k, const Mat& v) {
    Mat y(q.rows, v.cols);
    const float scale = 1.0f / std::sqrt(float(k.cols));
    std::vector<float> p(static_cast<size_t>(q.rows));
    for (int t = 0; t < q.rows; ++t) {
        float top = -INFINITY;
        for (int i = 0; i <= t; ++i) top = std::max(top, p[i] = scale * dot(k.row(i), q.row(t), k.cols));
        float sum = 0.0f;
        for (int i = 0; i <= t; ++i) sum += p[i] = std::exp(p[i] - top);
        for (int i = 0; i <= t; ++i)
            for (int c = 0; c < v.cols; ++c) y(t, c) += v(i, c) * (p[i] / sum);
    }
    return y;
}

Mat outer_product_sum(const Mat& v, const Mat& k, int begin, int end) {
    Mat w(v.cols, k.cols);
    for (int i = begin; i < end; ++i) add_outer(w, 1.0f, v.row(i), k.row(i));
    return w;
}

}  // namespace icl

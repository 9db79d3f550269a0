#include "icl/regression_baselines.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace icl {

namespace {

// Softmax of −sse_i / (2σ²) (a log-sum-exp shifted by the smallest sse); σ² = 0: uniform
// over the smallest.
std::vector<double> posterior_from_sse(const std::vector<double>& sse, double noise_var) {
    const double best = *std::min_element(sse.begin(), sse.end());
    std::vector<double> p(sse.size());
    double z = 0.0;
    for (size_t i = 0; i < sse.size(); ++i) {
        p[i] = noise_var > 0.0 ? std::exp(-(sse[i] - best) / (2.0 * noise_var)) : (sse[i] == best ? 1.0 : 0.0);
        z += p[i];
    }
    for (double& v : p) v /= z;
    return p;
}

std::vector<double> mix(const Matrix& pool, const std::vector<double>& p) {
    std::vector<double> w((size_t)cols(pool), 0.0);
    for (int i = 0; i < rows(pool); ++i)
        if (p[(size_t)i] != 0.0)
            for (int c = 0; c < cols(pool); ++c) w[(size_t)c] += p[(size_t)i] * pool(i, c);
    return w;
}

double dot_x(const std::vector<double>& w, const float* x) {
    double s = 0.0;
    for (size_t c = 0; c < w.size(); ++c) s += w[c] * x[c];
    return s;
}

// Adds (y_j − w(i)·x_j)² for every task i to sse.
void add_pair(const Matrix& pool, const float* x, float y, std::vector<double>& sse) {
    for (int i = 0; i < rows(pool); ++i) {
        double r = y;
        for (int c = 0; c < cols(pool); ++c) r -= double(pool(i, c)) * x[c];
        sse[(size_t)i] += r * r;
    }
}

}  // namespace

std::vector<double> dmmse_posterior(const Matrix& pool, const Matrix& x, const float* y, int k, double noise_var) {
    std::vector<double> sse((size_t)rows(pool), 0.0);
    for (int j = 0; j < k; ++j) add_pair(pool, row(x, j), y[j], sse);
    return posterior_from_sse(sse, noise_var);
}

std::vector<double> dmmse_weights(const Matrix& pool, const Matrix& x, const float* y, int k, double noise_var) {
    return mix(pool, dmmse_posterior(pool, x, y, k, noise_var));
}

std::vector<double> dmmse_predictions(const Matrix& pool, const Matrix& x, const float* y, double noise_var) {
    const int K = rows(x);
    std::vector<double> sse((size_t)rows(pool), 0.0), out((size_t)K);
    for (int k = 0; k < K; ++k) {
        out[(size_t)k] = dot_x(mix(pool, posterior_from_sse(sse, noise_var)), row(x, k));
        add_pair(pool, row(x, k), y[k], sse);
    }
    return out;
}

Expected<std::vector<double>> ridge_predictions(const Matrix& x, const float* y, double lambda) {
    const int K = rows(x), D = cols(x);
    std::vector<double> out((size_t)K, 0.0);
    for (int k = 1; k < K; ++k) {
        Matrix prefix = matrix(k, D);
        std::copy(x.data(), x.data() + (size_t)k * D, prefix.data());
        auto w = least_squares(prefix, y, lambda);
        if (!w) return w.error();
        out[(size_t)k] = dot_x(w.value(), row(x, k));
    }
    return out;
}

}  // namespace icl

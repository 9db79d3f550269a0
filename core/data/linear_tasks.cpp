#include "icl/linear_tasks.h"

#include <algorithm>
#include <cmath>

namespace icl {

namespace {
float draw_input(Rng& rng, const TaskConfig& cfg) {
    return cfg.dist == InputDist::uniform ? rng.uniform(-cfg.x_scale, cfg.x_scale) : rng.normal(0.0f, cfg.x_scale);
}
}  // namespace

RegressionTask sample_task(Rng& rng, const TaskConfig& cfg, int n_context) {
    RegressionTask t;
    t.w.resize(static_cast<size_t>(cfg.d));
    for (float& w : t.w) w = rng.normal();
    t.x = matrix(n_context, cfg.d);
    for (float& x : t.x.storage()) x = draw_input(rng, cfg);
    if (rows(cfg.x_factor) == cfg.d && cfg.d > 0) t.x = matmul(t.x, transpose(cfg.x_factor));  // rows z -> (T z)ᵀ
    if (cfg.bias_feature)
        for (int i = 0; i < n_context; ++i) t.x(i, cfg.d - 1) = 1.0f;
    t.y.resize(static_cast<size_t>(n_context));
    for (int i = 0; i < n_context; ++i) t.y[i] = dot(t.w.data(), row(t.x, i), cfg.d) + cfg.noise * rng.normal();
    t.x_query.resize(static_cast<size_t>(cfg.d));
    for (float& x : t.x_query) x = draw_input(rng, cfg);
    if (rows(cfg.x_factor) == cfg.d && cfg.d > 0) t.x_query = matvec(cfg.x_factor, t.x_query.data());
    if (cfg.bias_feature) t.x_query.back() = 1.0f;
    t.y_query = dot(t.w.data(), t.x_query.data(), cfg.d) + cfg.noise * rng.normal();
    return t;
}

Matrix spectrum_factor(const std::vector<double>& eigenvalues, bool rotate) {
    const int d = static_cast<int>(eigenvalues.size());
    double vv = 0.0;
    for (int i = 0; i < d; ++i) vv += double(i + 1) * (i + 1);
    Matrix t = matrix(d, d);
    for (int r = 0; r < d; ++r)
        for (int c = 0; c < d; ++c) {
            const double u = (r == c) - (rotate ? 2.0 * (r + 1) * (c + 1) / vv : 0.0);
            t(r, c) = static_cast<float>(u * std::sqrt(std::max(0.0, eigenvalues[c])));
        }
    return t;
}

std::vector<double> geometric_spectrum(int d, double condition) {
    std::vector<double> l(static_cast<size_t>(std::max(d, 0)), 1.0);
    for (int i = 1; i < d; ++i) l[i] = std::pow(condition, -double(i) / (d - 1));
    return l;
}

std::vector<RegressionTask> sample_tasks(Rng& rng, const TaskConfig& cfg, int n_context, int count) {
    std::vector<RegressionTask> tasks;
    tasks.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) tasks.push_back(sample_task(rng, cfg, n_context));
    return tasks;
}

float gd_one_step_prediction(const RegressionTask& task, float eta) {
    const int n = rows(task.x), d = cols(task.x);
    if (n == 0) return 0.0f;
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += task.y[i] * dot(row(task.x, i), task.x_query.data(), d);
    return eta / float(n) * s;
}

std::vector<float> gd_weights(const RegressionTask& task, float eta, int steps) {
    const int n = rows(task.x), d = cols(task.x);
    std::vector<float> w(static_cast<size_t>(d), 0.0f), grad(static_cast<size_t>(d));
    if (n == 0) return w;
    for (int s = 0; s < steps; ++s) {
        std::fill(grad.begin(), grad.end(), 0.0f);
        for (int i = 0; i < n; ++i) {
            const float r = dot(w.data(), row(task.x, i), d) - task.y[i];  // residual
            for (int c = 0; c < d; ++c) grad[c] += r * task.x(i, c);
        }
        for (int c = 0; c < d; ++c) w[c] -= eta / float(n) * grad[c];
    }
    return w;
}

}  // namespace icl

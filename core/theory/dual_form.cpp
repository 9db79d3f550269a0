#include "icl/dual_form.h"

#include <cmath>
#include <optional>

#include "icl/optim.h"

namespace icl {

LinearLayerRun train_linear_layer(const Matrix& w0, const Matrix& x, const Matrix& y, const LinearTrainConfig& cfg) {
    const int n = rows(x), d_in = cols(x), d_out = cols(y);
    const int steps = n * cfg.epochs;
    LinearLayerRun run{w0, w0, matrix(steps, d_in), matrix(steps, d_out), {}};
    std::optional<Optimizer> adam;
    if (cfg.optimizer.kind == OptimizerConfig::adamw) {
        const size_t size = run.w.size();
        adam.emplace(cfg.optimizer, std::vector<ParamSlot>{ParamSlot{"w", 0, size, false, true}}, size);
    }
    Matrix grad_w = matrix(d_out, d_in);
    std::vector<float> grad_y(static_cast<size_t>(d_out));
    int t = 0;
    for (int epoch = 0; epoch < cfg.epochs; ++epoch) {
        for (int i = 0; i < n; ++i, ++t) {
            const float* xi = row(x, i);
            matvec(run.w, xi, grad_y.data());
            for (int o = 0; o < d_out; ++o) grad_y[o] -= y(i, o);  // ∇_y ½||Wx − y||² = Wx − y
            for (int c = 0; c < d_in; ++c) run.keys(t, c) = xi[c];
            for (int o = 0; o < d_out; ++o) run.values(t, o) = -cfg.optimizer.lr * grad_y[o];
            if (!adam) {
                add_outer(run.w, 1.0f, row(run.values, t), xi);  // W += e_t ⊗ x_t
                continue;
            }
            // Adam on ∇_W L = ∇_y L ⊗ x_t
            for (int o = 0; o < d_out; ++o)
                for (int c = 0; c < d_in; ++c) grad_w(o, c) = grad_y[o] * xi[c];
            if (!adam->step(run.w.data(), grad_w.data())) return run;
        }
        float loss = 0.0f;
        for (int i = 0; i < n; ++i) {
            matvec(run.w, row(x, i), grad_y.data());
            for (int o = 0; o < d_out; ++o) loss += 0.5f * (grad_y[o] - y(i, o)) * (grad_y[o] - y(i, o));
        }
        run.epoch_loss.push_back(loss / float(n));
    }
    return run;
}

std::vector<float> primal_output(const LinearLayerRun& run, const float* x) { return matvec(run.w, x); }

std::vector<float> dual_output(const LinearLayerRun& run, const float* x) {
    std::vector<float> out = matvec(run.w0, x);
    const std::vector<float> scores = attention_scores(run, x);
    for (int t = 0; t < rows(run.keys); ++t)
        for (int o = 0; o < cols(run.values); ++o) out[o] += run.values(t, o) * scores[t];
    return out;
}

std::vector<float> attention_scores(const LinearLayerRun& run, const float* x) {
    std::vector<float> s(static_cast<size_t>(rows(run.keys)));
    for (int t = 0; t < rows(run.keys); ++t) s[t] = dot(row(run.keys, t), x, cols(run.keys));
    return s;
}

}  // namespace icl

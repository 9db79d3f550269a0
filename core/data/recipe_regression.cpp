// The regression data of a checkpoint recipe (icl/recipe.h, data "regression"): batches
// in Garg et al.'s vector encoding of icl/task_pool.h with fresh tasks, the model that
// reads them, and the figures recorded for a trained one.
#include <cmath>
#include <string>

#include "icl/linalg.h"
#include "icl/recipe.h"

namespace icl::recipe {

std::vector<task_pool::Sequence> regression_batch(const RegressionSpec& spec, int count, uint64_t seed,
                                                  std::vector<float>& vectors, std::vector<float>& targets,
                                                  std::vector<uint8_t>& mask) {
    const task_pool::Knobs k = spec.knobs();
    std::vector<task_pool::Sequence> seqs = task_pool::sample(k, matrix(0, spec.dim), task_pool::Source::fresh, count, seed);
    const int K = spec.pairs, T = 2 * K, D = spec.dim;
    vectors.assign((size_t)count * T * (D + 1), 0.0f);
    targets.assign((size_t)count * T, 0.0f);
    mask.assign((size_t)count * T, 0);
    for (int b = 0; b < count; ++b) {
        const Matrix v = task_pool::vectors(seqs[(size_t)b]);
        std::copy(v.storage().begin(), v.storage().end(), vectors.begin() + (size_t)b * T * (D + 1));
        for (int i = 0; i < K; ++i) {
            targets[(size_t)b * T + 2 * i] = seqs[(size_t)b].y[(size_t)i];
            mask[(size_t)b * T + 2 * i] = 1;
        }
    }
    return seqs;
}

gpt::Config regression_config(const RegressionSpec& spec, gpt::Config c) {
    c.token_input = false;
    c.token_output = false;
    c.input_dim = spec.dim + 1;
    c.output_dim = 1;
    c.context = 2 * spec.pairs;
    c.vocab = 2;  // unread: no token input or softmax head
    return c;
}

Expected<std::map<std::string, double>> evaluate_regression(const Recipe& r, const gpt::Model& model) {
    const RegressionSpec& spec = r.regression;
    std::vector<float> vectors, targets;
    std::vector<uint8_t> mask;
    const std::vector<task_pool::Sequence> seqs =
        regression_batch(spec, r.eval_sequences, r.eval_seed, vectors, targets, mask);
    const int T = 2 * spec.pairs, n = r.eval_sequences;
    gpt::Activations acts;
    if (Status s = gpt::forward(model, acts, vectors.data(), n, T); !s) return s.error();
    std::map<std::string, double> out;
    for (int k : {0, 1, spec.dim, spec.pairs - 1}) {
        if (k >= spec.pairs) continue;
        double mse = 0, ols = 0;
        for (int i = 0; i < n; ++i) {
            const task_pool::Sequence& s = seqs[(size_t)i];
            const double y = s.y[(size_t)k], f = acts.predictions()[(size_t)i * T + 2 * k];
            mse += (f - y) * (f - y) / n;
            double pred = 0;
            if (k > 0) {
                Matrix x = matrix(k, spec.dim);
                for (int a = 0; a < k; ++a)
                    for (int c = 0; c < spec.dim; ++c) x(a, c) = s.x(a, c);
                auto w = least_squares(x, s.y.data(), 0.0);
                if (!w) return w.error();
                for (int c = 0; c < spec.dim; ++c) pred += w.value()[(size_t)c] * s.x(k, c);
            }
            ols += (pred - y) * (pred - y) / n;
        }
        out["mse.k" + std::to_string(k)] = mse;
        out["ols.k" + std::to_string(k)] = ols;
    }
    return out;
}

}  // namespace icl::recipe

#include "icl/lsa.h"

#include <algorithm>
#include <cmath>
#include <xtensor/xview.hpp>

namespace icl {

namespace {

// C = Σ_{i<n} e_i ⊗ e_i = EᵀE over the context rows, the context tokens' Gram matrix.
// tokens: rows × D -> D × D
Matrix context_gram(const Matrix& tokens, int n_context) {
    if (n_context <= 0) return matrix(cols(tokens), cols(tokens));
    const Matrix context = xt::view(tokens, xt::range(0, n_context), xt::all());
    return matmul(transpose(context), context);
}

void add_into(Matrix& a, const Matrix& b) {
    for (size_t i = 0; i < a.size(); ++i) a.storage()[i] += b.storage()[i];
}

}  // namespace

LsaLayer combine(const LsaWeights& w) { return {matmul(transpose(w.w_k), w.w_q), matmul(w.p, w.w_v)}; }

LsaWeights gd_construction(int d, float eta, int n_context) {
    const int dim = d + 1;
    LsaWeights w{matrix(dim, dim), matrix(dim, dim), matrix(dim, dim), identity(dim)};
    for (int i = 0; i < d; ++i) w.w_k(i, i) = w.w_q(i, i) = 1.0f;  // [[I_x, 0], [0, 0]]
    w.w_v(d, d) = -1.0f;                                             // [[0, 0], [W0 = 0, −I_y]]
    const float scale = n_context > 0 ? eta / float(n_context) : 0.0f;
    for (float& p : w.p.storage()) p *= scale;                               // P = (η/n) I
    return w;
}

Matrix regression_tokens(const RegressionTask& task) {
    const int n = rows(task.x), d = cols(task.x);
    Matrix e = matrix(n + 1, d + 1);
    for (int i = 0; i < n; ++i) {
        for (int c = 0; c < d; ++c) e(i, c) = task.x(i, c);
        e(i, d) = task.y[i];
    }
    for (int c = 0; c < d; ++c) e(n, c) = task.x_query[c];
    return e;
}

// Row form of one layer: E' = E + E M with M = W_KQᵀ C W_PVᵀ (so e_j' = e_j + W_PV C W_KQ e_j).
LsaForward lsa_forward(const LsaModel& model, const Matrix& tokens, int n_context) {
    LsaForward f;
    Matrix e = tokens;
    for (const LsaLayer& layer : model) {
        f.layer_inputs.push_back(e);
        const Matrix c = context_gram(e, n_context);
        const Matrix m = matmul(matmul(transpose(layer.w_kq), c), transpose(layer.w_pv));
        add_into(e, matmul(e, m));
    }
    f.output = std::move(e);
    return f;
}

float lsa_prediction(const Matrix& output) { return -output(rows(output) - 1, cols(output) - 1); }

float lsa_predict(const LsaModel& model, const RegressionTask& task) {
    return lsa_prediction(lsa_forward(model, regression_tokens(task), rows(task.x)).output);
}

Matrix lsa_backward(const LsaModel& model, const LsaForward& fwd, int n_context, float d_pred, LsaModel& grads) {
    Matrix g = matrix(rows(fwd.output), cols(fwd.output));  // ∂loss/∂(tokens after the current layer)
    g(rows(g) - 1, cols(g) - 1) = -d_pred;
    for (int l = static_cast<int>(model.size()) - 1; l >= 0; --l) {
        const LsaLayer& layer = model[l];
        const Matrix& e = fwd.layer_inputs[l];
        const Matrix c = context_gram(e, n_context);
        const Matrix kq_t = transpose(layer.w_kq), pv_t = transpose(layer.w_pv);
        const Matrix m = matmul(matmul(kq_t, c), pv_t);
        // E' = E + E M
        const Matrix dm = matmul(transpose(e), g);
        Matrix de = g;
        add_into(de, matmul(g, transpose(m)));
        // M = W_KQᵀ C W_PVᵀ, C symmetric
        add_into(grads[l].w_kq, matmul(matmul(c, pv_t), transpose(dm)));
        add_into(grads[l].w_pv, matmul(matmul(transpose(dm), kq_t), c));
        Matrix dc = matmul(matmul(layer.w_kq, dm), layer.w_pv);
        add_into(dc, transpose(dc));  // C = Σ e_i ⊗ e_i: ∂/∂e_i = (dC + dCᵀ) e_i
        for (int i = 0; i < n_context; ++i) {
            const std::vector<float> back = matvec(dc, row(e, i));
            for (int k = 0; k < cols(e); ++k) de(i, k) += back[k];
        }
        g = std::move(de);
    }
    return g;
}

std::vector<float> lsa_query_sensitivity(const LsaModel& model, const RegressionTask& task) {
    const int n = rows(task.x), d = cols(task.x);
    const LsaForward fwd = lsa_forward(model, regression_tokens(task), n);
    LsaModel scratch = model;
    for (LsaLayer& l : scratch) {
        std::fill(l.w_kq.storage().begin(), l.w_kq.storage().end(), 0.0f);
        std::fill(l.w_pv.storage().begin(), l.w_pv.storage().end(), 0.0f);
    }
    const Matrix dtokens = lsa_backward(model, fwd, n, 1.0f, scratch);
    return std::vector<float>(row(dtokens, n), row(dtokens, n) + d);
}

double lsa_mean_loss(const LsaModel& model, const std::vector<RegressionTask>& tasks) {
    double sum = 0.0;
    for (const auto& t : tasks) {
        const double r = double(lsa_predict(model, t)) - t.y_query;
        sum += 0.5 * r * r;
    }
    return tasks.empty() ? 0.0 : sum / double(tasks.size());
}

namespace {

// Adam (AdamW with no decay) over the layers' W_KQ and W_PV, one buffer of 2·layers·D² floats.
Optimizer lsa_adam(const LsaTrainConfig& cfg) {
    OptimizerConfig o;
    o.lr = cfg.lr;
    const size_t dim = (size_t)cfg.task.d + 1, total = 2 * (size_t)cfg.layers * dim * dim;
    return Optimizer(o, {ParamSlot{"lsa", 0, total, false, true}}, total);
}

// Copies every layer's W_KQ then W_PV into flat (gather) or back out of it (scatter).
void gather(const LsaModel& m, std::vector<float>& flat) {
    flat.clear();
    for (const LsaLayer& l : m) {
        flat.insert(flat.end(), l.w_kq.begin(), l.w_kq.end());
        flat.insert(flat.end(), l.w_pv.begin(), l.w_pv.end());
    }
}
void scatter(const std::vector<float>& flat, LsaModel& m) {
    auto it = flat.begin();
    for (LsaLayer& l : m)
        for (Matrix* w : {&l.w_kq, &l.w_pv}) {
            std::copy(it, it + (long)w->size(), w->begin());
            it += (long)w->size();
        }
}

// Zeroes the entries outside Ahn et al.'s form (see LsaTrainConfig::ahn_form).
void keep_ahn_form(LsaModel& m) {
    for (LsaLayer& l : m) {
        const int y = rows(l.w_kq) - 1;
        for (int r = 0; r <= y; ++r)
            for (int c = 0; c <= y; ++c) {
                if (r == y || c == y) l.w_kq(r, c) = 0.0f;
                if (r != y || c != y) l.w_pv(r, c) = 0.0f;
            }
    }
}

}  // namespace

LsaTrainer::LsaTrainer(const LsaTrainConfig& cfg, uint64_t seed) : cfg_(cfg), rng_(seed), adam_(lsa_adam(cfg)) {
    const int dim = cfg.task.d + 1;
    for (int l = 0; l < cfg.layers; ++l) {
        LsaLayer layer{matrix(dim, dim), matrix(dim, dim)};
        for (float& w : layer.w_kq.storage()) w = rng_.normal(0.0f, cfg.init_std);
        for (float& w : layer.w_pv.storage()) w = rng_.normal(0.0f, cfg.init_std);
        model_.push_back(std::move(layer));
    }
    if (cfg.ahn_form) keep_ahn_form(model_);
}

double LsaTrainer::step() {
    LsaModel grads = model_;
    for (LsaLayer& l : grads) {
        std::fill(l.w_kq.storage().begin(), l.w_kq.storage().end(), 0.0f);
        std::fill(l.w_pv.storage().begin(), l.w_pv.storage().end(), 0.0f);
    }
    double loss = 0.0;
    for (int b = 0; b < cfg_.batch; ++b) {
        const int n = cfg_.n_min + static_cast<int>(rng_.below(static_cast<uint32_t>(cfg_.n_max - cfg_.n_min + 1)));
        const RegressionTask task = sample_task(rng_, cfg_.task, n);
        const LsaForward fwd = lsa_forward(model_, regression_tokens(task), n);
        const float r = lsa_prediction(fwd.output) - task.y_query;
        loss += 0.5 * double(r) * r;
        lsa_backward(model_, fwd, n, r / float(cfg_.batch), grads);  // ∂(mean ½ r²)/∂ŷ
    }
    loss /= cfg_.batch;
    if (!std::isfinite(loss)) return loss;
    if (cfg_.ahn_form) keep_ahn_form(grads);  // Adam leaves an entry with zero gradients where it is
    gather(model_, params_);
    gather(grads, grads_);
    if (!adam_.step(params_.data(), grads_.data())) return std::nan("");  // a non-finite gradient: no step
    scatter(params_, model_);
    if (cfg_.ahn_form) keep_ahn_form(model_);
    return loss;
}

}  // namespace icl

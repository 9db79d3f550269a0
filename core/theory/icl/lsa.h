// Linear self-attention (LSA) on in-context regression tokens (von Oswald et al. 2023).
//
// Tokens: context e_j = (x_j, y_j) for j < n, then the query (x_q, 0); D = d + 1.
// One layer updates every token j with keys and values from the context tokens only:
//     e_j ← e_j + P W_V Σ_{i<n} (e_i ⊗ e_i) W_Kᵀ W_Q e_j
// (no softmax, no LayerNorm, no bias, no MLP, one head). The prediction is
// ŷ = −(y entry of the query token after the last layer).
//
// Only the products W_KQ = W_Kᵀ W_Q and W_PV = P W_V enter, so a layer is stored, and
// trained, as that pair. With W_K = W_Q = [[I_x, 0], [0, 0]], W_V = [[0, 0], [W0, −I_y]]
// (W0 = 0) and P = (η/n) I, one layer computes one GD step on L(W) = (1/2n) Σ ||W x_i − y_i||²
// and leaves e_j = (x_j, y_j − ΔW x_j); K such layers compute K GD steps.
#pragma once
#include <cstdint>
#include <vector>

#include "icl/linalg.h"
#include "icl/linear_tasks.h"
#include "icl/optim.h"
#include "icl/rng.h"

namespace icl {

// The four matrices of one LSA layer, each D × D.
struct LsaWeights {
    Matrix w_k, w_q, w_v, p;
};

// One layer as the products that act: W_KQ = W_Kᵀ W_Q and W_PV = P W_V, each D × D.
struct LsaLayer {
    Matrix w_kq, w_pv;
};
using LsaModel = std::vector<LsaLayer>;  // layers, applied in order

LsaLayer combine(const LsaWeights& w);
// von Oswald et al.'s construction of one GD step (step size eta, n context points,
// W0 = 0) for inputs of size d and scalar targets.
LsaWeights gd_construction(int d, float eta, int n_context);

// The tokens of a task: (n + 1) × (d + 1), context rows then the query row (x_q, 0).
Matrix regression_tokens(const RegressionTask& task);

struct LsaForward {
    std::vector<Matrix> layer_inputs;  // tokens entering each layer, (n + 1) × D
    Matrix output;                     // tokens after the last layer
};
// tokens: (n + 1) × D, the first n_context rows give keys and values.
LsaForward lsa_forward(const LsaModel& model, const Matrix& tokens, int n_context);
// ŷ = −(y entry of the query token), the last entry of the last row.
float lsa_prediction(const Matrix& output);
float lsa_predict(const LsaModel& model, const RegressionTask& task);

// Backward of a scalar loss through ŷ, given d_pred = ∂loss/∂ŷ: ADDS ∂loss/∂(W_KQ, W_PV)
// of every layer into grads (same shapes as model) and returns ∂loss/∂tokens,
// (n + 1) × D.
Matrix lsa_backward(const LsaModel& model, const LsaForward& fwd, int n_context, float d_pred, LsaModel& grads);

// ∂ŷ/∂x_q, the model's sensitivity to the query input (analytic, by lsa_backward). -> d
std::vector<float> lsa_query_sensitivity(const LsaModel& model, const RegressionTask& task);

// Mean ½(ŷ − y_q)² over tasks.
double lsa_mean_loss(const LsaModel& model, const std::vector<RegressionTask>& tasks);

// Training on fresh random tasks, one Adam step per call to step().
struct LsaTrainConfig {
    TaskConfig task;
    int n_min = 10, n_max = 10;  // context size of each training task, uniform in [n_min, n_max]
    int layers = 1;
    int batch = 128;
    float lr = 1e-3f;
    float init_std = 0.05f;      // initial W_KQ, W_PV entries ~ N(0, init_std²)
    // Only the entries of Ahn et al. 2023's one-layer form: W_KQ's x-block and W_PV's (y, y)
    // entry (the rest start and stay at 0), which leaves the layer one route from the
    // targets to the prediction, x_qᵀ (s Bᵀ) Xᵀy.
    bool ahn_form = false;
};

class LsaTrainer {
public:
    LsaTrainer(const LsaTrainConfig& cfg, uint64_t seed);
    // One Adam step on a fresh batch; returns the batch's mean ½(ŷ − y)² before the
    // step (non-finite if training diverged; the model is then left unchanged).
    double step();
    const LsaModel& model() const { return model_; }
    int steps() const { return adam_.steps(); }

private:
    LsaTrainConfig cfg_;
    Rng rng_;
    LsaModel model_;
    Optimizer adam_;                   // AdamW without decay over params_
    std::vector<float> params_, grads_;  // every layer's W_KQ, W_PV side by side, as adam_ sees them
};

}  // namespace icl

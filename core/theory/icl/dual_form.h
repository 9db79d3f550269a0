// The dual form of a linear layer trained by gradient descent (Irie, Csordás,
// Schmidhuber 2022). A layer y = W x trained by SGD on the loss L = ½||W x − y||²
// ends at W = W0 + Σ_t e_t ⊗ x_t with e_t = −η ∇_y L_t (the error signal of update t),
// so for any input x
//     W x = W0 x + Σ_t e_t (x_t · x),
// which is unnormalized dot attention: keys are the training inputs x_t, values the
// error signals e_t, the query is x. The identity is exact for SGD; Adam's update is
// not a sum of outer products e_t ⊗ x_t, so it breaks there.
#pragma once
#include <vector>

#include "icl/linalg.h"
#include "icl/optim.h"

namespace icl {

// Plain SGD at rate lr, the optimizer whose dual form is exact.
inline OptimizerConfig plain_sgd(float lr) {
    OptimizerConfig o;
    o.kind = OptimizerConfig::sgd;
    o.lr = lr;
    o.momentum = 0.0f;
    return o;
}

struct LinearTrainConfig {
    // kind sgd: plain SGD at optimizer.lr (momentum, weight decay and clipping unused);
    // kind adamw: the Optimizer of icl/optim.h as configured (Adam when weight_decay is 0).
    OptimizerConfig optimizer = plain_sgd(0.1f);
    int epochs = 1;
};

struct LinearLayerRun {
    Matrix w0, w;      // d_out × d_in: before and after training
    Matrix keys;       // T × d_in: x_t, the input of update t
    Matrix values;     // T × d_out: e_t = −η ∇_y L_t at update t (as SGD would apply it)
    std::vector<float> epoch_loss;  // mean ½||W x − y||² over the training set after each epoch
};

// Trains W from w0 on pairs (x: n × d_in, y: n × d_out), one example per update, in
// order, for cfg.epochs passes (T = n · epochs updates), recording x_t and e_t. A
// non-finite Adam gradient stops the training there (fewer epoch losses).
LinearLayerRun train_linear_layer(const Matrix& w0, const Matrix& x, const Matrix& y, const LinearTrainConfig& cfg);

// Primal: W x. x: d_in -> d_out
std::vector<float> primal_output(const LinearLayerRun& run, const float* x);
// Dual: W0 x + Σ_t values_t (keys_t · x). x: d_in -> d_out
std::vector<float> dual_output(const LinearLayerRun& run, const float* x);
// Attention scores keys_t · x, one per update. x: d_in -> T
std::vector<float> attention_scores(const LinearLayerRun& run, const float* x);

}  // namespace icl

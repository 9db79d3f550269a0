// The two Bayes-optimal predictors of in-context linear regression with a pool of
// pretraining tasks (Raventós et al. 2023; data in icl/task_pool.h), in closed form.
//
// dMMSE, optimal when w is uniform over the pool's M tasks: after the pairs j < k,
//     ŵ_k = Σ_i softmax_i(−(1/2σ²) Σ_{j<k} (y_j − w(i)·x_j)²) w(i),
// with ŵ_0 the pool's mean. Ridge, optimal when w ~ N(0, I): ŵ_k = (X_kᵀX_k + σ² I)⁻¹ X_kᵀ y_k
// over the same pairs, ŵ_0 = 0. Either predicts y_k as ŵ_k · x_k.
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/linalg.h"

namespace icl {

// The posterior over the pool's tasks (rows of pool, M × D) after the first k pairs
// (rows of x, entries of y). noise_var = 0: uniform over the tasks that fit those pairs
// best (the limit σ² → 0). -> M
std::vector<double> dmmse_posterior(const Matrix& pool, const Matrix& x, const float* y, int k, double noise_var);
// Σ_i posterior_i w(i). -> D
std::vector<double> dmmse_weights(const Matrix& pool, const Matrix& x, const float* y, int k, double noise_var);
// ŷ_k = ŵ_k · x_k for k = 0 .. K−1, ŵ_k from the pairs before k. -> K
std::vector<double> dmmse_predictions(const Matrix& pool, const Matrix& x, const float* y, double noise_var);

// The same for ridge with parameter lambda (λ = σ² for the Gaussian prior N(0, I);
// lambda = 0: the minimum-norm least-squares fit, icl/linalg.h least_squares). -> K
Expected<std::vector<double>> ridge_predictions(const Matrix& x, const float* y, double lambda);

}  // namespace icl

// Random linear-regression tasks for in-context learning (Garg et al. 2022; von Oswald
// et al. 2023): a task is a weight vector w ~ N(0, I), n context pairs (x_i, y_i = w·x_i
// + noise) and one query (x_q, y_q).
#pragma once
#include <vector>

#include "icl/linalg.h"
#include "icl/rng.h"

namespace icl {

enum class InputDist {
    uniform,  // x ~ U(−scale, scale)^d  (von Oswald et al.'s notebook: scale 0.5)
    normal,   // x ~ N(0, scale² I)       (Garg et al.: scale 1)
};

struct TaskConfig {
    int d = 10;
    InputDist dist = InputDist::uniform;
    float x_scale = 0.5f;
    float noise = 0.0f;  // std of the noise on every y (context and query)
    bool bias_feature = false;  // the last input entry is always 1 (its weight is a bias ~ N(0, 1))
    // Empty, or a d × d factor T: every input is T z with z drawn as above, so normal inputs
    // have covariance x_scale² T Tᵀ (Ahn et al. 2023's non-isotropic Σ). Not with bias_feature.
    Matrix x_factor;
};

// A factor T = U diag(√λ) with T Tᵀ = Σ = U diag(λ) Uᵀ for the given eigenvalues (each ≥ 0):
// U = I (axis-aligned), or with rotate the reflection U = I − 2 v vᵀ / |v|², v = (1, 2, …, d),
// which mixes every axis with every other.
Matrix spectrum_factor(const std::vector<double>& eigenvalues, bool rotate);
// d eigenvalues from 1 down to 1 / condition, evenly spaced on a log scale (d = 1: {1}).
std::vector<double> geometric_spectrum(int d, double condition);

struct RegressionTask {
    std::vector<float> w;        // d
    Matrix x;                       // n × d, context inputs
    std::vector<float> y;        // n, context targets
    std::vector<float> x_query;  // d
    float y_query = 0.0f;
};

RegressionTask sample_task(Rng& rng, const TaskConfig& cfg, int n_context);
std::vector<RegressionTask> sample_tasks(Rng& rng, const TaskConfig& cfg, int n_context, int count);

// One step of gradient descent from W0 = 0 on L(w) = (1/2n) Σ (w·x_i − y_i)², step size eta,
// evaluated at the query: (eta/n) Σ_i y_i (x_i · x_q). 0 when n = 0.
float gd_one_step_prediction(const RegressionTask& task, float eta);
// `steps` steps of the same GD; returns the weights after them (d).
std::vector<float> gd_weights(const RegressionTask& task, float eta, int steps);

}  // namespace icl

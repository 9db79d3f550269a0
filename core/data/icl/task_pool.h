// In-context linear regression with a finite pool of pretraining tasks (Raventós, Paul,
// Chen, Ganguli 2023), as pure functions of the knobs and a seed.
//
// The pool: M task vectors w(1..M) drawn once from N(0, I_D) by a seed. A sequence picks
// one task uniformly from the pool (or, for the "true" prior, draws w ~ N(0, I_D) afresh),
// then K pairs x_k ~ N(0, I_D), y_k = w·x_k + ε_k with ε_k ~ N(0, σ²). The model predicts
// every y_k from the pairs before it and x_k. The paper's defaults: D = 8, K = 16, σ² = 0.25.
// The Bayes-optimal predictions for the pool's prior (dMMSE) and for the Gaussian prior
// (ridge with λ = σ²) are in icl/regression_baselines.h.
#pragma once
#include <cstdint>
#include <vector>

#include "icl/expected.h"
#include "icl/linalg.h"

namespace icl::task_pool {

struct Knobs {
    int dim = 8;              // D
    int context = 16;         // K pairs per sequence
    double noise_var = 0.25;  // σ²
    int tasks = 64;           // M, the pool's size
};
// Names the first knob out of range.
Status validate(const Knobs& k);

// The pool, M × D: row i is w(i), entries N(0, 1). The same seed gives the same pool, and
// the pool for M is the first M rows of the pool for any larger M (a task-diversity sweep
// adds tasks, it does not redraw them).
Expected<Matrix> make_pool(const Knobs& k, uint64_t seed);

enum class Source { pool, fresh };  // tasks from the pool, or w ~ N(0, I) afresh

struct Sequence {
    int task = -1;         // row of the pool, or −1 for a fresh task
    std::vector<float> w;  // D
    Matrix x;              // K × D
    std::vector<float> y;  // K
};
// `count` sequences; pool is make_pool's (unused for Source::fresh).
std::vector<Sequence> sample(const Knobs& k, const Matrix& pool, Source source, int count, uint64_t seed);

// The vector form: 2K positions of D + 1, x_k as (x_k, 0) then y_k as (0, ..., 0, y_k);
// the prediction of y_k is read at x_k's position. 2K × (D + 1).
Matrix vectors(const Sequence& s);

}  // namespace icl::task_pool

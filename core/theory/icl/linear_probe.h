// Linear probes (Akyürek et al. 2023; Fu et al. 2024): a ridge regression, with an
// intercept that is not penalised, of a target (say w_OLS, or Xᵀy) from a layer's
// activations, in closed form, and its R².
//
// Fit on N rows of features F (N × p) and targets T (N × t): with F̄, T̄ the column means,
//     W = ((F − F̄)ᵀ(F − F̄) + λ I)⁻¹ (F − F̄)ᵀ(T − T̄),   b = T̄ − F̄ W,
// and the prediction of a row f is f W + b. R² on a set of rows is
//     1 − Σ (T − T̂)² / Σ (T − mean T)²,
// per target column and pooled over the columns (sums over all of them), the mean taken
// over the rows scored.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "icl/expected.h"
#include "icl/linalg.h"
#include "icl/metrics.h"

namespace icl {

struct LinearProbe {
    Matrix weights;            // p × t
    std::vector<double> bias;  // t
    double lambda = 0.0;
};

// Errors: rows differ, fewer than two rows, a non-finite entry or lambda, or (λ = 0)
// features that leave the system singular.
Expected<LinearProbe> fit_linear_probe(const Matrix& features, const Matrix& targets, double lambda);
// N × p -> N × t
Matrix probe_predict(const LinearProbe& probe, const Matrix& features);

struct ProbeScore {
    double r2 = 0.0;                   // pooled over the target columns
    std::vector<double> r2_per_target;  // NaN for a column constant over the rows
};
// Errors: shapes that do not match the probe, fewer than two rows.
Expected<ProbeScore> probe_r2(const LinearProbe& probe, const Matrix& features, const Matrix& targets);

// Held-out scores over `splits` random splits of the rows (shuffled by Rng(seed, 100 + s)):
// a probe fitted on the first 3/4 of the shuffled rows, scored on the rest; the spread is
// over the splits.
struct ProbeSplits {
    metrics::MeanSd r2{NAN, NAN};   // held-out R², the mean over the target columns
    metrics::MeanSd mse{NAN, NAN};  // held-out squared error, the mean over rows and columns
};
// Errors: those of fitting and scoring, or fewer than 8 rows (each part needs two).
Expected<ProbeSplits> probe_over_splits(const Matrix& features, const Matrix& targets, double lambda, int splits,
                                        uint64_t seed);

}  // namespace icl

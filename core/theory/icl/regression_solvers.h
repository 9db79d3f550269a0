// The algorithms a trained transformer is compared with on in-context linear regression,
// each on the n context pairs (rows of x, n × d; targets y) of one prompt, in double:
//
//  least squares    icl/linalg.h least_squares (λ = 0: the minimum-norm fit X⁺y; λ > 0: ridge).
//  gradient descent on L(w) = (1/2n) |X w − y|² from w = 0 (Akyürek et al. 2023; von
//                   Oswald et al. 2023), plain (step η) or preconditioned (w ← w − P ∇L).
//  Iterative Newton (Fu et al. 2024): the Newton–Schulz iteration for the (pseudo-)inverse
//                   of S = XᵀX, M_0 = α S, M_{k+1} = M_k (2I − S M_k), and w_k = M_k Xᵀ y.
//                   I − S M_{k+1} = (I − S M_k)², so the error squares each iteration once
//                   α < 2 / λ_max(S)²; α = 1 / |S Sᵀ|_F (the authors' code) is inside.
//  Ahn et al. 2023: for x ~ N(0, Σ), w ~ N(0, I), y = w·x + N(0, σ²), the best single
//                   linear-attention layer predicts x_qᵀ A (1/n) Xᵀ y, one preconditioned GD
//                   step from 0, with A = Γ⁻¹, Γ = ((n+1)/n) Σ + (tr Σ / n) I (+ (σ²/n) I with
//                   noise: the same derivation, E[g gᵀ] = Σ Γ for g = (1/n) Xᵀ y).
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/linalg.h"

namespace icl {

using Weights = std::vector<double>;

// The largest eigenvalue of Ŝ = XᵀX / n (x n × d; Ŝ positive semidefinite) after
// `iterations` steps of power iteration from the all-ones vector; 0 when Ŝ v vanishes.
double gram_largest_eigenvalue(const Matrix& x, int iterations);

// The weights after each of 0..steps steps of w ← w − η ∇L(w), from w_0 = 0. -> steps + 1 of d
std::vector<Weights> gd_path(const Matrix& x, const float* y, double eta, int steps);
// The same with w ← w − P ∇L(w), P d × d.
std::vector<Weights> preconditioned_gd_path(const Matrix& x, const float* y, const Matrix& p, int steps);

// Newton–Schulz iterates M_0 .. M_iterations for a symmetric s (n × n, row-major doubles);
// alpha <= 0: 1 / |s sᵀ|_F. Each iterate n × n, row-major.
std::vector<std::vector<double>> newton_schulz(const std::vector<double>& s, int n, int iterations, double alpha = 0.0);
// w_k = M_k Xᵀ y for k = 0..iterations (M_k the iterates for S = XᵀX). -> iterations + 1 of d
std::vector<Weights> iterative_newton_path(const Matrix& x, const float* y, int iterations);

// Ahn et al.'s optimal preconditioner Γ⁻¹ for input covariance sigma (d × d, symmetric
// positive definite), n context pairs and label noise noise_var. Error if sigma is not
// square, n < 1, or Γ is singular.
Expected<Matrix> ahn_preconditioner(const Matrix& sigma, int n, double noise_var = 0.0);
// The expected squared error E[(x_qᵀ A g − w·x_q)²] of the prediction x_qᵀ A g, g = (1/n) Xᵀ y,
// over prompts of that distribution (the query's own noise left out):
// tr(Σ A Σ Γ Aᵀ) − 2 tr(Σ A Σ) + tr Σ. Smallest at A = Γ⁻¹.
double preconditioner_loss(const Matrix& sigma, int n, const Matrix& a, double noise_var = 0.0);
// The best plain step, A = η I: η* = tr(Σ²) / tr(Σ² Γ).
double best_gd_step(const Matrix& sigma, int n, double noise_var = 0.0);

}  // namespace icl

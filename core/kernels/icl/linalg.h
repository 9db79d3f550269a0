// The core's matrix type and the small dense linear algebra of the lesson-sized demos
// (d ≈ 10, N ≈ 10..64).
//
// Matrix is an xtensor (rows × cols, row-major, over a std::vector): the one owning array type the
// core hands out at its API — the demos' matrices, the dual-form, linear-attention and LSA code;
// the GPT's probes (gpt_probe.h) hand out xtensor views of the activations instead, which a Matrix
// copies — so xtensor's expressions and views work on anything the core returns. Inside the core,
// theory code writes a formula as an xtensor expression where that reads better than its loop
// (ΔW_ICL = Σ_i v_i ⊗ k_i as a masked sum of broadcast outer products, or Vᵀ K by matmul below);
// other loops index with operator() or walk row(m, i); and the GPT's hot kernels (kernels.h) take
// raw pointers with xsimd batches instead: their buffers are slices of one arena, the SIMD loops
// need plain contiguous pointers, and an xtensor per activation would allocate and check shapes
// inside the training step. The products here are plain loops: at these sizes clarity beats the
// SIMD kernels, and nothing here depends on them. Linear solvers work in double.
#pragma once
#include <cstddef>
#include <vector>
#include <xtensor/xtensor.hpp>

#include "icl/expected.h"
#include "icl/rng.h"

namespace icl {

// rows × cols, row-major, contiguous; storage() is the std::vector of rows·cols floats.
using Matrix = xt::xtensor_container<std::vector<float>, 2, xt::layout_type::row_major>;

// A rows × cols matrix filled with `fill`.
inline Matrix matrix(int rows, int cols, float fill = 0.0f) {
    return Matrix(Matrix::shape_type{static_cast<size_t>(rows), static_cast<size_t>(cols)}, fill);
}
// A rows × cols matrix of independent N(0, std²) draws from `rng`, row by row.
Matrix random_normal(Rng& rng, int rows, int cols, float std);
inline int rows(const Matrix& m) { return static_cast<int>(m.shape()[0]); }
inline int cols(const Matrix& m) { return static_cast<int>(m.shape()[1]); }
// row i: cols(m) contiguous floats
inline float* row(Matrix& m, int i) { return m.data() + static_cast<size_t>(i) * m.shape()[1]; }
inline const float* row(const Matrix& m, int i) {
    return m.data() + static_cast<size_t>(i) * m.shape()[1];
}

Matrix identity(int n);
Matrix transpose(const Matrix& a);
// a: m × k, b: k × n -> m × n
Matrix matmul(const Matrix& a, const Matrix& b);

// a · b, both of length n
float dot(const float* a, const float* b, int n);
// a: rows × cols, x: cols -> y: rows   (y = a x)
void matvec(const Matrix& a, const float* x, float* y);
std::vector<float> matvec(const Matrix& a, const float* x);
// a: rows × cols, x: rows -> y: cols   (y = aᵀ x)
std::vector<float> matvec_t(const Matrix& a, const float* x);
// a: rows × cols += alpha · u ⊗ v, u: rows, v: cols
void add_outer(Matrix& a, float alpha, const float* u, const float* v);

// Solves A z = b for square A (n × n, row-major, double) by Gaussian elimination with
// partial pivoting. Error if A is singular to working precision.
Expected<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b, int n);

// Least squares on k examples x_i (rows of X: k × d) with targets y (k):
// lambda = 0: the minimum-norm solution X⁺ y (Xᵀ(XXᵀ)⁻¹y when k < d, (XᵀX)⁻¹Xᵀy otherwise);
// lambda > 0: ridge, (XᵀX + λI)⁻¹ Xᵀ y. k = 0 gives w = 0. Returns w (d).
Expected<std::vector<double>> least_squares(const Matrix& x, const float* y, double lambda);

}  // namespace icl

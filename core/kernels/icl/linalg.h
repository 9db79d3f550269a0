// Small dense linear algebra for the lesson-sized demos (d ≈ 10, N ≈ 10..64): a
// row-major float matrix, the few products the dual-form and LSA code share, and
// linear solvers in double for least squares and ridge. Plain loops: at these sizes
// clarity beats the SIMD kernels of kernels.h, and nothing here depends on them.
#pragma once
#include <cstddef>
#include <vector>

#include "icl/expected.h"

namespace icl {

// rows × cols, row-major.
struct Mat {
    int rows = 0, cols = 0;
    std::vector<float> v;

    Mat() = default;
    Mat(int r, int c, float fill = 0.0f) : rows(r), cols(c), v(static_cast<size_t>(r) * c, fill) {}
    float& operator()(int i, int j) { return v[static_cast<size_t>(i) * cols + j]; }
    float operator()(int i, int j) const { return v[static_cast<size_t>(i) * cols + j]; }
    float* row(int i) { return v.data() + static_cast<size_t>(i) * cols; }
    const float* row(int i) const { return v.data() + static_cast<size_t>(i) * cols; }
};

Mat identity(int n);
Mat transpose(const Mat& a);
// a: m × k, b: k × n -> m × n
Mat matmul(const Mat& a, const Mat& b);

// a · b, both of length n
float dot(const float* a, const float* b, int n);
// a: rows × cols, x: cols -> y: rows   (y = a x)
void matvec(const Mat& a, const float* x, float* y);
std::vector<float> matvec(const Mat& a, const float* x);
// a: rows × cols, x: rows -> y: cols   (y = aᵀ x)
std::vector<float> matvec_t(const Mat& a, const float* x);
// a: rows × cols += alpha · u ⊗ v, u: rows, v: cols
void add_outer(Mat& a, float alpha, const float* u, const float* v);

// Solves A z = b for square A (n × n, row-major, double) by Gaussian elimination with
// partial pivoting. Error if A is singular to working precision.
Expected<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b, int n);

// Least squares on k examples x_i (rows of X: k × d) with targets y (k):
// lambda = 0: the minimum-norm solution X⁺ y (Xᵀ(XXᵀ)⁻¹y when k < d, (XᵀX)⁻¹Xᵀy otherwise);
// lambda > 0: ridge, (XᵀX + λI)⁻¹ Xᵀ y. k = 0 gives w = 0. Returns w (d).
Expected<std::vector<double>> least_squares(const Mat& x, const float* y, double lambda);

}  // namespace icl

#include "icl/tensor.h"

#include <climits>
#include <string>

namespace icl {

namespace {

template <class T>
std::string shape_str(const T& t) {
    std::string s;
    for (size_t d = 0; d < t.dimension(); ++d) s += (d ? "x" : "") + std::to_string(t.shape()[d]);
    return s;
}

// The kernels index with int: refuse anything larger.
template <class T>
bool fits_int(const T& t) {
    for (size_t d = 0; d < t.dimension(); ++d)
        if (t.shape()[d] > (size_t)INT_MAX) return false;
    return t.size() <= (size_t)INT_MAX;
}

// Uninitialized tensors of a shape (a braced {n} would be a 1-element tensor).
Matrix new_matrix(size_t rows, size_t cols) { return Matrix(Matrix::shape_type{rows, cols}); }
Vector new_vector(size_t n) { return Vector(Vector::shape_type{n}); }

using MatmulFn = void (*)(float*, const float*, const float*, int, int, int, bool);

// op(A) (M,K) · op(B) (K,N); `a_k`/`b_k` are the axes of a and b that hold K.
Expected<Matrix> checked_matmul(const char* name, MatmulFn fn, const Matrix& a, const Matrix& b,
                                int a_k, int b_k, const char* rule) {
    if (!fits_int(a) || !fits_int(b)) return make_error(std::string(name) + ": operands too large");
    if (a.shape()[a_k] != b.shape()[b_k])
        return make_error(std::string(name) + ": A is " + shape_str(a) + " but B is " +
                          shape_str(b) + "; " + rule);
    const int M = (int)a.shape()[1 - a_k], K = (int)a.shape()[a_k], N = (int)b.shape()[1 - b_k];
    Matrix c = new_matrix(M, N);
    fn(c.data(), a.data(), b.data(), M, K, N, false);
    return c;
}

}  // namespace

Expected<Matrix> matmul(const Matrix& a, const Matrix& b) {
    return checked_matmul("matmul", matmul_nn, a, b, 1, 0, "A's columns must equal B's rows");
}
Expected<Matrix> matmul_nt(const Matrix& a, const Matrix& b) {
    return checked_matmul("matmul_nt", icl::matmul_nt, a, b, 1, 1,
                          "A's columns must equal B's columns (B is used transposed)");
}
Expected<Matrix> matmul_tn(const Matrix& a, const Matrix& b) {
    return checked_matmul("matmul_tn", icl::matmul_tn, a, b, 0, 0,
                          "A's rows must equal B's rows (A is used transposed)");
}

Expected<Matrix> attention_softmax(const Matrix& scores, float scale, AttentionMask mask) {
    if (!fits_int(scores)) return make_error("attention_softmax: scores too large");
    if (scores.shape()[0] != scores.shape()[1])
        return make_error("attention_softmax: scores are " + shape_str(scores) +
                          "; they must be square (T x T)");
    if (mask.kind == AttentionMask::banded && mask.window < 1)
        return make_error("attention_softmax: banded mask window is " + std::to_string(mask.window) +
                          "; it must be at least 1");
    if (mask.kind == AttentionMask::strided && mask.stride < 1)
        return make_error("attention_softmax: strided mask stride is " +
                          std::to_string(mask.stride) + "; it must be at least 1");
    Matrix p = new_matrix(scores.shape()[0], scores.shape()[1]);
    icl::attention_softmax(p.data(), scores.data(), (int)scores.shape()[0], scale, mask);
    return p;
}

Expected<LayerNormOut> layernorm(const Matrix& x, const Vector& gamma, const Vector& beta,
                                 float eps) {
    if (!fits_int(x)) return make_error("layernorm: x too large");
    const size_t N = x.shape()[0], C = x.shape()[1];
    if (gamma.shape()[0] != C || beta.shape()[0] != C)
        return make_error("layernorm: x is " + shape_str(x) + " but gamma is " + shape_str(gamma) +
                          " and beta is " + shape_str(beta) + "; both must have x's " +
                          std::to_string(C) + " columns");
    if (C == 0) return make_error("layernorm: x is " + shape_str(x) + "; rows must not be empty");
    LayerNormOut out{new_matrix(N, C), new_vector(N), new_vector(N)};
    layernorm_forward(out.y.data(), out.mean.data(), out.rstd.data(), x.data(), gamma.data(),
                      beta.data(), (int)N, (int)C, eps);
    return out;
}

Expected<CrossEntropyOut> cross_entropy(const Matrix& logits, const xt::xtensor<int, 1>& targets) {
    if (!fits_int(logits)) return make_error("cross_entropy: logits too large");
    const size_t N = logits.shape()[0], V = logits.shape()[1];
    if (targets.shape()[0] != N)
        return make_error("cross_entropy: logits are " + shape_str(logits) + " but targets are " +
                          shape_str(targets) + "; there must be one target per row");
    for (size_t n = 0; n < N; ++n)
        if (targets(n) < 0 || (size_t)targets(n) >= V)
            return make_error("cross_entropy: target " + std::to_string(targets(n)) + " at row " +
                              std::to_string(n) + " is outside the vocabulary [0, " +
                              std::to_string(V) + ")");
    CrossEntropyOut out{new_vector(N), new_matrix(N, V)};
    crossentropy_forward(out.losses.data(), out.probs.data(), logits.data(), targets.data(), (int)N,
                         (int)V);
    return out;
}

}  // namespace icl

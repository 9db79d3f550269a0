#include "icl/linalg.h"

#include <cmath>
#include <utility>

namespace icl {

Matrix random_normal(Rng& rng, int rows, int cols, float std) {
    Matrix m = matrix(rows, cols);
    for (float& x : m.storage()) x = rng.normal(0.0f, std);
    return m;
}

Matrix identity(int n) {
    Matrix m = matrix(n, n);
    for (int i = 0; i < n; ++i) m(i, i) = 1.0f;
    return m;
}

Matrix transpose(const Matrix& a) {
    Matrix t = matrix(cols(a), rows(a));
    for (int i = 0; i < rows(a); ++i)
        for (int j = 0; j < cols(a); ++j) t(j, i) = a(i, j);
    return t;
}

Matrix matmul(const Matrix& a, const Matrix& b) {
    Matrix c = matrix(rows(a), cols(b));
    for (int i = 0; i < rows(a); ++i)
        for (int k = 0; k < cols(a); ++k) {
            const float aik = a(i, k);
            const float* brow = row(b, k);
            float* crow = row(c, i);
            for (int j = 0; j < cols(b); ++j) crow[j] += aik * brow[j];
        }
    return c;
}

float dot(const float* a, const float* b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

void matvec(const Matrix& a, const float* x, float* y) {
    for (int i = 0; i < rows(a); ++i) y[i] = dot(row(a, i), x, cols(a));
}

std::vector<float> matvec(const Matrix& a, const float* x) {
    std::vector<float> y(static_cast<size_t>(rows(a)));
    matvec(a, x, y.data());
    return y;
}

std::vector<float> matvec_t(const Matrix& a, const float* x) {
    std::vector<float> y(static_cast<size_t>(cols(a)), 0.0f);
    for (int i = 0; i < rows(a); ++i) {
        const float* r = row(a, i);
        for (int j = 0; j < cols(a); ++j) y[j] += r[j] * x[i];
    }
    return y;
}

void add_outer(Matrix& a, float alpha, const float* u, const float* v) {
    for (int i = 0; i < rows(a); ++i) {
        const float s = alpha * u[i];
        float* r = row(a, i);
        for (int j = 0; j < cols(a); ++j) r[j] += s * v[j];
    }
}

Expected<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b, int n) {
    double scale = 0.0;
    for (double x : a) scale = std::fmax(scale, std::fabs(x));
    const double tiny = scale * n * 1e-13;
    for (int col = 0; col < n; ++col) {
        int pivot = col;
        for (int r = col + 1; r < n; ++r)
            if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
        if (!(std::fabs(a[pivot * n + col]) > tiny)) return make_error("linear system is singular");
        if (pivot != col) {
            for (int j = 0; j < n; ++j) std::swap(a[col * n + j], a[pivot * n + j]);
            std::swap(b[col], b[pivot]);
        }
        for (int r = col + 1; r < n; ++r) {
            const double f = a[r * n + col] / a[col * n + col];
            if (f == 0.0) continue;
            for (int j = col; j < n; ++j) a[r * n + j] -= f * a[col * n + j];
            b[r] -= f * b[col];
        }
    }
    std::vector<double> z(static_cast<size_t>(n));
    for (int i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (int j = i + 1; j < n; ++j) s -= a[i * n + j] * z[j];
        z[i] = s / a[i * n + i];
    }
    return z;
}

Expected<std::vector<double>> least_squares(const Matrix& x, const float* y, double lambda) {
    const int k = rows(x), d = cols(x);
    std::vector<double> w(static_cast<size_t>(d), 0.0);
    if (k == 0) return w;
    if (lambda == 0.0 && k < d) {
        // minimum norm: w = Xᵀ z with (X Xᵀ) z = y
        std::vector<double> g(static_cast<size_t>(k) * k), rhs(y, y + k);
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j) {
                double s = 0.0;
                for (int c = 0; c < d; ++c) s += double(x(i, c)) * x(j, c);
                g[i * k + j] = s;
            }
        auto z = solve_linear(std::move(g), std::move(rhs), k);
        if (!z) return z.error();
        for (int i = 0; i < k; ++i)
            for (int c = 0; c < d; ++c) w[c] += double(x(i, c)) * z.value()[i];
        return w;
    }
    // (XᵀX + λI) w = Xᵀ y
    std::vector<double> g(static_cast<size_t>(d) * d, 0.0), rhs(static_cast<size_t>(d), 0.0);
    for (int i = 0; i < k; ++i)
        for (int a = 0; a < d; ++a) {
            rhs[a] += double(x(i, a)) * y[i];
            for (int b = 0; b < d; ++b) g[a * d + b] += double(x(i, a)) * x(i, b);
        }
    for (int a = 0; a < d; ++a) g[a * d + a] += lambda;
    return solve_linear(std::move(g), std::move(rhs), d);
}

}  // namespace icl

#include "icl/regression_solvers.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace icl {

namespace {

using Dense = std::vector<double>;  // n × n, row-major

Dense mul(const Dense& a, const Dense& b, int n) {
    Dense c((size_t)n * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            const double aik = a[(size_t)i * n + k];
            for (int j = 0; j < n; ++j) c[(size_t)i * n + j] += aik * b[(size_t)k * n + j];
        }
    return c;
}

Dense to_dense(const Matrix& m) { return Dense(m.data(), m.data() + m.size()); }

double trace(const Dense& a, int n) {
    double t = 0.0;
    for (int i = 0; i < n; ++i) t += a[(size_t)i * n + i];
    return t;
}

// (1/n) XᵀX and (1/n) Xᵀy.
void moments(const Matrix& x, const float* y, Dense& s, std::vector<double>& g) {
    const int n = rows(x), d = cols(x);
    s.assign((size_t)d * d, 0.0);
    g.assign((size_t)d, 0.0);
    for (int i = 0; i < n; ++i)
        for (int a = 0; a < d; ++a) {
            g[(size_t)a] += double(x(i, a)) * y[i] / n;
            for (int b = 0; b < d; ++b) s[(size_t)a * d + b] += double(x(i, a)) * x(i, b) / n;
        }
}

// The steps w ← w − P (S w − g) from 0, P = eta I when p is null.
std::vector<Weights> descend(const Matrix& x, const float* y, const Matrix* p, double eta, int steps) {
    const int n = rows(x), d = cols(x);
    std::vector<Weights> path(1, Weights((size_t)d, 0.0));
    if (n == 0) {
        path.resize((size_t)steps + 1, path[0]);
        return path;
    }
    Dense s;
    std::vector<double> g, grad((size_t)d);
    moments(x, y, s, g);
    for (int t = 0; t < steps; ++t) {
        Weights w = path.back();
        for (int a = 0; a < d; ++a) {
            double v = -g[(size_t)a];
            for (int b = 0; b < d; ++b) v += s[(size_t)a * d + b] * w[(size_t)b];
            grad[(size_t)a] = v;
        }
        for (int a = 0; a < d; ++a) {
            double step = 0.0;
            if (p)
                for (int b = 0; b < d; ++b) step += double((*p)(a, b)) * grad[(size_t)b];
            else
                step = eta * grad[(size_t)a];
            w[(size_t)a] -= step;
        }
        path.push_back(std::move(w));
    }
    return path;
}

// Γ = ((n+1)/n) Σ + ((tr Σ + σ²) / n) I.
Dense gamma(const Matrix& sigma, int n, double noise_var) {
    const int d = rows(sigma);
    Dense g = to_dense(sigma);
    const double shift = (trace(g, d) + noise_var) / n;
    for (double& v : g) v *= (n + 1.0) / n;
    for (int i = 0; i < d; ++i) g[(size_t)i * d + i] += shift;
    return g;
}

}  // namespace

double gram_largest_eigenvalue(const Matrix& x, int iterations) {
    const int n = rows(x), d = cols(x);
    std::vector<double> v((size_t)d, 1.0), u((size_t)d);
    double lambda = 0.0;
    for (int it = 0; it < iterations; ++it) {
        std::fill(u.begin(), u.end(), 0.0);
        for (int i = 0; i < n; ++i) {
            double xv = 0.0;
            for (int a = 0; a < d; ++a) xv += double(x(i, a)) * v[(size_t)a];
            for (int a = 0; a < d; ++a) u[(size_t)a] += double(x(i, a)) * xv / n;
        }
        double norm = 0.0;
        for (double e : u) norm += e * e;
        norm = std::sqrt(norm);
        if (norm == 0.0) return 0.0;
        lambda = norm;  // |Ŝ v| for a unit v: converges to λ_max
        for (int a = 0; a < d; ++a) v[(size_t)a] = u[(size_t)a] / norm;
    }
    return lambda;
}

std::vector<Weights> gd_path(const Matrix& x, const float* y, double eta, int steps) {
    return descend(x, y, nullptr, eta, steps);
}

std::vector<Weights> preconditioned_gd_path(const Matrix& x, const float* y, const Matrix& p, int steps) {
    return descend(x, y, &p, 0.0, steps);
}

std::vector<std::vector<double>> newton_schulz(const std::vector<double>& s, int n, int iterations, double alpha) {
    if (alpha <= 0.0) {
        const Dense ss = mul(s, s, n);  // s sᵀ for a symmetric s
        double f = 0.0;
        for (double v : ss) f += v * v;
        alpha = f > 0.0 ? 1.0 / std::sqrt(f) : 0.0;
    }
    std::vector<std::vector<double>> out;
    Dense m = s;
    for (double& v : m) v *= alpha;
    out.push_back(m);
    for (int k = 0; k < iterations; ++k) {
        Dense t = mul(s, m, n);  // S M_k, then 2I − S M_k
        for (double& v : t) v = -v;
        for (int i = 0; i < n; ++i) t[(size_t)i * n + i] += 2.0;
        m = mul(m, t, n);
        out.push_back(m);
    }
    return out;
}

std::vector<Weights> iterative_newton_path(const Matrix& x, const float* y, int iterations) {
    const int n = rows(x), d = cols(x);
    Dense s;
    std::vector<double> g;
    moments(x, y, s, g);
    for (double& v : s) v *= n;  // XᵀX
    for (double& v : g) v *= n;  // Xᵀy
    std::vector<Weights> path;
    for (const Dense& m : newton_schulz(s, d, iterations)) {
        Weights w((size_t)d, 0.0);
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) w[(size_t)a] += m[(size_t)a * d + b] * g[(size_t)b];
        path.push_back(std::move(w));
    }
    return path;
}

Expected<Matrix> ahn_preconditioner(const Matrix& sigma, int n, double noise_var) {
    const int d = rows(sigma);
    if (cols(sigma) != d || d == 0)
        return make_error("Ahn preconditioner: the covariance must be square, got " + std::to_string(rows(sigma)) + " x " +
                          std::to_string(cols(sigma)));
    if (n < 1) return make_error("Ahn preconditioner: needs at least one context pair, got " + std::to_string(n));
    const Dense g = gamma(sigma, n, noise_var);
    Matrix inv = matrix(d, d);
    for (int c = 0; c < d; ++c) {
        std::vector<double> e((size_t)d, 0.0);
        e[(size_t)c] = 1.0;
        auto col = solve_linear(g, e, d);
        if (!col) return make_error("Ahn preconditioner: Γ is singular (is the covariance zero?)");
        for (int r = 0; r < d; ++r) inv(r, c) = (float)col.value()[(size_t)r];
    }
    return inv;
}

double preconditioner_loss(const Matrix& sigma, int n, const Matrix& a, double noise_var) {
    const int d = rows(sigma);
    const Dense s = to_dense(sigma), am = to_dense(a);
    const Dense sa = mul(s, am, d);                   // Σ A
    const Dense sg = mul(s, gamma(sigma, n, noise_var), d);  // Σ Γ
    const Dense sasg = mul(sa, sg, d);                // Σ A Σ Γ
    double quad = 0.0;                                // tr(Σ A Σ Γ Aᵀ) = Σ_ij (ΣAΣΓ)_ij A_ij
    for (size_t i = 0; i < sasg.size(); ++i) quad += sasg[i] * am[i];
    return quad - 2.0 * trace(mul(sa, s, d), d) + trace(s, d);
}

double best_gd_step(const Matrix& sigma, int n, double noise_var) {
    const int d = rows(sigma);
    const Dense s = to_dense(sigma), s2 = mul(s, s, d);
    return trace(s2, d) / trace(mul(s2, gamma(sigma, n, noise_var), d), d);
}

}  // namespace icl

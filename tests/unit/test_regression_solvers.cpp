// The in-context regression algorithms of icl/regression_solvers.h against computations
// written here: GD by its geometric series, Iterative Newton against an inverse built from
// a known eigen-decomposition, Ahn et al.'s preconditioner against a brute-force minimum
// of the one-layer objective over Monte Carlo prompts.
#include <doctest/doctest.h>

#include <cmath>

#include "icl/linear_tasks.h"
#include "icl/regression_solvers.h"
#include "icl/rng.h"

using namespace icl;

namespace solvers_test {

using Sq = std::vector<double>;  // n × n row-major

Sq sq_mul(const Sq& a, const Sq& b, int n) {
    Sq c((size_t)n * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) c[(size_t)i * n + j] += a[(size_t)i * n + k] * b[(size_t)k * n + j];
    return c;
}

// Q diag(lambda) Qᵀ with Q = I − 2 v vᵀ / |v|², a reflection (orthogonal by construction).
Sq from_eigen(const std::vector<double>& v, const std::vector<double>& lambda) {
    const int n = (int)v.size();
    double vv = 0;
    for (double e : v) vv += e * e;
    Sq q((size_t)n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) q[(size_t)i * n + j] = (i == j) - 2 * v[(size_t)i] * v[(size_t)j] / vv;
    Sq out((size_t)n * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) out[(size_t)i * n + j] += q[(size_t)i * n + k] * lambda[(size_t)k] * q[(size_t)j * n + k];
    return out;
}

Matrix random_x(int n, int d, uint64_t seed) {
    Rng rng(seed);
    Matrix x = matrix(n, d);
    for (float& v : x.storage()) v = rng.normal();
    return x;
}

// Gauss–Jordan inverse without pivoting, for the well-conditioned SPD matrices used here.
Sq spd_inverse(Sq a, int n) {
    Sq inv((size_t)n * n, 0.0);
    for (int i = 0; i < n; ++i) inv[(size_t)i * n + i] = 1;
    for (int c = 0; c < n; ++c) {
        const double p = a[(size_t)c * n + c];
        for (int j = 0; j < n; ++j) a[(size_t)c * n + j] /= p, inv[(size_t)c * n + j] /= p;
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            const double f = a[(size_t)r * n + c];
            for (int j = 0; j < n; ++j) a[(size_t)r * n + j] -= f * a[(size_t)c * n + j], inv[(size_t)r * n + j] -= f * inv[(size_t)c * n + j];
        }
    }
    return inv;
}

}  // namespace solvers_test

using namespace solvers_test;

TEST_CASE("solvers: k GD steps equal the geometric series sum_{s<k} (I - eta S)^s eta g; P = S^-1 reaches least squares in one step") {
    const int n = 12, d = 4;
    const Matrix x = random_x(n, d, 3);
    std::vector<float> y(n);
    Rng rng(4);
    for (float& v : y) v = rng.normal();
    Sq s((size_t)d * d, 0.0);
    std::vector<double> g(d, 0.0);
    for (int i = 0; i < n; ++i)
        for (int a = 0; a < d; ++a) {
            g[(size_t)a] += double(x(i, a)) * y[(size_t)i] / n;
            for (int b = 0; b < d; ++b) s[(size_t)a * d + b] += double(x(i, a)) * x(i, b) / n;
        }
    const double eta = 0.3;
    const auto path = gd_path(x, y.data(), eta, 8);
    REQUIRE(path.size() == 9);
    Sq power((size_t)d * d, 0.0), step((size_t)d * d);
    for (int i = 0; i < d; ++i) power[(size_t)i * d + i] = 1;
    for (int i = 0; i < d * d; ++i) step[(size_t)i] = (i % (d + 1) == 0) - eta * s[(size_t)i];
    std::vector<double> series(d, 0.0);
    for (int k = 0; k <= 8; ++k) {
        for (int a = 0; a < d; ++a) CHECK(path[(size_t)k][(size_t)a] == doctest::Approx(series[(size_t)a]).epsilon(1e-10).scale(1e-12));
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) series[(size_t)a] += power[(size_t)a * d + b] * eta * g[(size_t)b];
        power = sq_mul(power, step, d);
    }
    // the data module's float GD (used by the LSA demos) walks the same path
    RegressionTask t;
    t.x = x;
    t.y = y;
    const std::vector<float> w8 = gd_weights(t, (float)eta, 8);
    for (int a = 0; a < d; ++a) CHECK(w8[(size_t)a] == doctest::Approx(path[8][(size_t)a]).epsilon(1e-4));
    // P = eta I is plain GD; P = S^-1 is Newton's step, exact on a quadratic
    Matrix p_eta = identity(d) * (float)eta, p_newton = matrix(d, d);
    const auto pre = preconditioned_gd_path(x, y.data(), p_eta, 8);
    for (int a = 0; a < d; ++a) CHECK(pre[8][(size_t)a] == doctest::Approx(path[8][(size_t)a]).epsilon(1e-6));
    const Sq inv = spd_inverse(s, d);
    for (int i = 0; i < d * d; ++i) p_newton.data()[i] = (float)inv[(size_t)i];
    const auto one = preconditioned_gd_path(x, y.data(), p_newton, 1);
    auto ols = least_squares(x, y.data(), 0.0);
    REQUIRE(ols.ok());
    for (int a = 0; a < d; ++a) CHECK(one[1][(size_t)a] == doctest::Approx(ols.value()[(size_t)a]).epsilon(1e-5));
}

TEST_CASE("solvers: Newton-Schulz converges to the exact inverse, its error squaring each iteration: tr(I - S M_k) = sum (1 - a l^2)^(2^k)") {
    const std::vector<double> lambda{4.0, 2.0, 1.0, 0.5}, v{1.0, -2.0, 0.5, 1.5};
    const int n = 4;
    const Sq s = from_eigen(v, lambda);
    std::vector<double> inv_l;
    for (double l : lambda) inv_l.push_back(1.0 / l);
    const Sq exact = from_eigen(v, inv_l);
    double l4 = 0;
    for (double l : lambda) l4 += l * l * l * l;
    const double alpha = 1.0 / std::sqrt(l4);  // 1 / |S Sᵀ|_F from the eigenvalues
    const auto it = newton_schulz(s, n, 30);
    REQUIRE(it.size() == 31);
    for (int i = 0; i < n * n; ++i) CHECK(it[30][(size_t)i] == doctest::Approx(exact[(size_t)i]).epsilon(1e-12).scale(1e-12));
    double prev_norm = 0;
    for (int k = 0; k <= 8; ++k) {
        CAPTURE(k);
        const Sq sm = sq_mul(s, it[(size_t)k], n);
        double tr = 0, norm = 0;
        for (int i = 0; i < n; ++i) tr += 1.0 - sm[(size_t)i * n + i];
        for (int i = 0; i < n * n; ++i) norm += std::pow((i % (n + 1) == 0) - sm[(size_t)i], 2);
        norm = std::sqrt(norm);
        double want = 0;
        for (double l : lambda) want += std::pow(1.0 - alpha * l * l, std::pow(2.0, k));
        CHECK(tr == doctest::Approx(want).epsilon(1e-9));
        if (k > 0) CHECK(norm <= prev_norm * prev_norm + 1e-12);  // quadratic: |E_{k+1}| <= |E_k|^2
        prev_norm = norm;
    }
    // an explicit alpha is used as given
    const auto half = newton_schulz(s, n, 0, 0.01);
    for (int i = 0; i < n * n; ++i) CHECK(half[0][(size_t)i] == doctest::Approx(0.01 * s[(size_t)i]));
}

TEST_CASE("solvers: Iterative Newton's weights reach least squares, and the minimum-norm fit when n < d") {
    for (int n : {12, 3}) {
        CAPTURE(n);
        const int d = 5;
        const Matrix x = random_x(n, d, 20 + n);
        std::vector<float> y(n);
        Rng rng(7);
        for (float& v : y) v = rng.normal();
        const auto path = iterative_newton_path(x, y.data(), 60);
        auto ols = least_squares(x, y.data(), 0.0);
        REQUIRE(ols.ok());
        for (int a = 0; a < d; ++a) CHECK(path.back()[(size_t)a] == doctest::Approx(ols.value()[(size_t)a]).epsilon(1e-8).scale(1e-10));
        // and it gets there much faster than GD at its best fixed step from the same start
        double err_newton = 0, err_first = 0;
        for (int a = 0; a < d; ++a) {
            err_newton += std::pow(path[10][(size_t)a] - ols.value()[(size_t)a], 2);
            err_first += std::pow(path[0][(size_t)a] - ols.value()[(size_t)a], 2);
        }
        CHECK(err_newton < 1e-6 * err_first);
    }
}

TEST_CASE("solvers: Ahn's preconditioner is the brute-force minimum of the one-layer objective over Monte Carlo prompts") {
    const int d = 3, n = 5, samples = 40000;
    // Σ = C Cᵀ, C = Q diag(sqrt(lambda)) for a reflection Q
    const std::vector<double> lambda{1.0, 0.5, 0.15}, v{1.0, 1.0, -0.5};
    const Sq sigma = from_eigen(v, lambda);
    Sq c((size_t)d * d);
    {
        double vv = 0;
        for (double e : v) vv += e * e;
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) c[(size_t)i * d + j] = ((i == j) - 2 * v[(size_t)i] * v[(size_t)j] / vv) * std::sqrt(lambda[(size_t)j]);
    }
    Matrix sigma_m = matrix(d, d);
    for (int i = 0; i < d * d; ++i) sigma_m.data()[i] = (float)sigma[(size_t)i];
    double tr_sigma = 0;
    for (int i = 0; i < d; ++i) tr_sigma += sigma[(size_t)i * d + i];
    // M1 = mean Ŝ, M2 = mean Ŝ² over prompts X (n × d, rows ~ N(0, Σ)), Ŝ = XᵀX / n
    Rng rng(99);
    Sq m1((size_t)d * d, 0.0), m2((size_t)d * d, 0.0);
    for (int t = 0; t < samples; ++t) {  // fixed-size arrays: this loop is the test's cost
        double sh[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (int i = 0; i < n; ++i) {
            double z[3], xr[3] = {0, 0, 0};
            for (double& e : z) e = rng.normal();
            for (int a = 0; a < d; ++a)
                for (int b = 0; b < d; ++b) xr[a] += c[(size_t)a * d + b] * z[b];
            for (int a = 0; a < d; ++a)
                for (int b = 0; b < d; ++b) sh[a * d + b] += xr[a] * xr[b] / n;
        }
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) {
                double sh2 = 0;
                for (int k = 0; k < d; ++k) sh2 += sh[a * d + k] * sh[k * d + b];
                m1[(size_t)a * d + b] += sh[a * d + b] / samples;
                m2[(size_t)a * d + b] += sh2 / samples;
            }
    }
    for (double noise_var : {0.0, 1.0}) {
        CAPTURE(noise_var);
        // with label noise, E[g gᵀ | X] gains (σ²/n) Ŝ
        Sq m2n = m2;
        for (int i = 0; i < d * d; ++i) m2n[(size_t)i] += noise_var / n * m1[(size_t)i];
        // J(A) = tr(Σ A M2 Aᵀ) − 2 tr(Σ A M1) + tr Σ: the expected error over w ~ N(0, I),
        // x_q ~ N(0, Σ) and the sampled prompts; minimised by gradient descent on A
        auto objective = [&](const Sq& a) {
            const Sq sa = sq_mul(sigma, a, d), q = sq_mul(sa, m2n, d), l = sq_mul(sa, m1, d);
            double j = tr_sigma;
            for (int i = 0; i < d * d; ++i) j += q[(size_t)i] * a[(size_t)i];
            for (int i = 0; i < d; ++i) j -= 2 * l[(size_t)i * d + i];
            return j;
        };
        // the Hessian's eigenvalues λ_i(Σ) μ_j(M2) lie in about [0.01, 1.8]: step 1 converges
        Sq a((size_t)d * d, 0.0);
        const Sq lin = sq_mul(sigma, m1, d);
        for (int it = 0; it < 5000; ++it) {
            const Sq grad = sq_mul(sq_mul(sigma, a, d), m2n, d);
            for (int i = 0; i < d * d; ++i) a[(size_t)i] -= grad[(size_t)i] - lin[(size_t)i];
        }
        auto gamma_inv = ahn_preconditioner(sigma_m, n, noise_var);
        REQUIRE(gamma_inv.ok());
        double dist = 0, dist_sigma_inv = 0, scale = 0;
        const Sq sinv = spd_inverse(sigma, d);
        for (int i = 0; i < d * d; ++i) {
            dist = std::fmax(dist, std::fabs(a[(size_t)i] - gamma_inv.value().data()[i]));
            dist_sigma_inv = std::fmax(dist_sigma_inv, std::fabs(a[(size_t)i] - sinv[(size_t)i]));
            scale = std::fmax(scale, std::fabs(a[(size_t)i]));
        }
        CHECK(dist < 0.012 * scale);  // Monte Carlo error about 0.4 %; Γ with (n + 0.8)/n in place of (n + 1)/n is 1.8 % off
        CHECK(dist_sigma_inv > 0.5 * scale);  // not Σ⁻¹, the n → ∞ answer
        // the closed-form loss agrees with the Monte Carlo objective, and is smallest at Γ⁻¹
        Sq g_inv(gamma_inv.value().data(), gamma_inv.value().data() + d * d);
        CHECK(preconditioner_loss(sigma_m, n, gamma_inv.value(), noise_var) == doctest::Approx(objective(g_inv)).epsilon(0.02));
        const double eta = best_gd_step(sigma_m, n, noise_var);
        Sq eta_i((size_t)d * d, 0.0);
        for (int i = 0; i < d; ++i) eta_i[(size_t)i * d + i] = eta;
        const Matrix eta_m = identity(d) * (float)eta;
        CHECK(preconditioner_loss(sigma_m, n, eta_m, noise_var) == doctest::Approx(objective(eta_i)).epsilon(0.02));
        CHECK(preconditioner_loss(sigma_m, n, matrix(d, d), noise_var) == doctest::Approx(tr_sigma).epsilon(1e-6));
        CHECK(preconditioner_loss(sigma_m, n, gamma_inv.value(), noise_var) < preconditioner_loss(sigma_m, n, eta_m, noise_var));
        for (double f : {0.9, 1.1}) {  // η* is the best scalar step
            const Matrix off = identity(d) * (float)(eta * f);
            CHECK(preconditioner_loss(sigma_m, n, off, noise_var) > preconditioner_loss(sigma_m, n, eta_m, noise_var));
        }
    }
}

TEST_CASE("solvers: Ahn's preconditioner for isotropic inputs is n / (n + d + 1) I; one preconditioned step is A (1/n) X^T y") {
    const int d = 4, n = 7;
    auto a = ahn_preconditioner(identity(d), n);
    REQUIRE(a.ok());
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) CHECK(a.value()(i, j) == doctest::Approx(i == j ? double(n) / (n + d + 1) : 0.0).epsilon(1e-6));
    const Matrix x = random_x(n, d, 8);
    std::vector<float> y(n, 0.0f);
    for (int i = 0; i < n; ++i) y[(size_t)i] = 0.5f * (float)i - 1.0f;
    const auto step = preconditioned_gd_path(x, y.data(), a.value(), 1);
    for (int r = 0; r < d; ++r) {
        double want = 0;
        for (int c = 0; c < d; ++c)
            for (int i = 0; i < n; ++i) want += a.value()(r, c) * x(i, c) * y[(size_t)i] / n;
        CHECK(step[1][(size_t)r] == doctest::Approx(want).epsilon(1e-6));
    }
    CHECK_FALSE(ahn_preconditioner(matrix(2, 3), n).ok());
    CHECK(ahn_preconditioner(identity(2), 0).error().message.find("at least one context pair") != std::string::npos);
}

TEST_CASE("solvers: the power iteration finds the largest eigenvalue of X^T X / n, written out for a rotated diagonal") {
    // X = D Q with Q a rotation by 30 degrees: X^T X / n = Q^T (D^2 / n) Q has the
    // eigenvalues of D^2 / n, here 3^2 / 2 = 4.5 and 1 / 2.
    const double pi = std::acos(-1.0), c = std::cos(pi / 6), s = std::sin(pi / 6);
    Matrix x = matrix(2, 2);
    x(0, 0) = float(3 * c); x(0, 1) = float(3 * s);
    x(1, 0) = float(-s);    x(1, 1) = float(c);
    CHECK(icl::gram_largest_eigenvalue(x, 100) == doctest::Approx(4.5).epsilon(1e-5));
    CHECK(icl::gram_largest_eigenvalue(matrix(3, 2), 100) == 0.0);  // X = 0
}

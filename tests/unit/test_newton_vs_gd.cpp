#include <doctest/doctest.h>

#include <cmath>
#include <ctime>
#include <vector>

#include "demo_testing.h"
#include "icl/linear_tasks.h"
#include "icl/rng.h"

using namespace icl;
using icl::testing::scalar;

namespace {

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;

Mat mat_mul(const Mat& a, const Mat& b) {
    const size_t n = a.size();
    Mat c(n, Vec(n, 0.0));
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < n; ++k)
            for (size_t j = 0; j < n; ++j) c[i][j] += a[i][k] * b[k][j];
    return c;
}

// Errors (ŷ − y_q)² of the test's own GD (η = 1/λ_max of Ŝ by Jacobi rotations), Newton–Schulz
// (α = 1/|S Sᵀ|_F) and least squares (Gauss–Jordan inverse of XᵀX) on one prompt.
struct Errors {
    Vec gd, newton;
    double ls = 0;
};

double err(const Vec& w, const RegressionTask& t) {
    double yhat = 0;
    for (size_t a = 0; a < w.size(); ++a) yhat += w[a] * t.x_query[a];
    return (yhat - t.y_query) * (yhat - t.y_query);
}

Errors solve(const RegressionTask& t, int gd_steps, int iters) {
    const int n = rows(t.x), d = cols(t.x);
    Mat s(d, Vec(d, 0.0));
    Vec xty(d, 0.0);
    for (int i = 0; i < n; ++i)
        for (int a = 0; a < d; ++a) {
            xty[a] += double(t.x(i, a)) * t.y[i];
            for (int b = 0; b < d; ++b) s[a][b] += double(t.x(i, a)) * t.x(i, b);
        }
    // λ_max(S) by cyclic Jacobi rotations on a copy
    Mat j = s;
    for (int sweep = 0; sweep < 30; ++sweep)
        for (int p = 0; p < d; ++p)
            for (int q = p + 1; q < d; ++q) {
                if (std::fabs(j[p][q]) < 1e-300) continue;
                const double theta = 0.5 * std::atan2(2 * j[p][q], j[q][q] - j[p][p]);
                const double c = std::cos(theta), sn = std::sin(theta);
                for (int k = 0; k < d; ++k) {
                    const double jp = j[k][p], jq = j[k][q];
                    j[k][p] = c * jp - sn * jq;
                    j[k][q] = sn * jp + c * jq;
                }
                for (int k = 0; k < d; ++k) {
                    const double jp = j[p][k], jq = j[q][k];
                    j[p][k] = c * jp - sn * jq;
                    j[q][k] = sn * jp + c * jq;
                }
            }
    double lmax = 0;
    for (int a = 0; a < d; ++a) lmax = std::fmax(lmax, j[a][a]);
    Errors e;
    // GD on (1/2n)|Xw − y|² with η = 1 / λ_max(S / n) = n / λ_max(S): w ← w − (1/λ_max)(S w − Xᵀy)
    Vec w(d, 0.0);
    e.gd.push_back(err(w, t));
    for (int k = 0; k < gd_steps; ++k) {
        Vec g(d, 0.0);
        for (int a = 0; a < d; ++a) {
            g[a] = -xty[a];
            for (int b = 0; b < d; ++b) g[a] += s[a][b] * w[b];
        }
        for (int a = 0; a < d; ++a) w[a] -= g[a] / lmax;
        e.gd.push_back(err(w, t));
    }
    // Newton–Schulz: M0 = S / |S Sᵀ|_F, M ← M (2I − S M); w = M Xᵀy
    const Mat ss = mat_mul(s, s);
    double fro = 0;
    for (const Vec& r : ss)
        for (double v : r) fro += v * v;
    Mat m = s;
    for (Vec& r : m)
        for (double& v : r) v /= std::sqrt(fro);
    for (int it = 0; it <= iters; ++it) {
        Vec wn(d, 0.0);
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) wn[a] += m[a][b] * xty[b];
        e.newton.push_back(err(wn, t));
        Mat sm = mat_mul(s, m);
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) sm[a][b] = (a == b ? 2.0 : 0.0) - sm[a][b];
        m = mat_mul(m, sm);
    }
    // least squares: Gauss–Jordan on [S | Xᵀy]
    Mat aug = s;
    for (int a = 0; a < d; ++a) aug[a].push_back(xty[a]);
    for (int c = 0; c < d; ++c) {
        int piv = c;
        for (int r = c + 1; r < d; ++r)
            if (std::fabs(aug[r][c]) > std::fabs(aug[piv][c])) piv = r;
        std::swap(aug[c], aug[piv]);
        for (int r = 0; r < d; ++r) {
            if (r == c) continue;
            const double f = aug[r][c] / aug[c][c];
            for (int k = c; k <= d; ++k) aug[r][k] -= f * aug[c][k];
        }
    }
    Vec wl(d);
    for (int a = 0; a < d; ++a) wl[a] = aug[a][d] / aug[a][a];
    e.ls = err(wl, t);
    return e;
}

}  // namespace

TEST_CASE("newton_vs_gd: the errors and the GD-steps-per-Newton-iteration readout agree with GD, Newton-Schulz and least squares written in the test") {
    const int d = 3, n = 8, iters = 8, prompts = 4;
    const double kappa = 50, noise = 0.1;
    const Result r = testing::run_demo("newton_vs_gd", {{"d", d}, {"n_context", n}, {"condition", kappa}, {"noise", noise},
                                                        {"iterations", iters}, {"prompts", prompts}});
    REQUIRE(r.error.empty());
    // the demo's prompts: seed 1, the task generator with Σ's factor (tested in test_preconditioner_lab.cpp)
    TaskConfig cfg;
    cfg.d = d;
    cfg.dist = InputDist::normal;
    cfg.x_scale = 1.0f;
    cfg.noise = (float)noise;
    cfg.x_factor = spectrum_factor(geometric_spectrum(d, kappa), true);
    Rng rng(1);
    const int gd_steps = 4096;
    Vec gd(gd_steps + 1, 0.0), newton(iters + 1, 0.0);
    double ls = 0;
    for (int t = 0; t < prompts; ++t) {
        const Errors e = solve(sample_task(rng, cfg, n), gd_steps, iters);
        for (int k = 0; k <= gd_steps; ++k) gd[k] += e.gd[k] / prompts;
        for (int k = 0; k <= iters; ++k) newton[k] += e.newton[k] / prompts;
        ls += e.ls / prompts;
    }
    CHECK(scalar(r, "err_ls") == doctest::Approx(ls).epsilon(1e-4));
    CHECK(scalar(r, "err_newton") == doctest::Approx(newton[iters]).epsilon(1e-4));
    CHECK(scalar(r, "err_gd_same") == doctest::Approx(gd[iters]).epsilon(1e-4));
    CHECK(scalar(r, "err_gd_max") == doctest::Approx(gd[gd_steps]).epsilon(1e-3));
    for (int j : {2, 3, 4, iters}) {
        CAPTURE(j);
        int want = -1;
        for (int k = 0; k <= gd_steps; ++k)
            if (gd[k] <= newton[j]) { want = k; break; }
        const double got = scalar(r, j == iters ? std::string("gd_match_last") : "gd_match_" + std::to_string(j));
        // a tie within rounding may move the first matching step by one
        CHECK(std::fabs(got - want) <= 1);
    }
    // with noise, least squares is not zero, and Newton gets to it
    CHECK(ls > 1e-4);
    CHECK(scalar(r, "err_newton") == doctest::Approx(ls).epsilon(0.05));
}

TEST_CASE("newton_vs_gd: within the analytic budget at its largest settings; Korean catalogue complete; bad input refused") {
    const nlohmann::json largest = {{"d", 16}, {"n_context", 64}, {"condition", 1000}, {"iterations", 24}, {"prompts", 32}};
    const std::clock_t t0 = std::clock();  // processor time: a loaded machine does not move it much
    const Result ko = testing::run_demo("newton_vs_gd", largest, "ko");
    const double ms = 1000.0 * double(std::clock() - t0) / CLOCKS_PER_SEC;
    CHECK(ko.done);
    INFO("newton_vs_gd at its largest settings: " << ms << " ms of processor time");
    if (!testing::kSanitized && !testing::kWasm) CHECK(ms < 50.0);  // the analytic demos' budget per edit
    testing::expect_refused("newton_vs_gd", {{"condition", 0}}, {"condition", "[1, 1000]"});
    testing::expect_refused("newton_vs_gd", {{"iterations", 25}}, {"iterations", "[1, 24]"});
    testing::check_scalar_names_stable("newton_vs_gd", {{"d", 2}, {"prompts", 2}});
}

// The pool-of-tasks regression data (icl/task_pool.h) and its two Bayes baselines
// (icl/regression_baselines.h): statistics of the data, and dMMSE, ridge and least squares
// against numpy's answers (tests/golden/make_theory_fixture.py).
#include <doctest/doctest.h>

#include <cmath>

#include "icl/regression_baselines.h"
#include "icl/task_pool.h"
#include "stats_test_util.h"
#include "theory_fixture.h"

using namespace icl;

TEST_CASE("regression baselines: dMMSE, ridge (lambda = sigma^2) and least squares match numpy at every prefix") {
    const auto fx = test::read_theory_fixture();
    REQUIRE_MESSAGE(fx.count("pool"), "tests/golden/theory_baselines.txt is missing or malformed");
    const Matrix pool = fx.at("pool").as_matrix(), x = fx.at("x").as_matrix();
    const std::vector<float> y = fx.at("y").as_floats();
    const double noise_var = fx.at("noise_var").v[0];
    const std::vector<double> dm = dmmse_predictions(pool, x, y.data(), noise_var);
    auto ridge = ridge_predictions(x, y.data(), noise_var);
    auto ols = ridge_predictions(x, y.data(), 0.0);
    REQUIRE(ridge.ok());
    REQUIRE(ols.ok());
    for (int k = 0; k < rows(x); ++k) {
        CAPTURE(k);
        CHECK(dm[(size_t)k] == doctest::Approx(fx.at("dmmse").v[(size_t)k]).epsilon(1e-9));
        CHECK(ridge.value()[(size_t)k] == doctest::Approx(fx.at("ridge").v[(size_t)k]).epsilon(1e-9).scale(1e-9));
        CHECK(ols.value()[(size_t)k] == doctest::Approx(fx.at("ols").v[(size_t)k]).epsilon(1e-7).scale(1e-9));
    }
    const std::vector<double> post = dmmse_posterior(pool, x, y.data(), rows(x), noise_var);
    for (int i = 0; i < rows(pool); ++i)
        CHECK(post[(size_t)i] == doctest::Approx(fx.at("dmmse_posterior").v[(size_t)i]).epsilon(1e-9).scale(1e-30));
}

TEST_CASE("regression baselines: dMMSE's limits — no pairs: the pool's mean; one task: that task; sigma^2 -> 0: the task that fits") {
    task_pool::Knobs k;
    k.dim = 3;
    k.context = 6;
    k.tasks = 5;
    k.noise_var = 0.0;
    auto pool = task_pool::make_pool(k, 4);
    REQUIRE(pool.ok());
    const auto seqs = task_pool::sample(k, pool.value(), task_pool::Source::pool, 3, 9);
    for (const auto& s : seqs) {
        const std::vector<double> w0 = dmmse_weights(pool.value(), s.x, s.y.data(), 0, 0.25);
        for (int c = 0; c < k.dim; ++c) {
            double mean = 0;
            for (int i = 0; i < k.tasks; ++i) mean += (double)pool.value()(i, c) / k.tasks;
            CHECK(w0[(size_t)c] == doctest::Approx(mean).epsilon(1e-12));
        }
        // noise-free data from task s.task: after any pair, σ² = 0 puts all weight on it
        const std::vector<double> post = dmmse_posterior(pool.value(), s.x, s.y.data(), 2, 0.0);
        for (int i = 0; i < k.tasks; ++i) CHECK(post[(size_t)i] == (i == s.task ? 1.0 : 0.0));
        // a pool of one task predicts with it whatever the data
        Matrix one = matrix(1, k.dim);
        for (int c = 0; c < k.dim; ++c) one(0, c) = 0.5f * (float)c - 1.0f;
        const std::vector<double> p = dmmse_predictions(one, s.x, s.y.data(), 0.25);
        for (int j = 0; j < k.context; ++j)
            CHECK(p[(size_t)j] == doctest::Approx(dot(row(one, 0), row(s.x, j), k.dim)).epsilon(1e-6));
    }
}

TEST_CASE("task pool: the pool is N(0, 1), grows by prefix, and sequences pick its tasks uniformly with noise variance sigma^2") {
    task_pool::Knobs k;
    k.tasks = 2048;
    k.dim = 8;
    auto big = task_pool::make_pool(k, 11);
    REQUIRE(big.ok());
    double mean = 0, sq = 0;
    for (float v : big.value().storage()) mean += v, sq += (double)v * v;
    const double n = (double)big.value().size();
    CHECK(std::fabs(mean / n) < 4.0 / std::sqrt(n));
    CHECK(std::fabs(sq / n - 1.0) < 4.0 * std::sqrt(2.0 / n));
    k.tasks = 16;
    auto small = task_pool::make_pool(k, 11);
    REQUIRE(small.ok());
    for (int i = 0; i < 16; ++i)
        for (int c = 0; c < 8; ++c) CHECK(small.value()(i, c) == big.value()(i, c));

    const auto seqs = task_pool::sample(k, small.value(), task_pool::Source::pool, 2000, 12);
    std::vector<long> counts(16, 0);
    double res2 = 0, x2 = 0;
    long pairs = 0;
    for (const auto& s : seqs) {
        if (s.task < 0 || s.task >= 16) REQUIRE((s.task >= 0 && s.task < 16));
        ++counts[(size_t)s.task];
        for (int c = 0; c < k.dim; ++c) ICL_CHECK_EACH(s.w[(size_t)c] == small.value()(s.task, c));
        for (int j = 0; j < k.context; ++j, ++pairs) {
            const double r = s.y[(size_t)j] - dot(s.w.data(), row(s.x, j), k.dim);
            res2 += r * r;
            for (int c = 0; c < k.dim; ++c) x2 += (double)s.x(j, c) * s.x(j, c);
        }
    }
    int dof = 0;
    const double chi = test::chi_square(counts, std::vector<double>(16, 1.0 / 16), &dof);
    CHECK(dof == 15);
    CHECK(chi < test::chi_square_critical_999(dof));
    CHECK(res2 / pairs == doctest::Approx(k.noise_var).epsilon(4.0 * std::sqrt(2.0 / pairs)));
    CHECK(x2 / (pairs * k.dim) == doctest::Approx(1.0).epsilon(4.0 * std::sqrt(2.0 / (pairs * k.dim))));
}

TEST_CASE("task pool: same seed, same sequences; fresh tasks are not the pool's; the vector form interleaves (x, 0) and (0, y)") {
    task_pool::Knobs k;
    k.dim = 4;
    k.context = 5;
    k.tasks = 3;
    const Matrix pool = task_pool::make_pool(k, 1).value();
    const auto a = task_pool::sample(k, pool, task_pool::Source::pool, 6, 77);
    const auto b = task_pool::sample(k, pool, task_pool::Source::pool, 6, 77);
    const auto c = task_pool::sample(k, pool, task_pool::Source::pool, 6, 78);
    bool differs = false;
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].task == b[i].task);
        CHECK(a[i].y == b[i].y);
        CHECK(a[i].x == b[i].x);
        differs = differs || a[i].y != c[i].y;
    }
    CHECK(differs);
    for (const auto& s : task_pool::sample(k, pool, task_pool::Source::fresh, 5, 3)) {
        CHECK(s.task == -1);
        for (int i = 0; i < k.tasks; ++i) CHECK(s.w[0] != pool(i, 0));
    }
    const Matrix v = task_pool::vectors(a[0]);
    REQUIRE(rows(v) == 2 * k.context);
    REQUIRE(cols(v) == k.dim + 1);
    for (int j = 0; j < k.context; ++j) {
        for (int c = 0; c < k.dim; ++c) {
            CHECK(v(2 * j, c) == a[0].x(j, c));
            CHECK(v(2 * j + 1, c) == 0.0f);
        }
        CHECK(v(2 * j, k.dim) == 0.0f);
        CHECK(v(2 * j + 1, k.dim) == a[0].y[(size_t)j]);
    }
}

TEST_CASE("task pool: bad knobs are errors naming the knob") {
    task_pool::Knobs k;
    k.tasks = 0;
    auto p = task_pool::make_pool(k, 1);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message == "task pool: tasks = 0 is out of range: expected an integer in [1, 1048576]");
    k = {};
    k.noise_var = std::nan("");
    CHECK(task_pool::validate(k).error().message.find("noise_var = nan") != std::string::npos);
    k = {};
    k.dim = 300;
    CHECK(task_pool::validate(k).error().message.find("dim = 300") != std::string::npos);
}

// Linear probes (icl/linear_probe.h) against numpy's augmented least squares
// (tests/golden/make_theory_fixture.py), and the properties R² must have.
#include <doctest/doctest.h>

#include <cmath>

#include "icl/linear_probe.h"
#include "icl/rng.h"
#include "theory_fixture.h"

using namespace icl;

TEST_CASE("linear probe: ridge weights, intercept and R^2 (train and held out) match numpy") {
    const auto fx = test::read_theory_fixture();
    REQUIRE_MESSAGE(fx.count("probe_features"), "tests/golden/theory_baselines.txt is missing or malformed");
    auto probe = fit_linear_probe(fx.at("probe_features").as_matrix(), fx.at("probe_targets").as_matrix(),
                                  fx.at("probe_lambda").v[0]);
    REQUIRE(probe.ok());
    const auto& w = fx.at("probe_weights");
    REQUIRE(rows(probe.value().weights) == w.rows);
    REQUIRE(cols(probe.value().weights) == w.cols);
    for (size_t i = 0; i < w.v.size(); ++i) CHECK(probe.value().weights.data()[i] == doctest::Approx(w.v[i]).epsilon(1e-6));
    for (int c = 0; c < w.cols; ++c) CHECK(probe.value().bias[(size_t)c] == doctest::Approx(fx.at("probe_bias").v[(size_t)c]).epsilon(1e-6));
    for (const char* set : {"train", "test"}) {
        CAPTURE(set);
        const std::string suffix = std::string(set) == "train" ? "" : "_test";
        auto score = probe_r2(probe.value(), fx.at("probe_features" + suffix).as_matrix(), fx.at("probe_targets" + suffix).as_matrix());
        REQUIRE(score.ok());
        const auto& want = fx.at(std::string("probe_r2_") + set).v;
        CHECK(score.value().r2 == doctest::Approx(want[0]).epsilon(1e-6));
        for (int c = 0; c < w.cols; ++c) CHECK(score.value().r2_per_target[(size_t)c] == doctest::Approx(want[(size_t)c + 1]).epsilon(1e-6));
    }
}

TEST_CASE("linear probe: an exact linear target gives R^2 = 1, an unrelated one about 0 on fresh rows, a constant one NaN") {
    Rng rng(5);
    const int n = 200, p = 6;
    Matrix f = matrix(n, p), t = matrix(n, 3), f2 = matrix(n, p), t2 = matrix(n, 3);
    for (Matrix* m : {&f, &f2}) for (float& v : m->storage()) v = rng.normal();
    for (int i = 0; i < n; ++i) {
        t(i, 0) = 2.0f * f(i, 0) - f(i, 3) + 0.5f;  // linear in the features
        t(i, 1) = rng.normal();                        // unrelated
        t(i, 2) = 3.0f;                                // constant
        t2(i, 0) = 2.0f * f2(i, 0) - f2(i, 3) + 0.5f;
        t2(i, 1) = rng.normal();
        t2(i, 2) = 3.0f;
    }
    auto probe = fit_linear_probe(f, t, 1e-9);
    REQUIRE(probe.ok());
    CHECK(probe.value().weights(0, 0) == doctest::Approx(2.0).epsilon(1e-5));
    CHECK(probe.value().weights(3, 0) == doctest::Approx(-1.0).epsilon(1e-5));
    CHECK(probe.value().bias[0] == doctest::Approx(0.5).epsilon(1e-5));
    auto held = probe_r2(probe.value(), f2, t2);
    REQUIRE(held.ok());
    CHECK(held.value().r2_per_target[0] == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(held.value().r2_per_target[1] < 0.05);
    CHECK(held.value().r2_per_target[1] > -0.15);
    CHECK(std::isnan(held.value().r2_per_target[2]));
    const Matrix pred = probe_predict(probe.value(), f2);
    for (int i = 0; i < 5; ++i) CHECK(pred(i, 0) == doctest::Approx(t2(i, 0)).epsilon(1e-5));
    // a larger λ shrinks the weights
    auto shrunk = fit_linear_probe(f, t, 1e3);
    REQUIRE(shrunk.ok());
    CHECK(std::fabs(shrunk.value().weights(0, 0)) < 0.5 * std::fabs(probe.value().weights(0, 0)));
}

TEST_CASE("linear probe: mismatched rows, too few rows, collinear features at lambda 0 and NaN are errors naming the problem") {
    Matrix f = matrix(4, 2), t = matrix(3, 1);
    CHECK(fit_linear_probe(f, t, 0.1).error().message.find("rows differ") != std::string::npos);
    CHECK(fit_linear_probe(matrix(1, 2), matrix(1, 1), 0.1).error().message.find("at least two rows") != std::string::npos);
    Matrix col = matrix(5, 2);
    for (int i = 0; i < 5; ++i) col(i, 0) = (float)i, col(i, 1) = 2.0f * (float)i;  // second = 2 x first
    auto singular = fit_linear_probe(col, matrix(5, 1), 0.0);
    REQUIRE_FALSE(singular.ok());
    CHECK(singular.error().message.find("collinear") != std::string::npos);
    CHECK(fit_linear_probe(col, matrix(5, 1), 0.1).ok());
    col(2, 1) = std::nanf("");
    CHECK(fit_linear_probe(col, matrix(5, 1), 0.1).error().message.find("not finite") != std::string::npos);
    CHECK(fit_linear_probe(f, matrix(4, 1), -1).error().message.find("lambda") != std::string::npos);
    auto ok = fit_linear_probe(f, matrix(4, 1), 0.1);
    REQUIRE(ok.ok());
    CHECK(probe_r2(ok.value(), matrix(4, 3), matrix(4, 1)).error().message.find("cannot score") != std::string::npos);
}

TEST_CASE("linear probe over splits: an exact linear target scores R^2 1 and error 0 on every held-out part, noise alone about 0; too few rows is an error") {
    const int n = 64, p = 3;
    Rng rng(7, 1);
    Matrix f = matrix(n, p), exact = matrix(n, 1), noise = matrix(n, 1);
    for (int i = 0; i < n; ++i) {
        double y = 0.5;
        for (int c = 0; c < p; ++c) {
            f(i, c) = (float)rng.normal();
            y += (c + 1.0) * f(i, c);
        }
        exact(i, 0) = (float)y;
        noise(i, 0) = (float)rng.normal();
    }
    auto fit = probe_over_splits(f, exact, 1e-9, 5, 3);
    REQUIRE(fit.ok());
    CHECK(fit.value().r2.mean == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(fit.value().r2.sd < 1e-5);
    CHECK(fit.value().mse.mean < 1e-8);
    auto none = probe_over_splits(f, noise, 1e-9, 5, 3);
    REQUIRE(none.ok());
    CHECK(none.value().r2.mean < 0.2);
    CHECK(none.value().mse.mean > 0.3);
    // The splits differ: their R² spread is not zero on a noise target.
    CHECK(none.value().r2.sd > 0);
    CHECK_FALSE(probe_over_splits(matrix(7, p), matrix(7, 1), 0.1, 3, 1).ok());
}

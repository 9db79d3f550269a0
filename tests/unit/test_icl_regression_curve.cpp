#include <doctest/doctest.h>

#include "demo_testing.h"

using namespace icl;
using icl::testing::scalar;

TEST_CASE("icl_regression_curve: least squares ~0 at k = d, averaging and 3-NN clearly worse, zero predictor 1 at k = 0") {
    const Result r = testing::run_demo("icl_regression_curve", {{"d", 5}, {"n_tasks", 800}, {"train_steps", 300}});
    REQUIRE(r.error.empty());
    CHECK(scalar(r, "lstsq_at_d") < 1e-6);
    CHECK(scalar(r, "error_at_0") == doctest::Approx(1.0).epsilon(0.15));
    CHECK(scalar(r, "avg_at_d") > 0.3);
    CHECK(scalar(r, "knn3_at_d") > 0.3);
    CHECK(scalar(r, "gd_at_d") < scalar(r, "error_at_0"));
    CHECK(scalar(r, "lsa_at_d") < 0.9 * scalar(r, "error_at_0"));
    CHECK(scalar(r, "lsa_steps") == 300);
    const auto& lines = std::get<LinesPanel>(r.panels[1]);
    CHECK(lines.series[0].x.size() == 11);  // k = 0..2d
}

TEST_CASE("icl_regression_curve: with noise least squares is no longer exact; ridge then beats it at k = d") {
    const Result r = testing::run_demo("icl_regression_curve",
                                       {{"d", 5}, {"n_tasks", 800}, {"train_steps", 0}, {"noise", 0.5}, {"ridge_lambda", 1.25}});
    CHECK(scalar(r, "lstsq_at_d") > 0.05);
    CHECK(scalar(r, "ridge_at_d") < scalar(r, "lstsq_at_d"));
}

TEST_CASE("icl_regression_curve: with noise, least squares' mean at k = d is not a number to read; its median is") {
    // Gaussian design, noise σ: E[(ŷ − y)²] = σ² (1 + d / (k − d − 1)) for k ≥ d + 2 (the
    // inverse-Wishart mean); at k = d and d + 1 it is infinite, so the mean over tasks is
    // set by the worst task drawn and jumps with the seed while the median stays put.
    const double sigma = 0.5;
    const int d = 5;
    const nlohmann::json p = {{"d", d}, {"n_tasks", 800}, {"train_steps", 0}, {"noise", sigma}};
    const Result a = testing::run_demo("icl_regression_curve", p);
    const Result b = testing::run_demo("icl_regression_curve", p, "en", 2);
    const auto& lines = std::get<LinesPanel>(a.panels[1]);
    CHECK(lines.series[0].y[2 * d] == doctest::Approx(sigma * sigma * (1 + double(d) / (d - 1)) / d).epsilon(0.25));
    const double med_a = scalar(a, "lstsq_at_d_median"), med_b = scalar(b, "lstsq_at_d_median");
    CHECK(med_a == doctest::Approx(med_b).epsilon(0.3));
    CHECK(scalar(a, "lstsq_at_d") > 5 * med_a);
    CHECK(scalar(b, "lstsq_at_d") > 5 * med_b);
}

TEST_CASE("icl_regression_curve: streams training steps, then one k per unit") {
    auto session = start_demo("icl_regression_curve", {{"d", 2}, {"n_tasks", 100}, {"train_steps", 10}}, Texts(), 3);
    REQUIRE(session.ok());
    auto& s = *session.value();
    s.step(12);  // 10 Adam steps, then k = 0 and 1
    CHECK_FALSE(s.done());
    CHECK(s.result().progress == doctest::Approx(12.0 / 15));
    CHECK(s.result().panels.size() == 1);  // scalars only until the curves are complete
    s.step(3);
    CHECK(s.done());
    CHECK(s.result().progress == doctest::Approx(1.0));
}

TEST_CASE("icl_regression_curve: bad input refused by name") {
    testing::expect_refused("icl_regression_curve", {{"d", 1}}, {"d", "[2, 20]"});
    testing::expect_refused("icl_regression_curve", {{"gd_step", "adaptive"}}, {"gd_step", "best_per_k", "fixed"});
    testing::expect_refused("icl_regression_curve", {{"train_steps", 6000}}, {"train_steps", "[0, 5000]"});
    testing::check_scalar_names_stable("icl_regression_curve", {{"d", 3}, {"n_tasks", 100}, {"train_steps", 20}});
}

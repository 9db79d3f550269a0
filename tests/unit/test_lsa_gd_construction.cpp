#include <doctest/doctest.h>

#include "demo_testing.h"

using namespace icl;
using icl::testing::scalar;

TEST_CASE("lsa_gd_construction: the constructed layer equals one GD step; the loss curve bottoms near 0.2 at eta near 6") {
    const Result r = testing::run_demo("lsa_gd_construction", {{"n_tasks", 4000}});
    CHECK(r.error.empty());
    CHECK(scalar(r, "max_abs_diff") < 1e-5);
    // von Oswald et al. 2023: one-step GD loss ≈ 0.2 for d = N = 10, x ~ U(−0.5, 0.5).
    CHECK(scalar(r, "gd_loss_min") == doctest::Approx(0.20).epsilon(0.1));
    CHECK(scalar(r, "eta_best") >= 4.5);
    CHECK(scalar(r, "eta_best") <= 8.0);
    // Predicting 0: E ½ (w·x)² = ½ d Var(x) = ½ · 10/12.
    CHECK(scalar(r, "zero_loss") == doctest::Approx(10.0 / 24.0).epsilon(0.05));
    CHECK(testing::count_panels<HeatmapPanel>(r) == 4);
}

TEST_CASE("lsa_gd_construction: identity holds away from the defaults; bad input refused by name") {
    const Result r = testing::run_demo("lsa_gd_construction",
                                       {{"d", 20}, {"n_context", 40}, {"eta", 13.3}, {"x_range", 1.0}, {"n_tasks", 200}});
    CHECK(scalar(r, "max_abs_diff") < 1e-4 * (1.0 + scalar(r, "zero_loss")));
    testing::expect_refused("lsa_gd_construction", {{"d", 21}}, {"d", "[1, 20]"});
    testing::expect_refused("lsa_gd_construction", {{"n_context", 0}}, {"n_context", "[1, 40]"});
    testing::expect_refused("lsa_gd_construction", {{"eta", -1}}, {"eta", "[0, 20]"});
    testing::expect_refused("lsa_gd_construction", {{"n_tasks", "many"}}, {"n_tasks", "not a number"});
    testing::check_scalar_names_stable("lsa_gd_construction", {{"n_tasks", 200}});
}

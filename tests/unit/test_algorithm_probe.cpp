// algorithm_probe and its checkpoint recipe (data "regression"): the probe's closed form
// against the normal equations solved here, the recipe's determinism, and the demo's
// numbers against what a trained and an untrained model must show.
#include <doctest/doctest.h>

#include <cmath>
#include <ctime>

#include "icl/gpt.h"
#include "icl/linalg.h"
#include "icl/linear_probe.h"
#include "icl/recipe.h"
#include "icl/rng.h"

#include "demo_testing.h"

using namespace icl;
using namespace icl::testing;

TEST_CASE("linear probe: the ridge fit with an unpenalised intercept solves the augmented normal equations") {
    // [FᵀF + λ I₀, Fᵀ1; 1ᵀF, n] [W; b] = [FᵀT; 1ᵀT], I₀ the identity on the weights only:
    // solved here by Gaussian elimination (solve_linear), column by column.
    Rng rng(11);
    const int n = 40, p = 5, t = 2;
    const double lambda = 0.7;
    Matrix f = matrix(n, p), y = matrix(n, t);
    for (float& v : f.storage()) v = rng.normal() + 0.3f;
    for (int i = 0; i < n; ++i) {
        y(i, 0) = f(i, 1) - 2 * f(i, 4) + 0.5f * rng.normal();
        y(i, 1) = 3 + f(i, 0) * f(i, 2);  // not linear in f: the fit is still the closed form
    }
    auto probe = fit_linear_probe(f, y, lambda);
    REQUIRE(probe.ok());
    const int m = p + 1;
    for (int c = 0; c < t; ++c) {
        std::vector<double> a((size_t)m * m, 0.0), b((size_t)m, 0.0);
        for (int i = 0; i < n; ++i) {
            std::vector<double> row((size_t)m, 1.0);
            for (int j = 0; j < p; ++j) row[(size_t)j] = f(i, j);
            for (int j = 0; j < m; ++j) {
                b[(size_t)j] += row[(size_t)j] * y(i, c);
                for (int k = 0; k < m; ++k) a[(size_t)j * m + k] += row[(size_t)j] * row[(size_t)k];
            }
        }
        for (int j = 0; j < p; ++j) a[(size_t)j * m + j] += lambda;
        auto z = solve_linear(a, b, m);
        REQUIRE(z.ok());
        for (int j = 0; j < p; ++j) CHECK(probe.value().weights(j, c) == doctest::Approx(z.value()[(size_t)j]).epsilon(1e-4));
        CHECK(probe.value().bias[(size_t)c] == doctest::Approx(z.value()[(size_t)p]).epsilon(1e-4));
    }
}

TEST_CASE("recipe: a regression recipe builds a vector-in, vector-out model and trains deterministically") {
    use_shipped_lessons();
    auto shipped = recipe::load_shipped("regression");
    REQUIRE_MESSAGE(shipped.ok(), (shipped.ok() ? "" : shipped.error().message));
    recipe::Recipe r = shipped.value();
    const gpt::Config& c = r.model;
    CHECK_FALSE(c.token_input);
    CHECK_FALSE(c.token_output);
    CHECK(c.input_dim == r.regression.dim + 1);
    CHECK(c.output_dim == 1);
    CHECK(c.context == 2 * r.regression.pairs);
    // the shipped recipe shortened to a few steps: two runs give the same bits
    r.steps = 12;
    std::vector<float> params[2];
    float loss[2] = {0, 0};
    for (int run = 0; run < 2; ++run) {
        auto t = recipe::Training::make(r);
        REQUIRE(t.ok());
        for (int s = 0; s < r.steps; ++s) {
            auto l = t.value()->step();
            REQUIRE(l.ok());
            loss[run] = l.value();
        }
        params[run] = t.value()->model().params;
    }
    CHECK(params[0] == params[1]);
    CHECK(loss[0] == loss[1]);
    auto bad = recipe::parse(R"({"name": "x", "data": "regression", "regression": {"pairs": 1}})", "r.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("r.json: regression.pairs") != std::string::npos);
    auto bad_only = recipe::parse(R"({"name": "x", "model": {"attention_only": 1}})", "r.json");
    REQUIRE_FALSE(bad_only.ok());
    CHECK(bad_only.error().message.find("model.attention_only must be true or false") != std::string::npos);
}

TEST_CASE("recipe: a regression batch puts x_k then y_k in Garg's encoding and scores the x positions") {
    recipe::RegressionSpec spec;
    spec.dim = 3;
    spec.pairs = 4;
    std::vector<float> v, t;
    std::vector<uint8_t> mask;
    const auto seqs = recipe::regression_batch(spec, 2, 5, v, t, mask);
    REQUIRE(seqs.size() == 2u);
    const int T = 8, D1 = 4;
    for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 4; ++k) {
            const float* x = &v[((size_t)b * T + 2 * k) * D1];
            const float* y = &v[((size_t)b * T + 2 * k + 1) * D1];
            double wx = 0;
            for (int c = 0; c < 3; ++c) {
                CHECK(x[c] == seqs[(size_t)b].x(k, c));
                CHECK(y[c] == 0.0f);
                wx += (double)seqs[(size_t)b].w[(size_t)c] * x[c];
            }
            CHECK(x[3] == 0.0f);
            CHECK(y[3] == seqs[(size_t)b].y[(size_t)k]);
            CHECK(t[(size_t)b * T + 2 * k] == y[3]);
            CHECK(mask[(size_t)b * T + 2 * k] == 1);
            CHECK(mask[(size_t)b * T + 2 * k + 1] == 0);
            CHECK(std::fabs(y[3] - wx) < 5 * std::sqrt(spec.noise_var));  // y = w·x + N(0, σ²)
        }
}

TEST_CASE("algorithm_probe: the trained model holds w_OLS and Xᵀy linearly where its untrained start does not") {
    const Result r = run_demo("algorithm_probe", {{"prompts", 256}, {"splits", 5}});
    CHECK(count_panels<LinesPanel>(r) == 2);
    CHECK(count_panels<TablePanel>(r) == 2);
    // the untrained model's stream holds no product of x and y: its probes read nothing
    CHECK(scalar(r, "untrained_r2_ols_last") < 0.05);
    CHECK(scalar(r, "untrained_r2_xty_last") < 0.05);
    CHECK(scalar(r, "r2_ols_last") > scalar(r, "untrained_r2_ols_last") + 0.1);
    CHECK(scalar(r, "r2_xty_last") > scalar(r, "untrained_r2_xty_last") + 0.05);
    // the model predicts: its error is within three times least squares' on the same prompts,
    // and the last layer's y_q probe is better than the first's
    CHECK(scalar(r, "model_error") < 3 * scalar(r, "ols_error"));
    CHECK(scalar(r, "probe_error_layer3") < 0.5 * scalar(r, "probe_error_layer1"));
}

TEST_CASE("algorithm_probe: within the analytic budget at its largest settings; Korean catalogue complete; bad input refused") {
    // An edit of the probes (λ, splits, position) after a run on the same prompts: the
    // forward passes are kept, the probes are refitted. A new prompt count pays the
    // forward passes again (reported, not held to the budget).
    const std::clock_t t0 = std::clock();  // processor time: a loaded machine does not move it much
    run_demo("algorithm_probe", {{"prompts", 256}, {"splits", 2}}, "en", 3);
    const double first_ms = 1000.0 * double(std::clock() - t0) / CLOCKS_PER_SEC;
    const std::clock_t t1 = std::clock();
    const Result ko = run_demo("algorithm_probe", {{"prompts", 256}, {"splits", 5}, {"position", "query"}, {"probe_lambda", 10}}, "ko", 3);
    const double ms = 1000.0 * double(std::clock() - t1) / CLOCKS_PER_SEC;
    CHECK(ko.done);
    INFO("algorithm_probe: a run on new prompts " << first_ms << " ms, an edit of the probes at the largest settings "
                                                   << ms << " ms of processor time");
    if (!kSanitized && !kWasm) CHECK(ms < 50.0);  // the analytic demos' budget per edit
    expect_refused("algorithm_probe", {{"prompts", 2000}}, {"prompts", "[64, 256]"});
    expect_refused("algorithm_probe", {{"position", "first"}}, {"position", "last_y"});
    check_scalar_names_stable("algorithm_probe", {{"prompts", 128}, {"splits", 2}});
}

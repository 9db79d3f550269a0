#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "demo_testing.h"
#include "icl/dual_form.h"
#include "icl/rng.h"

using namespace icl;
using icl::testing::scalar;

namespace {

Matrix random_mat(Rng& rng, int r, int c, float std) {
    Matrix m = matrix(r, c);
    for (float& x : m.storage()) x = rng.normal(0.0f, std);
    return m;
}

}  // namespace

TEST_CASE("dual_form: SGD weights match an independent double-precision SGD, and W - W0 = sum e_t x_t^T") {
    Rng rng(11);
    const int d_in = 6, d_out = 3, n = 9, epochs = 3;
    const float lr = 0.2f;
    const Matrix w0 = random_mat(rng, d_out, d_in, 0.3f), x = random_mat(rng, n, d_in, 0.4f),
              y = random_mat(rng, n, d_out, 1.0f);
    LinearTrainConfig cfg;
    cfg.optimizer = plain_sgd(lr);
    cfg.epochs = epochs;
    const LinearLayerRun run = train_linear_layer(w0, x, y, cfg);
    REQUIRE(rows(run.keys) == n * epochs);

    // Plain SGD in double, written out here from the loss ½||Wx − y||².
    std::vector<double> w(w0.storage().begin(), w0.storage().end());
    for (int e = 0; e < epochs; ++e)
        for (int i = 0; i < n; ++i)
            for (int o = 0; o < d_out; ++o) {
                double pred = 0;
                for (int c = 0; c < d_in; ++c) pred += w[o * d_in + c] * x(i, c);
                const double g = pred - y(i, o);
                for (int c = 0; c < d_in; ++c) w[o * d_in + c] -= lr * g * x(i, c);
            }
    for (size_t k = 0; k < w.size(); ++k) CHECK(run.w.storage()[k] == doctest::Approx(w[k]).epsilon(1e-5));

    // W0 + E Kᵀ as an explicit matrix product in double, from the recorded keys/values.
    for (int o = 0; o < d_out; ++o)
        for (int c = 0; c < d_in; ++c) {
            double s = w0(o, c);
            for (int t = 0; t < rows(run.keys); ++t) s += double(run.values(t, o)) * run.keys(t, c);
            CHECK(s == doctest::Approx(w[o * d_in + c]).epsilon(1e-5));
        }

    // Primal and dual outputs at fresh inputs.
    for (int j = 0; j < 5; ++j) {
        std::vector<float> q(d_in);
        for (float& v : q) v = rng.normal(0.0f, 0.4f);
        const auto p = primal_output(run, q.data()), dl = dual_output(run, q.data());
        for (int o = 0; o < d_out; ++o) CHECK(std::fabs(p[o] - dl[o]) < 1e-5 * (1.0 + std::fabs(p[o])));
    }
}

TEST_CASE("dual_form demo: SGD identity holds to float precision; Adam breaks it clearly") {
    const Result sgd = testing::run_demo("dual_form", {{"optimizer", "sgd"}, {"epochs", 5}, {"n_train", 40}});
    CHECK(sgd.error.empty());
    CHECK(scalar(sgd, "rel_diff") < 1e-5);
    CHECK(scalar(sgd, "updates") == 200);
    const Result adam = testing::run_demo("dual_form", {{"optimizer", "adam"}, {"epochs", 5}, {"n_train", 40}});
    CHECK(adam.error.empty());
    CHECK(scalar(adam, "rel_diff") > 1e-2);
    CHECK(scalar(adam, "rel_diff") > 1000 * scalar(sgd, "rel_diff"));
    // The heatmap is training patterns × test inputs.
    const auto* h = std::get_if<HeatmapPanel>(&sgd.panels[1]);
    REQUIRE(h != nullptr);
    CHECK(h->rows == 40);
    CHECK(h->cols == 6);
}

TEST_CASE("dual_form demo: the largest problem runs and keeps the identity") {
    const Result big = testing::run_demo("dual_form", {{"d_in", 32}, {"d_out", 8}, {"n_train", 64}, {"n_test", 16}, {"epochs", 20}});
    CHECK(big.error.empty());
    CHECK(scalar(big, "rel_diff") < 1e-5);
}

TEST_CASE("dual_form demo: bad parameters are refused by name") {
    testing::expect_refused("dual_form", {{"d_in", 0}}, {"d_in", "[1, 32]"});
    testing::expect_refused("dual_form", {{"n_train", 65}}, {"n_train", "[1, 64]"});
    testing::expect_refused("dual_form", {{"lr", 2.5}}, {"lr"});
    testing::expect_refused("dual_form", {{"optimizer", "rmsprop"}}, {"optimizer", "sgd", "adam"});
    testing::expect_refused("dual_form", {{"epochs", 1.5}}, {"epochs", "integer"});
    testing::check_scalar_names_stable("dual_form", nlohmann::json::object());
}

// task_diversity_lab: its dMMSE and ridge curves are the closed forms of
// icl/regression_baselines.h on the very sequences the demo evaluates, and its model's
// error is the one a forward pass gives. The test encodes the sequences itself (Garg's
// encoding, one sequence at a time) and builds the untrained model (steps = 0, init_std =
// GPT-2's 0.02, which make_model draws) from the seed the demo documents: run seed = demo seed · 1000 + seed index, evaluation sequences
// from run seed + 7919.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "demo_testing.h"
#include "icl/gpt.h"
#include "icl/regression_baselines.h"
#include "icl/task_pool.h"

using namespace icl;
using icl::testing::scalar;
using nlohmann::json;

namespace {

const Series& series_at(const Result& r, size_t panel, size_t i) {
    REQUIRE(r.panels.size() > panel);
    const auto* lines = std::get_if<LinesPanel>(&r.panels[panel]);
    REQUIRE(lines != nullptr);
    REQUIRE(lines->series.size() == 3);
    return lines->series[i];
}

}  // namespace

TEST_CASE("task_diversity_lab: dMMSE and ridge curves are the closed forms, the model's error a forward pass's") {
    const int D = 3, K = 5, N = 16, M = 8;
    const double noise = 0.3;
    const json params = {{"log2_tasks", 3}, {"dim", D},  {"context", K},   {"noise_var", noise},
                         {"steps", 0},      {"seeds", 1}, {"eval_sequences", N}, {"width", 16},
                         {"layers", 1},     {"heads", 2},  {"init_std", 0.02}};
    const Result r = testing::run_demo("task_diversity_lab", params);
    CHECK(scalar(r, "tasks") == M);
    CHECK(scalar(r, "seeds_done") == 1);

    task_pool::Knobs k;
    k.dim = D;
    k.context = K;
    k.noise_var = noise;
    k.tasks = M;
    const uint64_t run_seed = 1000;
    const Matrix pool = task_pool::make_pool(k, run_seed).value();
    gpt::Config c;
    c.token_input = false;
    c.token_output = false;
    c.vocab = 2;
    c.input_dim = D + 1;
    c.output_dim = 1;
    c.context = 2 * K;
    c.width = 16;
    c.layers = 1;
    c.heads = 2;
    const gpt::Model model = gpt::make_model(c, run_seed).value();

    // panel 2: fresh tasks, panel 3: the pool's; series model, dMMSE, ridge
    for (const auto& ps : {std::pair{size_t{2}, task_pool::Source::fresh}, {size_t{3}, task_pool::Source::pool}}) {
        const size_t panel = ps.first;  // a structured binding cannot be captured in C++17
        const task_pool::Source source = ps.second;
        CAPTURE(panel);
        const auto seqs = task_pool::sample(k, pool, source, N, run_seed + 7919);
        std::vector<double> model_err(K, 0.0), dmmse_err(K, 0.0), ridge_err(K, 0.0);
        double to_dmmse = 0, to_ridge = 0;
        for (const auto& s : seqs) {
            std::vector<float> v((size_t)2 * K * (D + 1), 0.0f);
            for (int i = 0; i < K; ++i) {
                for (int j = 0; j < D; ++j) v[(size_t)(2 * i) * (D + 1) + j] = s.x(i, j);
                v[(size_t)(2 * i + 1) * (D + 1) + D] = s.y[(size_t)i];
            }
            gpt::Activations acts;
            gpt::Batch b;
            b.B = 1;
            b.T = 2 * K;
            b.vectors = v.data();
            REQUIRE(gpt::forward(model, acts, b).ok());
            const auto dm = dmmse_predictions(pool, s.x, s.y.data(), noise);
            const auto rg = ridge_predictions(s.x, s.y.data(), noise).value();
            for (int i = 0; i < K; ++i) {
                const double y = s.y[(size_t)i], f = acts.predictions()[2 * i];
                model_err[(size_t)i] += (f - y) * (f - y) / (N * D);
                dmmse_err[(size_t)i] += (dm[(size_t)i] - y) * (dm[(size_t)i] - y) / (N * D);
                ridge_err[(size_t)i] += (rg[(size_t)i] - y) * (rg[(size_t)i] - y) / (N * D);
                to_dmmse += (f - dm[(size_t)i]) * (f - dm[(size_t)i]) / ((double)N * D * K);
                to_ridge += (f - rg[(size_t)i]) * (f - rg[(size_t)i]) / ((double)N * D * K);
            }
        }
        for (int i = 0; i < K; ++i) {
            CAPTURE(i);
            CHECK(series_at(r, panel, 0).y[(size_t)i] == doctest::Approx(model_err[(size_t)i]).epsilon(1e-4));
            CHECK(series_at(r, panel, 1).y[(size_t)i] == doctest::Approx(dmmse_err[(size_t)i]).epsilon(1e-6));  // the result keeps ~7 digits
            CHECK(series_at(r, panel, 2).y[(size_t)i] == doctest::Approx(ridge_err[(size_t)i]).epsilon(1e-6));  // the result keeps ~7 digits
        }
        const std::string pre = panel == 2 ? "" : "pool_";
        CHECK(scalar(r, pre + "dist_dmmse") == doctest::Approx(to_dmmse).epsilon(1e-4));
        CHECK(scalar(r, pre + "dist_ridge") == doctest::Approx(to_ridge).epsilon(1e-4));
    }
    // With the pool's tasks, dMMSE knows the task set: after K − 1 pairs it errs less than
    // ridge does; on fresh tasks the other way round.
    CHECK(series_at(r, 3, 1).y.back() < series_at(r, 3, 2).y.back());
    CHECK(series_at(r, 2, 2).y.back() < series_at(r, 2, 1).y.back());
}

TEST_CASE("task_diversity_lab: bad knobs are refused with their names") {
    testing::expect_refused("task_diversity_lab", {{"width", 32}, {"heads", 3}, {"steps", 0}}, {"heads", "width"});
    testing::expect_refused("task_diversity_lab", {{"log2_tasks", 17}}, {"log2_tasks"});
}

TEST_CASE("task_diversity_lab: the headline says neither when the two distances agree within 10%") {
    // With 2^16 tasks in 4 dimensions the pool's posterior mean is ridge's to a fraction of
    // a percent, so no model can be nearer one of them.
    const Result r = testing::run_demo("task_diversity_lab", {{"log2_tasks", 16}, {"steps", 0}, {"seeds", 1}, {"eval_sequences", 32}});
    const double ratio = scalar(r, "dist_ridge") / scalar(r, "dist_dmmse");
    CHECK(std::fabs(std::log2(ratio)) < std::log2(1.1));
    const auto& head = std::get<ScalarsPanel>(r.panels.front());
    CHECK(head.title == testing::texts("en", "task_diversity_lab")("headline.tie", {{"n", 1}}));
    // With 1 task, dMMSE knows w before any pair and ridge does not: the two are far apart,
    // and the headline names the one the model is nearer.
    const Result one = testing::run_demo("task_diversity_lab", {{"log2_tasks", 0}, {"steps", 0}, {"seeds", 1}, {"eval_sequences", 32}});
    CHECK(std::get<ScalarsPanel>(one.panels.front()).title != testing::texts("en", "task_diversity_lab")("headline.tie", {{"n", 1}}));
}

TEST_CASE("task_diversity_lab: trained with its defaults, the model follows dMMSE at M = 2 and regresses on the context at M = 2^10") {
    // One seed of the default run (D = 4, K = 8, 1500 steps), a small evaluation.
    const int D = 4;
    const double noise = 0.25;
    // With two tasks, dMMSE names one of them after a pair or two; ridge, over fresh tasks,
    // predicts something else. A model that learnt the pool is nearer dMMSE there (an
    // untrained one, answering about 0, is nearer ridge, whose answers are smaller).
    const Result two = testing::run_demo("task_diversity_lab", {{"log2_tasks", 1}, {"seeds", 1}, {"eval_sequences", 64}});
    CHECK(scalar(two, "dist_dmmse") < scalar(two, "dist_ridge"));
    // With 2^10 tasks the model must read the context: its error on fresh tasks is nearer
    // ridge's than that of answering y = 0 for every query, E[y²] / D = (D + σ²) / D.
    const Result many = testing::run_demo("task_diversity_lab", {{"log2_tasks", 10}, {"seeds", 1}, {"eval_sequences", 64}});
    const double zero = (D + noise) / D, ridge = scalar(many, "ridge_error"), model = scalar(many, "model_error");
    CHECK(ridge < 0.6 * zero);  // the two references are far apart, so the comparison says something
    CHECK(model - ridge < 0.5 * (zero - ridge));
}

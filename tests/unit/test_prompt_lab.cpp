// prompt_lab: its distribution is a full forward pass of the shipped task
// model on the same tokens, its continuation is what repeated full forwards pick, and
// an unknown word is refused by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "demo_testing.h"
#include "icl/assets.h"
#include "icl/gpt.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace {

// Softmax of the last position of a full forward over `words` (after BOS).
std::vector<double> full_forward_probs(const icl::gpt::Model& m, const std::vector<int>& tokens,
                                       const icl::gpt::Hooks* hooks = nullptr) {
    icl::gpt::Activations acts;
    REQUIRE(icl::gpt::forward(m, acts, tokens.data(), nullptr, 1, (int)tokens.size(), hooks));
    const int V = m.config.vocab;
    const float* l = acts.logits_ptr() + (tokens.size() - 1) * V;
    double mx = *std::max_element(l, l + V), z = 0;
    std::vector<double> p(V);
    for (int v = 0; v < V; ++v) z += p[v] = std::exp((double)l[v] - mx);
    for (double& x : p) x /= z;
    return p;
}

std::vector<int> ids(const std::vector<std::string>& words) {
    std::vector<int> t = {icl::tasks::kBos};
    for (const auto& w : words) t.push_back(icl::tasks::suite().find_word(w));
    return t;
}

void check_bars_match(const icl::Result& r, const std::vector<double>& p) {
    const auto& bars = std::get<icl::BarsPanel>(r.panels[1]);
    REQUIRE(bars.labels.size() == 10);
    std::vector<int> order(p.size());
    for (size_t i = 0; i < p.size(); ++i) order[i] = (int)i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
    for (int i = 0; i < 10; ++i) {
        CHECK(bars.labels[i] == icl::tasks::suite().words[order[i]]);
        CHECK(bars.values[i] == doctest::Approx(p[order[i]]).epsilon(1e-5));
    }
}

}  // namespace

TEST_CASE("prompt_lab: the distribution is a full forward of the task model; the continuation is repeated full forwards") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    auto m = icl::recipe::load_shipped_model("tasks");
    REQUIRE(m);
    const auto r = icl::testing::run_demo("prompt_lab", {{"prompt", "hot -> cold ; big -> small ; fast ->"}, {"continue", 5}});
    const std::vector<int> prompt = ids({"hot", "→", "cold", ";", "big", "→", "small", ";", "fast", "→"});
    check_bars_match(r, full_forward_probs(m.value(), prompt));
    // greedy continuation without a cache: argmax of a full forward, appended, five times
    std::vector<int> seq = prompt;
    std::string expected;
    for (int i = 0; i < 5; ++i) {
        const auto p = full_forward_probs(m.value(), seq);
        const int next = (int)(std::max_element(p.begin(), p.end()) - p.begin());
        seq.push_back(next);
        expected += (i ? " " : "") + icl::tasks::suite().words[next];
    }
    const auto& gen = std::get<icl::TablePanel>(r.panels.at(7));
    REQUIRE(gen.rows.size() == 1);
    CHECK(gen.rows[0][1] == expected);
    CHECK(icl::testing::scalar(r, "demonstrations") == 2);
    CHECK(icl::testing::scalar(r, "follows_label") == -1);  // fast's label is not in the prompt
}

TEST_CASE("prompt_lab: an ablated head is the forward with that head zeroed; an invented mapping; unknown words refused") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    auto m = icl::recipe::load_shipped_model("tasks");
    REQUIRE(m);
    const auto r = icl::testing::run_demo("prompt_lab", {{"prompt", "dog -> Paris ; cat -> Tokyo ; dog ->"}, {"ablate", "L3H1, L2H0"},
                                                         {"continue", 0}});
    const std::vector<int> prompt = ids({"dog", "→", "Paris", ";", "cat", "→", "Tokyo", ";", "dog", "→"});
    icl::gpt::Hooks hooks;
    hooks.ablations = {{3, 1}, {2, 0}};
    const auto p = full_forward_probs(m.value(), prompt, &hooks);
    check_bars_match(r, p);
    CHECK(icl::testing::scalar(r, "label_in_context") == 1);
    CHECK(icl::testing::scalar(r, "p_answer") == doctest::Approx(p[icl::tasks::suite().find_word("Paris")]).epsilon(1e-5));
    const auto zs = full_forward_probs(m.value(), ids({"dog", "→"}), &hooks);  // the query alone
    CHECK(icl::testing::scalar(r, "p_answer_zero_shot") == doctest::Approx(zs[icl::tasks::suite().find_word("Paris")]).epsilon(1e-5));
    CHECK(icl::testing::scalar(r, "kl_options") > 0);
    icl::testing::expect_refused("prompt_lab", {{"prompt", "hot -> frigid ; fast ->"}},
                                 {"'frigid' (word 3) is not in the vocabulary; nearest: "});
    icl::testing::expect_refused("prompt_lab", {{"prompt", "   "}}, {"the prompt is empty"});
}

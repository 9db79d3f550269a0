// sequence_lab against sums computed here: the posterior over concepts and the
// Bayes-optimal next symbol by summing over every state path of every concept's HMM
// (hmm::brute_force_likelihood), and the model's next-symbol row against a forward pass
// of the prefix alone (a causal model cannot see what is typed after).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "demo_testing.h"
#include "icl/assets.h"
#include "icl/gpt.h"
#include "icl/hmm.h"
#include "icl/hmm_frequencies.h"
#include "icl/recipe.h"

using namespace icl;

TEST_CASE("sequence_lab: the posterior and the Bayes row are the brute-force sums; the model row is its forward pass") {
    set_asset_dir(ICL_SOURCE_DIR "/lessons");
    // Symbols a..j are 0..9; ';' ends a segment.
    const std::vector<std::vector<int>> segments = {{2, 2, 3, 2, 0, 4}};
    const std::vector<int> query = {2, 2, 3};
    const Result r = testing::run_demo("sequence_lab", {{"sequence", "c c d c a e ; C c d"}});
    REQUIRE(r.error.empty());
    const auto& post = std::get<HeatmapPanel>(r.panels.at(2));
    const auto& model = std::get<HeatmapPanel>(r.panels.at(3));
    const auto& bayes = std::get<HeatmapPanel>(r.panels.at(4));
    const int n = 10;  // tokens typed
    REQUIRE(post.rows == n);

    auto rec = recipe::load_shipped("hmm");
    REQUIRE(rec.ok());
    const hmm::Mixture m = rec.value().hmm.mixture();
    const int C = static_cast<int>(m.concepts.size()), O = m.symbols();
    REQUIRE(post.cols == C);
    std::vector<double> joint(C);
    double z = 0;
    for (int c = 0; c < C; ++c) {
        joint[c] = m.prior[c] * hmm::brute_force_likelihood(m.concepts[c], query);
        for (const auto& seg : segments) joint[c] *= hmm::brute_force_likelihood(m.concepts[c], seg);
        z += joint[c];
    }
    for (int c = 0; c < C; ++c)
        CHECK(post.values[static_cast<size_t>(n - 1) * C + c] == doctest::Approx(joint[c] / z).epsilon(1e-9));
    for (int o = 0; o < O; ++o) {
        std::vector<int> next = query;
        next.push_back(o);
        double p = 0;
        for (int c = 0; c < C; ++c)
            p += joint[c] / z * hmm::brute_force_likelihood(m.concepts[c], next) /
                 hmm::brute_force_likelihood(m.concepts[c], query);
        CHECK(bayes.values[static_cast<size_t>(n - 1) * O + o] == doctest::Approx(p).epsilon(1e-9));
    }
    // After the 6th symbol only ';' can follow: no Bayes row there.
    CHECK(std::isnan(bayes.values[static_cast<size_t>(5) * O]));

    // The model's row after token 3 ("c c d") from a forward pass of BOS c c d alone.
    auto gm = recipe::load_checkpoint(rec.value());
    REQUIRE(gm.ok());
    const std::vector<int> prefix = {hmm::kBos, hmm::token_of(2), hmm::token_of(2), hmm::token_of(3)};
    gpt::Activations acts;
    REQUIRE(gpt::forward(gm.value(), acts, prefix.data(), nullptr, 1, 4).ok());
    const int V = gm.value().config.vocab;
    const float* logits = acts.logits_ptr() + 3 * V;
    double mx = logits[0], zz = 0;
    for (int v = 1; v < V; ++v) mx = std::max(mx, double(logits[v]));
    for (int v = 0; v < V; ++v) zz += std::exp(logits[v] - mx);
    for (int o = 0; o < O; ++o)
        CHECK(model.values[static_cast<size_t>(2) * O + o] ==
              doctest::Approx(std::exp(logits[hmm::token_of(o)] - mx) / zz).epsilon(1e-4));

    // Surprisal: the mean of -ln p(symbol | what came before) over the 9 symbols is, by
    // the chain rule, -ln p(segment, query) / 9 under the mixture (z above); under the
    // model, each symbol's probability from a forward pass of its prefix alone.
    CHECK(testing::scalar(r, "surprisal_bayes") == doctest::Approx(-std::log(z) / 9).epsilon(1e-9));
    const std::vector<int> words = {2, 2, 3, 2, 0, 4, -1, 2, 2, 3};  // -1 = ';'
    double nll = 0;
    std::vector<int> toks = {hmm::kBos};
    for (int w : words) {
        if (w >= 0) {
            gpt::Activations a;
            REQUIRE(gpt::forward(gm.value(), a, toks.data(), nullptr, 1, static_cast<int>(toks.size())).ok());
            const float* lg = a.logits_ptr() + (toks.size() - 1) * V;
            double m2 = lg[0], z2 = 0;
            for (int v = 1; v < V; ++v) m2 = std::max(m2, double(lg[v]));
            for (int v = 0; v < V; ++v) z2 += std::exp(lg[v] - m2);
            nll += -(lg[hmm::token_of(w)] - m2 - std::log(z2));
        }
        toks.push_back(w >= 0 ? hmm::token_of(w) : hmm::kDelimiter);
    }
    CHECK(testing::scalar(r, "surprisal_model") == doctest::Approx(nll / 9).epsilon(1e-4));

    // A segment longer than the model's is refused by name; an unknown symbol is named.
    testing::expect_refused("sequence_lab", {{"sequence", "a b c d e f g"}}, {"segment 1", "more than 6"});
    testing::expect_refused("sequence_lab", {{"sequence", "a b k"}}, {"'k'", "word 3"});
    // A ';' after fewer than 6 symbols (or at the start, or twice) is refused by name: the
    // mixture gives such a prefix probability 0, so its posterior and KL would mean nothing.
    testing::expect_refused("sequence_lab", {{"sequence", "a b ; a b"}}, {"segment 1", "after 2 symbols", "word 3"});
    testing::expect_refused("sequence_lab", {{"sequence", "; a b"}}, {"segment 1", "after 0 symbols", "word 1"});
    testing::expect_refused("sequence_lab", {{"sequence", "a a a a a a ; ;"}}, {"segment 2", "after 0 symbols", "word 8"});
    CHECK(testing::scalar(testing::run_demo("sequence_lab", {{"sequence", "a a a a a a ; a"}}), "tokens") == 8);
    testing::expect_refused("sequence_lab", {{"sequence", ""}}, {"empty"});
}

TEST_CASE("sequence_lab: each concept is labelled with its three most frequent symbols") {
    set_asset_dir(ICL_SOURCE_DIR "/lessons");
    const Result r = testing::run_demo("sequence_lab", {{"sequence", "c c d"}});
    const auto& post = std::get<HeatmapPanel>(r.panels.at(2));
    auto rec = recipe::load_shipped("hmm");
    REQUIRE(rec.ok());
    const hmm::Mixture m = rec.value().hmm.mixture();
    REQUIRE(post.col_labels.size() == m.concepts.size());
    for (size_t c = 0; c < m.concepts.size(); ++c) {
        const std::vector<double> f = hmm::symbol_frequencies(m.concepts[c], m.segment_length);
        std::vector<double> sorted = f;
        std::sort(sorted.begin(), sorted.end(), std::greater<double>());
        REQUIRE(sorted[2] > sorted[3]);  // three clear favourites
        std::string likes;  // the symbols of the three largest shares, largest first
        for (int k = 0; k < 3; ++k)
            for (int o = 0; o < (int)f.size(); ++o)
                if (f[(size_t)o] == sorted[(size_t)k]) likes += std::string(k ? ", " : "") + char('a' + o);
        CHECK(post.col_labels[c] == "concept " + std::to_string(c) + " (likes " + likes + ")");
    }
}

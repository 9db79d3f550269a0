#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "demo_testing.h"
#include "icl/attention_dual.h"
#include "icl/rng.h"

using namespace icl;
using icl::testing::scalar;

namespace {
Matrix random_mat(Rng& rng, int r, int c) {
    Matrix m = matrix(r, c);
    for (float& x : m.storage()) x = rng.normal();
    return m;
}
}  // namespace

TEST_CASE("attention_dual: attention form, fast-weight form and (mask . Q K^T) V in double agree") {
    Rng rng(21);
    const int T = 9, dk = 5, dv = 4;
    const Matrix q = random_mat(rng, T, dk), k = random_mat(rng, T, dk), v = random_mat(rng, T, dv);
    std::vector<Matrix> history;
    const Matrix attn = linear_attention_causal(q, k, v), fast = fast_weight_causal(q, k, v, &history);
    REQUIRE(history.size() == size_t(T));
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < dv; ++c) {
            double ref = 0;  // causal mask times Q Kᵀ, then V, in double
            for (int i = 0; i <= t; ++i) {
                double s = 0;
                for (int j = 0; j < dk; ++j) s += double(q(t, j)) * k(i, j);
                ref += s * v(i, c);
            }
            CHECK(attn(t, c) == doctest::Approx(ref).epsilon(1e-5).scale(1.0));
            CHECK(fast(t, c) == doctest::Approx(ref).epsilon(1e-5).scale(1.0));
        }
    // Dai et al.'s split at the last position: ΔW_ICL q + W_ZSL q = y_T.
    const int n_demos = 6;
    const Matrix delta = outer_product_sum(v, k, 0, n_demos), zsl = outer_product_sum(v, k, n_demos, T);
    const auto a = matvec(delta, row(q, T - 1)), b = matvec(zsl, row(q, T - 1));
    for (int c = 0; c < dv; ++c) CHECK(a[c] + b[c] == doctest::Approx(attn(T - 1, c)).epsilon(1e-5).scale(1.0));
    // The last fast-weight matrix is the sum of both parts.
    for (size_t i = 0; i < delta.size(); ++i)
        CHECK(history.back().storage()[i] == doctest::Approx(delta.storage()[i] + zsl.storage()[i]).epsilon(1e-5).scale(1.0));
}

TEST_CASE("attention_dual: softmax attention matches a double reference and is a convex mix of values") {
    Rng rng(22);
    const int T = 7, dk = 4, dv = 3;
    const Matrix q = random_mat(rng, T, dk), k = random_mat(rng, T, dk), v = random_mat(rng, T, dv);
    const Matrix y = softmax_attention_causal(q, k, v);
    for (int t = 0; t < T; ++t) {
        std::vector<double> w(t + 1);
        double sum = 0;
        for (int i = 0; i <= t; ++i) {
            double s = 0;
            for (int j = 0; j < dk; ++j) s += double(q(t, j)) * k(i, j);
            sum += w[i] = std::exp(s / 2.0);  // √d_k = 2
        }
        for (int c = 0; c < dv; ++c) {
            double ref = 0, lo = 1e9, hi = -1e9;
            for (int i = 0; i <= t; ++i) {
                ref += w[i] / sum * v(i, c);
                lo = std::min(lo, double(v(i, c)));
                hi = std::max(hi, double(v(i, c)));
            }
            CHECK(y(t, c) == doctest::Approx(ref).epsilon(1e-5).scale(1.0));
            CHECK(y(t, c) >= lo - 1e-6);
            CHECK(y(t, c) <= hi + 1e-6);
        }
    }
}

TEST_CASE("attention_dual demo: identities to 1e-5, softmax gap reported, bad input refused") {
    const Result r = testing::run_demo("attention_dual", nlohmann::json::object());
    CHECK(r.error.empty());
    CHECK(scalar(r, "max_abs_diff") < 1e-5);
    CHECK(scalar(r, "split_diff") < 1e-5);
    CHECK(scalar(r, "tokens") == 8);
    CHECK(scalar(r, "softmax_cos") >= -1.0);
    CHECK(scalar(r, "softmax_cos") <= 1.0);
    const Result big = testing::run_demo("attention_dual", {{"d_model", 32}, {"d_head", 16}, {"n_demos", 24},
                                                             {"n_query_tokens", 8}, {"input_scale", 3.0}, {"show_after", 24}});
    // Outputs grow like scale⁴ here; hold the identity relative to the output size.
    CHECK(scalar(big, "rel_diff") < 1e-5);
    // show_after past n_demos draws the last demonstration's W.
    const Result clamped = testing::run_demo("attention_dual", {{"n_demos", 3}, {"show_after", 20}});
    const auto heatmap = std::find_if(clamped.panels.begin(), clamped.panels.end(),
                                      [](const Panel& p) { return std::holds_alternative<HeatmapPanel>(p); });
    REQUIRE(heatmap != clamped.panels.end());
    CHECK(std::get<HeatmapPanel>(*heatmap).title.find("3") != std::string::npos);
    testing::expect_refused("attention_dual", {{"n_demos", 25}}, {"n_demos", "[1, 24]"});
    testing::expect_refused("attention_dual", {{"input_scale", 0}}, {"input_scale", "[0.05, 3]"});
    testing::check_scalar_names_stable("attention_dual", nlohmann::json::object());
}

TEST_CASE("attention_dual demo: the gap over many draws, and the small-scale expansion of softmax attention") {
    // An independent review (its own code, 1,000 draws of the demo's distributions at
    // scale 1) found cos(linear, softmax) median ≈ 0.76, quartiles ≈ 0.36 and 0.92.
    const Result r = testing::run_demo("attention_dual", {{"draws", 1000}});
    CHECK(scalar(r, "cos_median") == doctest::Approx(0.76).epsilon(0.06));
    CHECK(scalar(r, "cos_q1") == doctest::Approx(0.36).epsilon(0.2));
    CHECK(scalar(r, "cos_q3") == doctest::Approx(0.92).epsilon(0.04));
    CHECK(scalar(r, "scaled_err_q1") <= scalar(r, "scaled_err_median"));
    CHECK(scalar(r, "scaled_err_median") <= scalar(r, "scaled_err_q3"));
    CHECK(scalar(r, "scaled_err_q3") <= 1.0);
    CHECK(scalar(r, "seed_cos_rank") >= 0.0);
    CHECK(scalar(r, "seed_cos_rank") < 1.0);
    // Small scores: softmax(z) = (1 + z − z̄)/T + O(z²), with z ∝ scale², so the
    // normalised, centred linear form's relative error falls as scale⁴ (16× per halving),
    // and the unnormalised linear output (∝ scale³) vanishes next to softmax's (∝ scale):
    // its relative error tends to 1.
    const Result small = testing::run_demo("attention_dual", {{"draws", 400}, {"input_scale", 0.1}});
    const Result smaller = testing::run_demo("attention_dual", {{"draws", 400}, {"input_scale", 0.05}});
    CHECK(scalar(small, "centred_err_median") < 2e-3);
    const double ratio = scalar(small, "centred_err_median") / scalar(smaller, "centred_err_median");
    CHECK(ratio > 12);
    CHECK(ratio < 20);
    CHECK(std::fabs(scalar(smaller, "rel_err_median") - 1) < 0.01);
    testing::expect_refused("attention_dual", {{"draws", 0}}, {"draws", "[1, 2000]"});
}

TEST_CASE("attention_dual demo: no series lies flat on a linear axis another series stretches") {
    // The sweep's relative error reaches tens at a large embedding scale while the cosine
    // stays in [-1, 1]: on one linear axis the cosine is a flat line. On a linear y axis,
    // every series that moves must span at least a twentieth of the panel's range.
    const Result r = testing::run_demo("attention_dual", nlohmann::json::object());
    int lines = 0;
    for (const Panel& p : r.panels) {
        const auto* l = std::get_if<LinesPanel>(&p);
        if (!l || l->log_y) continue;
        ++lines;
        double lo = INFINITY, hi = -INFINITY;
        std::vector<double> spans;
        for (const Series& s : l->series) {
            double a = INFINITY, b = -INFINITY;
            for (double y : s.y)
                if (std::isfinite(y)) { a = std::min(a, y); b = std::max(b, y); }
            lo = std::min(lo, a);
            hi = std::max(hi, b);
            spans.push_back(b - a);
        }
        for (size_t i = 0; i < spans.size(); ++i)
            if (spans[i] > 0) CHECK_MESSAGE(spans[i] >= (hi - lo) / 20, l->title, ": series ", l->series[i].name, " spans ",
                                            spans[i], " of the axis's ", hi - lo);
    }
    CHECK(lines >= 1);
    // The cosine has a panel of its own, its values within [-1, 1].
    bool cosine_alone = false;
    for (const Panel& p : r.panels)
        if (const auto* l = std::get_if<LinesPanel>(&p); l && l->series.size() == 1 && l->title.find("Cosine") == 0) {
            cosine_alone = true;
            for (double y : l->series[0].y) CHECK(std::fabs(y) <= 1.0 + 1e-9);
        }
    CHECK(cosine_alone);
}

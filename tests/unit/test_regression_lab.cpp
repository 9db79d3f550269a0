// regression_lab and the `points` parameter kind. The expected values are computed
// here, independently of the demo: one GD step from W0 = 0 is (η/N) Σ y_i φ(x_i), and
// least squares solves the 2 × 2 normal equations in closed form.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "demo_testing.h"

using namespace icl;
using icl::testing::scalar;
using nlohmann::json;

namespace {

const Series& series_named(const Result& r, const std::string& prefix) {
    const auto& lines = std::get<LinesPanel>(r.panels.at(1));
    for (const Series& s : lines.series)
        if (s.name.rfind(prefix, 0) == 0) return s;
    FAIL("no series " << prefix);
    return lines.series.front();
}

// The lines panel is the second panel (after the scalars).
Result run_lab(const json& params) {
    Result r = testing::run_demo("regression_lab", params);
    REQUIRE(r.panels.size() >= 2);
    REQUIRE(std::holds_alternative<LinesPanel>(r.panels[1]));
    return r;
}

}  // namespace

TEST_CASE("regression_lab: the constructed LSA layer draws one GD step; least squares is the closed-form fit") {
    const std::vector<std::array<double, 2>> pts = {{-1.7, -2.2}, {-0.4, 0.3}, {0.35, 1.1}, {1.2, 1.4}, {1.9, 3.6}};
    for (bool bias : {true, false}) {
        CAPTURE(bias);
        const double eta = 0.37;
        const Result r = run_lab({{"points", pts}, {"bias", bias}, {"eta", eta}, {"lambda", 0.8}});
        // One GD step from 0 on L = 1/(2N) Σ (w·φ(x_i) − y_i)²: w = (η/N) Σ y_i φ(x_i).
        double w0 = 0, w1 = 0, sxx = 0, sx = 0, sxy = 0, sy = 0;
        for (const auto& p : pts) {
            w0 += eta / pts.size() * p[1] * p[0];
            w1 += bias ? eta / pts.size() * p[1] : 0.0;
            sxx += p[0] * p[0]; sx += p[0]; sxy += p[0] * p[1]; sy += p[1];
        }
        const double n = double(pts.size());
        // Least squares: slope and bias from the normal equations (or through 0).
        const double slope = bias ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : sxy / sxx;
        const double intercept = bias ? (sy - slope * sx) / n : 0.0;
        const Series& lsa = series_named(r, "constructed LSA");
        const Series& gd = series_named(r, "one GD step");
        const Series& ls = series_named(r, "least squares");
        REQUIRE(lsa.x.size() >= 50);
        for (size_t k = 0; k < lsa.x.size(); ++k) {
            const double x = lsa.x[k], expect = w0 * x + w1;
            CHECK(lsa.y[k] == doctest::Approx(expect).epsilon(1e-5).scale(1.0));
            CHECK(gd.y[k] == doctest::Approx(expect).epsilon(1e-5).scale(1.0));
            CHECK(ls.y[k] == doctest::Approx(slope * x + intercept).epsilon(1e-4).scale(1.0));
        }
        CHECK(scalar(r, "max_abs_diff") < 1e-5);
        CHECK(scalar(r, "n_points") == 5);
        // k GD steps approach least squares when η is below the stable bound.
        CHECK(scalar(r, "eta_stable") > eta);
    }
}

TEST_CASE("regression_lab: moving one point moves every curve") {
    json a = {{"points", {{-1.0, -1.0}, {0.5, 0.2}, {1.5, 2.0}}}, {"k_steps", 5}};
    json b = a;
    b["points"][2] = {1.5, -2.0};
    const Result ra = run_lab(a), rb = run_lab(b);
    for (const char* name : {"one GD step", "constructed LSA", "5 GD steps", "trained LSA", "least squares", "ridge"}) {
        CAPTURE(name);
        const Series &sa = series_named(ra, name), &sb = series_named(rb, name);
        double moved = 0;
        for (size_t k = 0; k < sa.y.size(); ++k) moved = std::max(moved, std::fabs(sa.y[k] - sb.y[k]));
        CHECK(moved > 0.05);
    }
    // The trained layer learned a step: its prediction follows the points' sign.
    CHECK(scalar(ra, "lsa_trained") > 0);
    CHECK(scalar(rb, "lsa_trained") < scalar(ra, "lsa_trained"));
}

TEST_CASE("points parameters: the text form, and errors that name the point and the bound") {
    const DemoDef* def = find_demo("regression_lab");
    REQUIRE(def);
    auto typed = parse_param_strings(def->params, {"points= 1,2 ;-0.5, 0.25;"});
    REQUIRE(typed.ok());
    CHECK(typed.value().at("points") == json{{1.0, 2.0}, {-0.5, 0.25}});
    auto valid = validate_params(def->params, typed.value());
    REQUIRE(valid.ok());
    CHECK(points_text(valid.value().pts("points")) == "1,2; -0.5,0.25");
    // The JSON form takes the text too (what a page sends while the learner types).
    CHECK(validate_params(def->params, {{"points", "1,2; -0.5,0.25"}}).value().pts("points").size() == 2);
    CHECK(validate_params(def->params, {{"points", ""}}).value().pts("points").empty());

    auto message = [&](const json& given) {
        auto v = validate_params(def->params, given);
        REQUIRE_FALSE(v.ok());
        return v.error().message;
    };
    auto text_message = [&](const std::string& kv) {
        auto t = parse_param_strings(def->params, {kv});
        if (!t.ok()) return t.error().message;
        return message(t.value());
    };
    CHECK(message({{"points", {{0, 0}, {7, 1}}}}).find("point 2 (7, 1) has x outside [-2, 2]") != std::string::npos);
    CHECK(message({{"points", {{0, -9}}}}).find("point 1 (0, -9) has y outside [-4, 4]") != std::string::npos);
    CHECK(message({{"points", {{0, 0, 1}}}}).find("point 1 is not a pair") != std::string::npos);
    CHECK(message({{"points", 3}}).find("is not a list of points") != std::string::npos);
    CHECK(text_message("points=1,2; 3").find("point 2 '3' is not of the form x,y") != std::string::npos);
    CHECK(text_message("points=1,2; a,1").find("point 2 'a,1' has x 'a', not a number") != std::string::npos);
    CHECK(text_message("points=1,inf").find("point 1 (1, inf) is not finite") != std::string::npos);
    std::string many;
    for (int k = 0; k < 21; ++k) many += "0,0;";
    CHECK(text_message("points=" + many).find("has 21 points, more than 20") != std::string::npos);
    // The message says what is expected.
    CHECK(text_message("points=0,9").find("x in [-2, 2] and y in [-4, 4]") != std::string::npos);
}

TEST_CASE("regression_lab: k GD steps past the stable step size give a note, never a nan") {
    const std::vector<std::array<double, 2>> pts = {{-2, 1}, {2, -1}, {-1.9, 0.5}};
    // GD on these points is stable for η < 2 / λ_max of the mean φφᵀ (φ = (x, 1)): here
    // about 0.5, so η = 2 grows by |1 − η λ_max| ≈ 7 a step, past a float in 200 steps.
    double a = 0, b = 0;
    for (const auto& p : pts) { a += p[0] * p[0] / pts.size(); b += p[0] / pts.size(); }
    const double lmax = 0.5 * (a + 1) + std::sqrt(0.25 * (a - 1) * (a - 1) + b * b);
    REQUIRE(std::pow(std::fabs(1 - 2 * lmax), 200) > 1e39);
    const auto notes = [](const Result& r) {
        std::string text;
        for (const Panel& p : r.panels)
            if (const auto* n = std::get_if<NotePanel>(&p)) text += n->title + ": " + n->text + "\n";
        return text;
    };
    const auto cells = [](const Result& r) {
        std::string text;
        for (const Panel& p : r.panels)
            if (const auto* t = std::get_if<TablePanel>(&p))
                for (const auto& row : t->rows)
                    for (const auto& c : row) text += c + " | ";
        return text;
    };
    const Result diverged = run_lab({{"points", pts}, {"eta", 2.0}, {"k_steps", 200}});
    INFO(cells(diverged));
    CHECK(cells(diverged).find("nan") == std::string::npos);
    CHECK(cells(diverged).find("inf") == std::string::npos);
    CHECK(notes(diverged).find("200 GD steps with η = 2 diverge on these points") != std::string::npos);
    const Result stable = run_lab({{"points", pts}, {"eta", 0.8 / lmax}, {"k_steps", 200}});
    CHECK(notes(stable).find("diverge") == std::string::npos);
    CHECK(cells(stable).find("200 GD steps: W_k") != std::string::npos);
}

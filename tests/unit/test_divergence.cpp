// Training divergence: detected at every step, named with the step and the lr, and the
// demo keeps its last good state (its curve up to then, finite figures).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>

#include "demo_testing.h"
#include "icl/divergence.h"

using icl::DivergenceWatch;

TEST_CASE("divergence: NaN, Inf and a loss 1e4 times the first are caught at their step") {
    DivergenceWatch w;
    CHECK(w.check(1, 0.5, 0.01) == "");
    CHECK(w.check(2, 0.5 * 9999, 0.01) == "");  // large, but under the factor
    CHECK(w.check(3, 0.5 * 10001, 0.01) == "training diverged at step 3: loss = 5e+03, 1e+04 times step 1's 0.5 (lr 0.01 is too large?)");
    DivergenceWatch inf, nan;
    CHECK(inf.check(7, std::numeric_limits<double>::infinity(), 5) == "training diverged at step 7: loss = inf (lr 5 is too large?)");
    // A demo's catalogue words it (lessons/ko/catalogue/common.json), with the same numbers.
    const icl::Texts ko = icl::testing::texts("ko", "lsa_training");
    CHECK(nan.check(1, std::nan(""), 0.1, &ko) == "학습이 step 1에서 발산했습니다: loss = nan (lr 0.1이 너무 클 수 있습니다)");
    DivergenceWatch big;
    CHECK(big.check(1, 0.5, 0.01, &ko) == "");
    CHECK(big.check(4, 0.5 * 10001, 0.01, &ko) == "학습이 step 4에서 발산했습니다: loss = 5e+03, step 1의 0.5보다 1e+04배 (lr 0.01이 너무 클 수 있습니다)");
}

TEST_CASE("divergence: from a near-zero first loss, only a loss past 1e4 x 0.1 counts") {
    DivergenceWatch w;
    CHECK(w.check(1, 0.001, 0.05) == "");
    CHECK(w.check(2, 20.0, 0.05) == "");  // a bad fine-tuning step, 2e4 times the first, not a divergence
    CHECK(w.check(3, 1001.0, 0.05) == "training diverged at step 3: loss = 1e+03, 1e+06 times step 1's 0.001 (lr 0.05 is too large?)");
}

TEST_CASE("divergence: a falling loss never trips the watch") {
    DivergenceWatch w;
    for (int s = 1; s <= 1000; ++s) CHECK(w.check(s, 2.0 / s, 1e-3) == "");
}

TEST_CASE("lsa_training: lr 0.05 with 2 layers diverges; the demo stops, names the step and keeps the last good state") {
    const icl::Result r =
        icl::testing::run_demo("lsa_training", {{"lr", 0.05}, {"layers", 2}, {"batch", 8}, {"steps", 2000}});
    CHECK(r.done);
    std::smatch m;
    REQUIRE_MESSAGE(std::regex_search(r.error, m, std::regex(R"(^training diverged at step (\d+): loss = (\S+)(,| ).*\(lr 0.05 is too large\?\)$)")),
                    r.error);
    const int at = std::stoi(m[1]);
    CHECK(at > 1);
    CHECK(at < 2000);
    // The last good model: fewer steps than the diverging one, finite figures.
    CHECK(icl::testing::scalar(r, "steps") == at - 2);
    for (const char* name : {"lsa_loss", "pred_diff", "sens_cos"}) CHECK(std::isfinite(icl::testing::scalar(r, name)));
    // The curve stops at its last point before the divergence, all finite.
    const auto* lines = std::get_if<icl::LinesPanel>(&r.panels.at(1));
    REQUIRE(lines != nullptr);
    const icl::Series& curve = lines->series.at(0);
    REQUIRE(!curve.x.empty());
    CHECK(curve.x.back() < at);
    for (double y : curve.y) CHECK(std::isfinite(y));
}

// 47 s under ASan, where the short runs above cover the same code.
TEST_CASE("lsa_training: lr 0.01 with 2 layers trains all its steps without a divergence" *
          doctest::skip(icl::testing::kSanitized)) {
    const icl::Result r =
        icl::testing::run_demo("lsa_training", {{"lr", 0.01}, {"layers", 2}, {"batch", 8}, {"steps", 300}});
    CHECK(r.error == "");
    CHECK(icl::testing::scalar(r, "steps") == 300);
}

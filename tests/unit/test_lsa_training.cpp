#include <doctest/doctest.h>

#include "demo_testing.h"

using namespace icl;
using icl::testing::scalar;

TEST_CASE("lsa_training: a small LSA layer trained with Adam reaches the one-step GD loss and aligns with GD") {
    const nlohmann::json params = {{"d", 4}, {"n_context", 8}, {"batch", 64}, {"lr", 0.005}, {"steps", 600}};
    const Result r = testing::run_demo("lsa_training", params);
    REQUIRE(r.error.empty());
    CHECK(scalar(r, "steps") == 600);
    CHECK(scalar(r, "loss_ratio") < 1.05);
    CHECK(scalar(r, "sens_cos") > 0.99);
    // The start is far from GD: the first point of the loss curve is well above the line.
    const auto& curve = std::get<LinesPanel>(r.panels[1]).series[0];
    CHECK(curve.y.front() > 1.3 * scalar(r, "gd_loss"));
}

TEST_CASE("lsa_training: streams in step() slices; bad input refused by name") {
    auto session = start_demo("lsa_training", {{"d", 3}, {"n_context", 4}, {"batch", 8}, {"steps", 30}}, testing::texts("ko", "lsa_training"), 2);
    REQUIRE(session.ok());
    auto& s = *session.value();
    s.step(10);
    CHECK_FALSE(s.done());
    CHECK(s.result().progress == doctest::Approx(1.0 / 3));
    while (!s.done()) s.step(10);
    CHECK(s.result().progress == doctest::Approx(1.0));
    testing::expect_refused("lsa_training", {{"layers", 5}}, {"layers", "[1, 4]"});
    testing::expect_refused("lsa_training", {{"batch", 1024}}, {"batch", "[8, 512]"});
    testing::expect_refused("lsa_training", {{"steps", 0}}, {"steps"});
    testing::check_scalar_names_stable("lsa_training", {{"d", 3}, {"n_context", 4}, {"batch", 8}, {"steps", 20}});
}

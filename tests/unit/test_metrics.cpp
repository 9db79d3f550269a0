// Each metric against an example worked out by hand (or a property of its definition).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "icl/linalg.h"
#include "icl/metrics.h"
#include "icl/rng.h"

using namespace icl;

TEST_CASE("metrics: Kendall tau-b on small permutations counted by hand") {
    // (1,2,3,4) vs (1,3,2,4): of 6 pairs only (2,3) is discordant -> (5 - 1) / 6
    CHECK(metrics::kendall_tau({1, 2, 3, 4}, {1, 3, 2, 4}).value() == doctest::Approx(4.0 / 6.0));
    CHECK(metrics::kendall_tau({1, 2, 3, 4}, {4, 3, 2, 1}).value() == doctest::Approx(-1.0));
    CHECK(metrics::kendall_tau({0.1, 0.5, 0.2}, {10, 30, 20}).value() == doctest::Approx(1.0));
    // a has one tied pair: 2 concordant of 3 pairs, tau-b = 2 / sqrt(2 * 3)
    CHECK(metrics::kendall_tau({1, 1, 2}, {1, 2, 3}).value() == doctest::Approx(2.0 / std::sqrt(6.0)));
    CHECK(metrics::kendall_tau({1, 1, 1}, {1, 2, 3}).value() == 0.0);
    CHECK_FALSE(metrics::kendall_tau({1, 2}, {1, 2, 3}).ok());
    CHECK_FALSE(metrics::kendall_tau({1}, {1}).ok());
}

TEST_CASE("metrics: Rec2FTP counts the examples fine-tuning fixes and ICL fixes too") {
    // FT fixes examples 0, 1, 4 (ZSL wrong, FT right; 3 was already right); ICL fixes 0 and 4.
    auto r = metrics::rec2ftp({false, false, false, true, false}, {true, true, false, true, true},
                              {true, false, true, true, true});
    REQUIRE(r.ok());
    CHECK(r.value().ft_fixed == 3);
    CHECK(r.value().both_fixed == 2);
    CHECK(r.value().value == doctest::Approx(2.0 / 3.0));
    CHECK(metrics::rec2ftp({true}, {true}, {false}).value().value == 0.0);  // nothing fixed
    CHECK_FALSE(metrics::rec2ftp({true}, {true, false}, {true}).ok());
}

TEST_CASE("metrics: SimAOU is 1 for identical updates, -1 for opposite, about 0 for random ones") {
    Rng rng(7);
    const size_t n = 4096;
    std::vector<float> zsl(n), icl(n), ft(n), opposite(n), random(n);
    for (size_t i = 0; i < n; ++i) {
        zsl[i] = rng.normal();
        const float u = rng.normal();
        icl[i] = zsl[i] + u;
        ft[i] = zsl[i] + 0.3f * u;  // same direction, other length
        opposite[i] = zsl[i] - u;
        random[i] = zsl[i] + rng.normal();
    }
    CHECK(metrics::update_cosine(zsl.data(), icl.data(), ft.data(), n) == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(metrics::update_cosine(zsl.data(), icl.data(), opposite.data(), n) == doctest::Approx(-1.0).epsilon(1e-5));
    // two independent Gaussian directions in 4096 dimensions: cos ~ N(0, 1/4096), sd 0.016
    CHECK(std::fabs(metrics::update_cosine(zsl.data(), icl.data(), random.data(), n)) < 0.05);
    CHECK(metrics::cosine({3, 4}, {4, 3}) == doctest::Approx(24.0 / 25.0));
    CHECK(metrics::cosine({0, 0}, {1, 0}) == 0.0);
}

TEST_CASE("metrics: prefix-matching score on a repeated sequence, worked by hand") {
    // tokens 5 6 7 5 6 7: positions 3, 4, 5 repeat tokens first seen at 0, 1, 2, whose
    // successors are at 1, 2, 3. Row 3 puts 0.5 on position 1, row 4 puts 1 on 2, row 5
    // puts nothing on 3 -> (0.5 + 1 + 0) / 3.
    const int T = 6;
    const int tokens[T] = {5, 6, 7, 5, 6, 7};
    Matrix att = identity(T);  // self attention elsewhere
    att(3, 3) = 0.5f;
    att(3, 1) = 0.5f;
    att(4, 4) = 0.0f;
    att(4, 2) = 1.0f;
    att(5, 5) = 0.0f;
    att(5, 0) = 1.0f;
    CHECK(metrics::prefix_matching(att, tokens) == doctest::Approx(0.5));
    const int distinct[T] = {1, 2, 3, 4, 5, 6};
    CHECK(metrics::prefix_matching(att, distinct) == 0.0);
}

TEST_CASE("metrics: ICL score is late loss minus early loss") {
    const std::vector<double> loss = {4.0, 4.2, 3.8, 2.0, 1.0, 0.6};
    CHECK(metrics::icl_score(loss, 0, 3, 4, 6) == doctest::Approx(0.8 - 4.0));
    CHECK(metrics::indirect_effect(0.7, 0.2) == doctest::Approx(0.5));
}

TEST_CASE("metrics: mean is the plain average, NaN (JSON null) while there is nothing to average") {
    CHECK(icl::metrics::mean({1.0, 2.0, 6.0}) == doctest::Approx(3.0));
    CHECK(std::isnan(icl::metrics::mean({})));
}

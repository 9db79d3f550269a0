// The xtensor read hooks: shapes, values consistent with an independent recomputation,
// and errors for indices out of range.
#include <doctest/doctest.h>

#include <cmath>

#include "gpt_test_util.h"
#include "icl/gpt_probe.h"

using namespace icl;

TEST_CASE("gpt probe: head output = attention map · V, residuals and logits by row") {
    gpt::Config c;
    c.vocab = 11; c.context = 7; c.width = 12; c.layers = 2; c.heads = 3;
    gpt::Model m = gpt::make_model(c, 4).value();
    Rng rng(5);
    for (float& p : m.params) p += rng.normal(0.0f, 0.2f);
    xt::xtensor<int, 2> tokens = xt::zeros<int>({(size_t)2, (size_t)7});
    for (auto& t : tokens) t = (int)rng.below(11);
    Expected<gpt::Activations> acts = gpt::run(m, tokens);
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    // head 1 of layer 1, row 1: recompute V = LN1(residual after layer 1) · Wvᵀ + bv by hand
    Matrix P = gpt::attention_map(m, a, 1, 1, 1).value();
    Matrix O = gpt::head_output(m, a, 1, 1, 1).value();
    Matrix X = gpt::residual_stream(m, a, 1, 1).value();
    REQUIRE(P.shape(0) == 7);
    REQUIRE(O.shape(1) == 4);
    REQUIRE(X.shape(1) == 12);
    const float* wv = m.at(m.layout.blocks[1].wv);
    const float* bv = m.at(m.layout.blocks[1].bv);
    const float* g = m.at(m.layout.blocks[1].ln1_w);
    const float* beta = m.at(m.layout.blocks[1].ln1_b);
    for (int t = 0; t < 7; ++t) {
        double expected[4] = {0, 0, 0, 0};
        for (int j = 0; j < 7; ++j) {
            double mean = 0, var = 0;
            for (int k = 0; k < 12; ++k) mean += X(j, k);
            mean /= 12;
            for (int k = 0; k < 12; ++k) var += (X(j, k) - mean) * (X(j, k) - mean);
            const double rstd = 1.0 / std::sqrt(var / 12 + 1e-5);
            for (int d = 0; d < 4; ++d) {
                double v = bv[4 + d];
                for (int k = 0; k < 12; ++k) v += wv[(4 + d) * 12 + k] * ((X(j, k) - mean) * rstd * g[k] + beta[k]);
                expected[d] += P(t, j) * v;
            }
        }
        for (int d = 0; d < 4; ++d) CHECK(O(t, d) == doctest::Approx(expected[d]).epsilon(1e-4));
    }
    CHECK(gpt::logits(m, a, 1).value().shape(1) == 11);
    CHECK(gpt::attention_map(m, a, 2, 0, 0).error().message.find("layer 2 is outside [0, 1]") != std::string::npos);
    CHECK(gpt::head_output(m, a, 0, 2, 0).error().message.find("batch row 2") != std::string::npos);
    CHECK(gpt::residual_stream(m, a, 2, 0).ok());  // after the last block
    tokens(0, 3) = 11;
    CHECK(gpt::run(m, tokens).error().message.find("token id 11") != std::string::npos);
}

// The xtensor read hooks: views of the activations' own buffer, equal to an independent
// recomputation (a plain softmax over q·k from the forward's q, k; V by hand from the
// residual stream; β by hand from LN1), live (a view sees a later write to the buffer),
// errors for indices out of range, and a heatmap panel made from a view.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gpt_test_util.h"
#include "icl/demo_panels.h"
#include "icl/gpt_probe.h"

using namespace icl;

namespace {

gpt::Model noisy_model(const gpt::Config& c, uint64_t seed) {
    gpt::Model m = gpt::make_model(c, seed).value();
    Rng rng(seed + 1);
    for (float& p : m.params) p += rng.normal(0.0f, 0.2f);
    return m;
}

xt::xtensor<int, 2> random_batch(int B, int T, int vocab, uint64_t seed) {
    Rng rng(seed);
    xt::xtensor<int, 2> tokens = xt::zeros<int>({(size_t)B, (size_t)T});
    for (auto& t : tokens) t = (int)rng.below((uint32_t)vocab);
    return tokens;
}

}  // namespace

TEST_CASE("gpt probe: attention maps equal a plain softmax of q·k / √hs under each layer's mask") {
    gpt::Config c;
    c.vocab = 11; c.context = 9; c.width = 12; c.layers = 2; c.heads = 3;
    c.attention = {AttentionMask{}, AttentionMask{AttentionMask::banded, 3, 0}};
    const gpt::Model m = noisy_model(c, 8);
    const int B = 2, T = 9, C = 12, H = 3, hs = 4;
    Expected<gpt::Activations> acts = gpt::run(m, random_batch(B, T, c.vocab, 9));
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    double worst = 0;
    for (int l = 0; l < c.layers; ++l)
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h) {
                const gpt::View P = gpt::attention_map(a, l, b, h).value();
                REQUIRE(P.shape()[0] == (size_t)T);
                REQUIRE(P.shape()[1] == (size_t)T);
                // q, k straight from the forward's (B,T,3C) projection buffer
                const float* qkv = a.ptr(a.blocks[(size_t)l].qkv) + (size_t)b * T * 3 * C;
                for (int i = 0; i < T; ++i) {
                    std::vector<double> s((size_t)T, 0.0);
                    double top = -1e300, sum = 0;
                    for (int j = 0; j <= i; ++j) {
                        if (l == 1 && i - j >= 3) continue;
                        for (int e = 0; e < hs; ++e)
                            s[(size_t)j] += (double)qkv[(size_t)i * 3 * C + h * hs + e] * qkv[(size_t)j * 3 * C + C + h * hs + e];
                        s[(size_t)j] /= std::sqrt((double)hs);
                        top = std::max(top, s[(size_t)j]);
                    }
                    for (int j = 0; j < T; ++j) {
                        const bool allowed = j <= i && !(l == 1 && i - j >= 3);
                        s[(size_t)j] = allowed ? std::exp(s[(size_t)j] - top) : 0.0;
                        sum += s[(size_t)j];
                    }
                    for (int j = 0; j < T; ++j) worst = std::max(worst, std::fabs(P(i, j) - s[(size_t)j] / sum));
                }
            }
    CHECK(worst < 1e-6);
}

TEST_CASE("gpt probe: a head's q, k, v are LN1(x) · Wqkvᵀ + bqkv; its output = attention map · V; the heads' columns side by side") {
    gpt::Config c;
    c.vocab = 11; c.context = 7; c.width = 12; c.layers = 2; c.heads = 3;
    const gpt::Model m = noisy_model(c, 4);
    Expected<gpt::Activations> acts = gpt::run(m, random_batch(2, 7, c.vocab, 5));
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    // head 1 of layer 1, row 1: recompute V = LN1(residual after layer 1) · Wvᵀ + bv by hand
    const gpt::View P = gpt::attention_map(a, 1, 1, 1).value();
    const gpt::View O = gpt::head_output(a, 1, 1, 1).value();
    const gpt::View X = gpt::residual_stream(a, 1, 1).value();
    const gpt::View all = gpt::heads_output(a, 1, 1).value();
    REQUIRE(O.shape()[0] == 7);
    REQUIRE(O.shape()[1] == 4);
    REQUIRE(X.shape()[1] == 12);
    REQUIRE(all.shape()[1] == 12);
    // and the head's q, k, v views against the same hand-made projection
    const gpt::View Qkv[3] = {gpt::head_qkv(a, 1, 1, 1, gpt::Qkv::q).value(), gpt::head_qkv(a, 1, 1, 1, gpt::Qkv::k).value(),
                              gpt::head_qkv(a, 1, 1, 1, gpt::Qkv::v).value()};
    REQUIRE(Qkv[2].shape()[0] == 7);
    REQUIRE(Qkv[2].shape()[1] == 4);
    const float* wq = m.at(m.layout.blocks[1].wq);
    const float* bq = m.at(m.layout.blocks[1].bq);
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
            for (int which = 0; which < 3; ++which)  // rows which·C + 4.. of Wqkv (3C,C): head 1
                for (int d = 0; d < 4; ++d) {
                    const int r = which * 12 + 4 + d;
                    double v = bq[r];
                    for (int k = 0; k < 12; ++k) v += wq[r * 12 + k] * ((X(j, k) - mean) * rstd * g[k] + beta[k]);
                    if (t == 0) CHECK(Qkv[which](j, d) == doctest::Approx(v).epsilon(1e-4));
                    if (which == 2) expected[d] += P(t, j) * v;
                }
        }
        for (int d = 0; d < 4; ++d) {
            CHECK(O(t, d) == doctest::Approx(expected[d]).epsilon(1e-4));
            CHECK(all(t, 4 + d) == O(t, d));
        }
    }
    const gpt::View L = gpt::logits(m, a, 1).value();
    CHECK(L.shape()[1] == 11);
    CHECK(L(6, 3) == a.logits_ptr()[(7 + 6) * 11 + 3]);  // row 1, position 6, token 3
}

TEST_CASE("gpt probe: a view reads the activations' buffer itself, so it sees a later write") {
    gpt::Config c;
    c.vocab = 11; c.context = 6; c.width = 8; c.layers = 2; c.heads = 2;
    const gpt::Model m = noisy_model(c, 2);
    Expected<gpt::Activations> acts = gpt::run(m, random_batch(2, 6, c.vocab, 3));
    REQUIRE(acts.ok());
    gpt::Activations& a = acts.value();
    const gpt::View P = gpt::attention_map(a, 1, 1, 1).value();
    const gpt::View O = gpt::head_output(a, 0, 1, 1).value();
    const gpt::View X = gpt::residual_stream(a, 2, 0).value();
    // (B,H,T,T): row 1, head 1, query 4, key 2
    a.buf[a.blocks[1].att + ((1 * 2 + 1) * 6 + 4) * 6 + 2] = 42.0f;
    CHECK(P(4, 2) == 42.0f);
    // (B,T,C) head h in columns h*hs..: row 1, position 3, head 1's entry 2
    a.buf[a.blocks[0].atty + (1 * 6 + 3) * 8 + 4 + 2] = -7.0f;
    CHECK(O(3, 2) == -7.0f);
    a.buf[a.blocks[1].res_out + 5 * 8 + 7] = 3.5f;  // row 0, position 5, channel 7
    CHECK(X(5, 7) == 3.5f);
}

TEST_CASE("gpt probe: a delta layer's β equals σ(wb · LN1(x) + bb), and other layers have none") {
    gpt::Config c;
    c.vocab = 11; c.context = 6; c.width = 8; c.layers = 2; c.heads = 2;
    c.kinds = {gpt::AttentionKind::softmax, gpt::AttentionKind::delta};
    const gpt::Model m = noisy_model(c, 6);
    Expected<gpt::Activations> acts = gpt::run(m, random_batch(2, 6, c.vocab, 7));
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    const gpt::View beta = gpt::delta_betas(m, a, 1, 1).value();  // (H,T)
    REQUIRE(beta.shape()[0] == 2);
    REQUIRE(beta.shape()[1] == 6);
    const float* ln1 = a.ptr(a.blocks[1].ln1) + 6 * 8;  // row 1
    const float* wb = m.at(m.layout.blocks[1].wb);
    const float* bb = m.at(m.layout.blocks[1].bb);
    for (int h = 0; h < 2; ++h)
        for (int t = 0; t < 6; ++t) {
            double z = bb[h];
            for (int k = 0; k < 8; ++k) z += (double)wb[h * 8 + k] * ln1[t * 8 + k];
            CHECK(beta(h, t) == doctest::Approx(1.0 / (1.0 + std::exp(-z))).epsilon(1e-5));
        }
    CHECK(gpt::delta_betas(m, a, 0, 0).error().message.find("not a delta layer") != std::string::npos);
}

TEST_CASE("gpt probe: indices out of range are errors that name them") {
    gpt::Config c;
    c.vocab = 11; c.context = 7; c.width = 12; c.layers = 2; c.heads = 3;
    const gpt::Model m = noisy_model(c, 4);
    xt::xtensor<int, 2> tokens = random_batch(2, 7, c.vocab, 5);
    Expected<gpt::Activations> acts = gpt::run(m, tokens);
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    CHECK(gpt::attention_map(a, 2, 0, 0).error().message.find("layer 2 is outside [0, 1]") != std::string::npos);
    CHECK(gpt::attention_map(a, 0, 0, 3).error().message.find("head 3 is outside [0, 2]") != std::string::npos);
    CHECK(gpt::head_output(a, 0, 2, 0).error().message.find("batch row 2") != std::string::npos);
    CHECK(gpt::head_qkv(a, 0, 0, 3, gpt::Qkv::k).error().message.find("head 3 is outside [0, 2]") != std::string::npos);
    CHECK(gpt::residual_stream(a, 2, 0).ok());  // after the last block
    CHECK(gpt::residual_stream(a, 3, 0).error().message.find("layer 3 is outside [0, 2]") != std::string::npos);
    CHECK(gpt::attention_map(gpt::Activations{}, 0, 0, 0).error().message.find("not from a transformer") != std::string::npos);
    tokens(0, 3) = 11;
    CHECK(gpt::run(m, tokens).error().message.find("token id 11") != std::string::npos);
}

TEST_CASE("heatmap_of: takes a probe's view (strided columns included) and an expression over it") {
    gpt::Config c;
    c.vocab = 11; c.context = 5; c.width = 8; c.layers = 1; c.heads = 2;
    const gpt::Model m = noisy_model(c, 3);
    Expected<gpt::Activations> acts = gpt::run(m, random_batch(1, 5, c.vocab, 4));
    REQUIRE(acts.ok());
    const gpt::Activations& a = acts.value();
    const HeatmapPanel p = heatmap_of(gpt::attention_map(a, 0, 0, 1).value(), "t", "x", "y", false);
    REQUIRE(p.rows == 5);
    REQUIRE(p.cols == 5);
    const float* raw = a.ptr(a.blocks[0].att) + 25;  // (B,H,T,T): head 1
    for (int i = 0; i < 25; ++i) CHECK(p.values[(size_t)i] == raw[i]);
    CHECK(p.row_labels.front() == "1");
    const gpt::View o = gpt::head_output(a, 0, 0, 1).value();  // (5,4): columns 4..7 of (5,8)
    const HeatmapPanel q = heatmap_of(2.0 * o, "t", "x", "y", true);
    REQUIRE(q.cols == 4);
    const float* atty = a.ptr(a.blocks[0].atty);
    for (int t = 0; t < 5; ++t)
        for (int e = 0; e < 4; ++e) CHECK(q.values[(size_t)t * 4 + e] == 2.0 * atty[t * 8 + 4 + e]);
}

// Momentum attention and head patching, the two GPT options the mechanism demos add,
// against their definitions computed independently from the activations.
#include <doctest/doctest.h>

#include <cmath>

#include "gpt_test_util.h"
#include "icl/generate.h"
#include "icl/gpt.h"

using namespace icl;

namespace {

gpt::Model spiky(gpt::Config c, uint64_t seed) {
    gpt::Model m = gpt::make_model(c, seed).value();
    Rng rng(seed + 100);
    for (float& p : m.params) p += rng.normal(0.0f, 0.2f);
    return m;
}

}  // namespace

TEST_CASE("momentum attention: layer 0's head outputs gain exactly sum_{i<t} eta^(t-i) v_i") {
    gpt::Config c;
    c.vocab = 11; c.context = 9; c.width = 12; c.layers = 2; c.heads = 3;
    const gpt::Model plain = spiky(c, 3);
    gpt::Model mo = plain;
    mo.config.momentum = 0.7f;
    const int B = 2, T = 9, C = 12, H = 3, hs = 4;
    const std::vector<int> tokens = test::random_tokens(B * T, c.vocab, 4);
    gpt::Activations a, b;
    REQUIRE(gpt::forward(plain, a, tokens.data(), nullptr, B, T).ok());
    REQUIRE(gpt::forward(mo, b, tokens.data(), nullptr, B, T).ok());
    // layer 0 sees the same input in both, so the difference is the momentum term alone
    const float* v = a.ptr(a.blocks[0].qkv) + 2 * C;  // (B,T,3C): head h's v in columns 2C + h*hs..
    double worst = 0;
    for (int r = 0; r < B; ++r)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                for (int e = 0; e < hs; ++e) {
                    double want = 0;
                    for (int i = 0; i < t; ++i) want += std::pow(0.7, t - i) * v[((size_t)r * T + i) * 3 * C + h * hs + e];
                    const size_t at = ((size_t)r * T + t) * C + h * hs + e;
                    const double got = b.ptr(b.blocks[0].atty)[at] - a.ptr(a.blocks[0].atty)[at];
                    worst = std::max(worst, std::fabs(got - want));
                }
    CHECK(worst < 1e-5);
    // position 0 has no earlier value: identical there
    CHECK(b.ptr(b.blocks[0].atty)[0] == a.ptr(a.blocks[0].atty)[0]);
    gpt::Config bad = c;
    bad.momentum = 1.0f;
    CHECK_FALSE(gpt::validate(bad).ok());
    bad.momentum = NAN;
    CHECK_FALSE(gpt::validate(bad).ok());
    gpt::KvCache cache = gpt::make_cache(mo.config);
    std::vector<float> logits((size_t)c.vocab);
    CHECK_FALSE(gpt::step(mo, cache, 1, logits.data(), nullptr).ok());  // not silently wrong
}

TEST_CASE("head patch: sets one head at one position, leaves earlier positions alone, and patching a head with its own output changes nothing") {
    gpt::Config c;
    c.vocab = 11; c.context = 8; c.width = 12; c.layers = 2; c.heads = 3;
    const gpt::Model m = spiky(c, 5);
    const int T = 8, C = 12, hs = 4;
    const std::vector<int> tokens = test::random_tokens(T, c.vocab, 6);
    gpt::Activations plain, patched, same;
    REQUIRE(gpt::forward(m, plain, tokens.data(), nullptr, 1, T).ok());
    gpt::Hooks hooks;
    hooks.head_patches = {{0, 2, 5, {1, -2, 3, -4}}};
    REQUIRE(gpt::forward(m, patched, tokens.data(), nullptr, 1, T, &hooks).ok());
    for (int e = 0; e < hs; ++e) CHECK(patched.ptr(patched.blocks[0].atty)[5 * C + 2 * hs + e] == hooks.head_patches[0].output[e]);
    const int V = c.vocab;
    for (int i = 0; i < 5 * V; ++i) CHECK(patched.logits_ptr()[i] == plain.logits_ptr()[i]);
    CHECK(test::scaled_max_diff(patched.logits_ptr() + 5 * V, plain.logits_ptr() + 5 * V, 3 * V) > 1e-3);
    hooks.head_patches[0].output.assign(plain.ptr(plain.blocks[0].atty) + 5 * C + 2 * hs, plain.ptr(plain.blocks[0].atty) + 5 * C + 3 * hs);
    REQUIRE(gpt::forward(m, same, tokens.data(), nullptr, 1, T, &hooks).ok());
    CHECK(test::scaled_max_diff(same.logits_ptr(), plain.logits_ptr(), (size_t)T * V) < 1e-7);
    hooks.head_patches[0].output.resize(3);
    CHECK_FALSE(gpt::validate(hooks, c).ok());
}

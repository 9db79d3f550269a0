// The tiny GPT: config bounds, bad input, hooks, KV-cache generation.
#include <doctest/doctest.h>

#include <cmath>

#include "gpt_test_util.h"
#include "icl/generate.h"
#include "icl/gpt.h"
#include "icl/gpt_probe.h"

using namespace icl;

namespace {

gpt::Config mixed_config() {
    gpt::Config c;
    c.vocab = 13; c.context = 12; c.width = 24; c.layers = 3; c.heads = 3;
    c.attention = {AttentionMask{}, AttentionMask{AttentionMask::banded, 3, 0},
                   AttentionMask{AttentionMask::strided, 0, 4}};
    return c;
}

// Weights larger than the init, so attention is far from uniform.
gpt::Model spiky_model(const gpt::Config& c, uint64_t seed) {
    gpt::Model m = gpt::make_model(c, seed).value();
    Rng rng(seed + 100);
    for (float& p : m.params) p += rng.normal(0.0f, 0.2f);
    return m;
}

std::vector<float> logits_of(const gpt::Model& m, const std::vector<int>& tokens, int B, int T,
                             const gpt::Hooks* hooks = nullptr) {
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, B, T, hooks).ok());
    return std::vector<float>(acts.logits_ptr(), acts.logits_ptr() + (size_t)B * T * m.config.vocab);
}

bool mentions(const Status& s, const std::string& what) {
    return !s.ok() && s.error().message.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("gpt config: bounds and shape rules are errors naming the field") {
    gpt::Config c;
    CHECK(gpt::validate(c).ok());
    c.vocab = 5000;
    CHECK(mentions(gpt::validate(c), "vocab = 5000"));
    c = gpt::Config{};
    c.heads = 5;
    CHECK(mentions(gpt::validate(c), "heads = 5 does not divide width = 64"));
    c = gpt::Config{};
    c.width = 1024; c.layers = 24;  // 24 * 12.6M parameters: past the memory bound
    CHECK(mentions(gpt::validate(c), "exceed the bound"));
    CHECK_FALSE(gpt::make_model(c, 1).ok());
    c = gpt::Config{};
    c.attention = {AttentionMask{}};
    CHECK(mentions(gpt::validate(c), "1 attention patterns given for 2 layers"));
    c.attention = gpt::alternating_dense_banded(2, 0);
    CHECK(mentions(gpt::validate(c), "window = 0"));
    // GPT-2 init: the parameter count matches the formula, std of a matrix is 0.02
    c = gpt::Config{};
    gpt::Model m = gpt::make_model(c, 1).value();
    CHECK(m.params.size() == (size_t)(64 * 64 + 64 * 64 + 2 * (4 * 64 + 4 * 64 * 64 + 4 * 64 + 2 * 4 * 64 * 64 + 4 * 64 + 64) + 2 * 64));
    const gpt::TensorInfo* wq = m.find("h0.attn.wq");
    const gpt::TensorInfo* wo = m.find("h1.attn.wo");
    REQUIRE(wq);
    REQUIRE(wo);
    auto stddev = [&](const gpt::TensorInfo* t) {
        double s = 0;
        for (size_t i = 0; i < t->size; ++i) s += (double)m.params[t->offset + i] * m.params[t->offset + i];
        return std::sqrt(s / (double)t->size);
    };
    CHECK(stddev(wq) == doctest::Approx(0.02).epsilon(0.05));
    CHECK(stddev(wo) == doctest::Approx(0.02 / 2.0).epsilon(0.05));  // 1/sqrt(2L), L = 2
    CHECK(m.params[m.find("lnf.w")->offset] == 1.0f);
    CHECK(m.params[m.find("h0.mlp.b1")->offset] == 0.0f);
}

TEST_CASE("gpt forward: bad input is an error naming it") {
    gpt::Model m = gpt::make_model(mixed_config(), 1).value();
    gpt::Activations acts;
    std::vector<int> tokens(24, 1), targets(24, 2);
    tokens[17] = 13;
    CHECK(mentions(gpt::forward(m, acts, tokens.data(), nullptr, 2, 12),
                   "token id 13 at batch row 1, position 5 is outside [0, 12]"));
    tokens[17] = 1;
    targets[3] = 99;
    CHECK(mentions(gpt::forward(m, acts, tokens.data(), targets.data(), 2, 12), "target id 99"));
    std::vector<int> long_seq(13, 1);
    CHECK(mentions(gpt::forward(m, acts, long_seq.data(), nullptr, 1, 13),
                   "sequence length 13 is outside [1, 12]"));
    CHECK(mentions(gpt::forward(m, acts, tokens.data(), nullptr, 0, 12), "batch size 0"));
    // a batch whose activations pass the bound is refused before allocating
    gpt::Config big;
    big.vocab = 4096; big.context = 1024; big.width = 256; big.layers = 4; big.heads = 4;
    gpt::Model bm = gpt::make_model(big, 1).value();
    CHECK(mentions(gpt::forward(bm, acts, tokens.data(), nullptr, 64, 1024), "over the bound"));
    // a NaN parameter makes the loss NaN: an error, not a number
    targets[3] = 2;
    m.params[m.find("lnf.b")->offset] = NAN;
    CHECK(mentions(gpt::forward(m, acts, tokens.data(), targets.data(), 2, 12), "the loss is NaN"));
    gpt::Hooks hooks;
    hooks.ablations = {{0, 3}};
    CHECK(mentions(gpt::forward(m, acts, tokens.data(), nullptr, 2, 12, &hooks), "ablation head 3"));
}

TEST_CASE("gpt hooks: attention maps follow each layer's mask and rows sum to 1") {
    const gpt::Config c = mixed_config();
    const gpt::Model m = spiky_model(c, 2);
    const std::vector<int> tokens = test::random_tokens(2 * 12, c.vocab, 3);
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, 2, 12).ok());
    for (int l = 0; l < c.layers; ++l)
        for (int b = 0; b < 2; ++b)
            for (int h = 0; h < c.heads; ++h) {
                const gpt::View P = gpt::attention_map(acts, l, b, h).value();  // (12,12)
                for (int i = 0; i < 12; ++i) {
                    double sum = 0;
                    for (int j = 0; j < 12; ++j) {
                        // the patterns written out, independent of AttentionMask::allows
                        bool allowed = j <= i;
                        if (l == 1) allowed = allowed && i - j < 3;
                        if (l == 2) allowed = allowed && (i - j < 4 || (i - j) % 4 == 0);
                        if (!allowed) CHECK(P(i, j) == 0.0f);
                        else CHECK(P(i, j) > 0.0f);
                        sum += P[i * 12 + j];
                    }
                    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
                }
            }
}

TEST_CASE("gpt hooks: ablating a head equals zeroing its columns of Wo") {
    const gpt::Config c = mixed_config();
    const gpt::Model m = spiky_model(c, 4);
    const std::vector<int> tokens = test::random_tokens(2 * 12, c.vocab, 5);
    gpt::Hooks hooks;
    hooks.ablations = {{1, 2}};
    const std::vector<float> ablated = logits_of(m, tokens, 2, 12, &hooks);
    gpt::Model zeroed = m;
    const int hs = c.width / c.heads;
    float* wo = zeroed.at(zeroed.layout.blocks[1].wo);  // (C,C): out rows, in columns
    for (int r = 0; r < c.width; ++r)
        for (int k = 2 * hs; k < 3 * hs; ++k) wo[r * c.width + k] = 0.0f;
    const std::vector<float> by_weights = logits_of(zeroed, tokens, 2, 12);
    const std::vector<float> plain = logits_of(m, tokens, 2, 12);
    CHECK(test::scaled_max_diff(ablated.data(), by_weights.data(), plain.size()) < 1e-6);
    CHECK(test::scaled_max_diff(ablated.data(), plain.data(), plain.size()) > 1e-3);
    // the head's output as read from the activations is zero
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, 2, 12, &hooks).ok());
    for (int r = 0; r < 24; ++r)
        for (int k = 2 * hs; k < 3 * hs; ++k) CHECK(acts.ptr(acts.blocks[1].atty)[r * c.width + k] == 0.0f);
}

TEST_CASE("gpt hooks: adding to the residual after the embeddings equals shifting wpe") {
    const gpt::Config c = mixed_config();
    const gpt::Model m = spiky_model(c, 6);
    const std::vector<int> tokens = test::random_tokens(2 * 12, c.vocab, 7);
    Rng rng(8);
    gpt::Hooks hooks;
    hooks.residual_adds.push_back({0, 5, std::vector<float>((size_t)c.width)});
    for (float& x : hooks.residual_adds[0].vector) x = rng.normal(0.0f, 0.5f);
    const std::vector<float> hooked = logits_of(m, tokens, 2, 12, &hooks);
    gpt::Model shifted = m;
    for (int k = 0; k < c.width; ++k) shifted.at(shifted.layout.wpe)[5 * c.width + k] += hooks.residual_adds[0].vector[(size_t)k];
    const std::vector<float> by_weights = logits_of(shifted, tokens, 2, 12);
    CHECK(test::scaled_max_diff(hooked.data(), by_weights.data(), hooked.size()) < 1e-6);
    // positions before 5 are untouched (causality); position 5 changes
    const std::vector<float> plain = logits_of(m, tokens, 2, 12);
    const size_t V = (size_t)c.vocab;
    CHECK(test::scaled_max_diff(hooked.data(), plain.data(), 5 * V) == 0.0);
    CHECK(test::scaled_max_diff(hooked.data() + 5 * V, plain.data() + 5 * V, V) > 1e-3);
    // the residual after the last block, read from the activations, is what LNf sees
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, 2, 12).ok());
    const float* r = acts.residual(c.layers);
    double mean = 0;
    for (int k = 0; k < c.width; ++k) mean += r[k];
    mean /= c.width;
    CHECK(acts.ptr(acts.lnf_mean)[0] == doctest::Approx(mean).epsilon(1e-5));
}

TEST_CASE("gpt generate: KV-cache logits equal the full forward's at every position") {
    for (bool attention_only : {false, true}) {
        gpt::Config c = mixed_config();
        c.attention_only = attention_only;
        const gpt::Model m = spiky_model(c, 9);
        const std::vector<int> tokens = test::random_tokens(12, c.vocab, 10);
        gpt::Hooks hooks;
        hooks.ablations = {{2, 0}};
        hooks.residual_adds.push_back({1, 4, std::vector<float>((size_t)c.width, 0.3f)});
        for (const gpt::Hooks* hk : {(const gpt::Hooks*)nullptr, (const gpt::Hooks*)&hooks}) {
            const std::vector<float> full = logits_of(m, tokens, 1, 12, hk);
            gpt::KvCache cache = gpt::make_cache(c);
            std::vector<float> step_logits((size_t)12 * c.vocab);
            for (int t = 0; t < 12; ++t)
                REQUIRE(gpt::step(m, cache, tokens[(size_t)t], step_logits.data() + (size_t)t * c.vocab, hk).ok());
            INFO("attention_only " << attention_only << ", hooks " << (hk != nullptr));
            CHECK(test::scaled_max_diff(step_logits.data(), full.data(), full.size()) < 1e-5);
            std::vector<float> spare((size_t)c.vocab);
            CHECK(mentions(gpt::step(m, cache, 1, spare.data()), "longer than the context"));
        }
    }
}

TEST_CASE("gpt generate: greedy, top-k and temperature sampling") {
    const gpt::Config c = mixed_config();
    const gpt::Model m = spiky_model(c, 11);
    Rng rng(1);
    auto greedy = gpt::generate(m, {1, 2, 3}, 6, gpt::Sampling{}, rng);
    REQUIRE(greedy.ok());
    CHECK(greedy.value().size() == 9);
    // greedy: each generated token is the argmax of the full forward over its prefix
    for (size_t t = 3; t < 9; ++t) {
        std::vector<int> prefix(greedy.value().begin(), greedy.value().begin() + (long)t);
        const std::vector<float> lg = logits_of(m, prefix, 1, (int)t);
        const float* last = lg.data() + (t - 1) * c.vocab;
        CHECK(greedy.value()[t] == (int)(std::max_element(last, last + c.vocab) - last));
    }
    // top_k = 1 at any temperature is greedy
    auto top1 = gpt::generate(m, {1, 2, 3}, 6, gpt::Sampling{2.0f, 1}, rng);
    CHECK(top1.value() == greedy.value());
    // same seed, same samples
    Rng a(5), b(5);
    CHECK(gpt::generate(m, {4}, 8, gpt::Sampling{1.0f, 0}, a).value() ==
          gpt::generate(m, {4}, 8, gpt::Sampling{1.0f, 0}, b).value());
    // sample(): frequencies follow softmax(logits / temperature); top-k keeps the k largest
    const float logits[4] = {0.0f, 1.0f, 2.0f, -1.0f};
    int counts[4] = {0, 0, 0, 0}, counts_k2[4] = {0, 0, 0, 0};
    Rng r(3);
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        ++counts[gpt::sample(logits, 4, gpt::Sampling{2.0f, 0}, r)];
        ++counts_k2[gpt::sample(logits, 4, gpt::Sampling{1.0f, 2}, r)];
    }
    double z = 0;
    for (float l : logits) z += std::exp(l / 2.0);
    for (int k = 0; k < 4; ++k) CHECK((double)counts[k] / n == doctest::Approx(std::exp(logits[k] / 2.0) / z).epsilon(0.05));
    CHECK(counts_k2[0] == 0);
    CHECK(counts_k2[3] == 0);
    CHECK((double)counts_k2[2] / n == doctest::Approx(std::exp(1.0) / (1.0 + std::exp(1.0))).epsilon(0.03));
    // bad input
    CHECK_FALSE(gpt::generate(m, {1, 2}, 11, gpt::Sampling{}, rng).ok());
    CHECK_FALSE(gpt::generate(m, {}, 1, gpt::Sampling{}, rng).ok());
    CHECK_FALSE(gpt::generate(m, {1, 20}, 1, gpt::Sampling{}, rng).ok());
    CHECK(gpt::generate(m, {1}, 1, gpt::Sampling{-1.0f, 0}, rng).error().message.find("temperature") != std::string::npos);
    CHECK(gpt::generate(m, {1}, 1, gpt::Sampling{1.0f, 99}, rng).error().message.find("top_k") != std::string::npos);
}

// The hand-written backward against finite differences of the whole model's loss.
#include <doctest/doctest.h>

#include <cmath>

#include "gpt_test_util.h"
#include "icl/gpt.h"
#include "icl/rng.h"

using namespace icl;

namespace {

// For every named tensor: a random unit direction u inside it; the central difference
// (L(p + h u) − L(p − h u)) / 2h must match the backward's g·u. Loss in float, so the
// weights are drawn larger than GPT-2's init to make the gradients stand above noise.
void check_directional_derivatives(gpt::Config cfg, int B, int T, uint64_t seed,
                                   const gpt::Hooks* hooks = nullptr) {
    REQUIRE(gpt::validate(cfg).ok());
    gpt::Model m = gpt::make_model(cfg, seed).value();
    Rng rng(seed + 1);
    for (float& p : m.params) p += rng.normal(0.0f, 0.3f);
    const std::vector<int> tokens = test::random_tokens(B * T, cfg.vocab, seed + 2);
    std::vector<int> targets = test::random_tokens(B * T, cfg.vocab, seed + 3);
    targets[1] = -1;  // an unscored position

    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), targets.data(), B, T, hooks).ok());
    std::vector<float> grads(m.params.size(), 0.0f);
    REQUIRE(gpt::backward(m, acts, grads.data()).ok());
    {
        // Told the buffer is 0, backward stores the weight products' gradients: the same
        // bits (no tensor gets two contributions of which the second is stored). Not told,
        // it adds: onto a buffer of ones, every entry is 1 + its gradient.
        std::vector<float> stored(m.params.size(), 0.0f), added(m.params.size(), 1.0f);
        REQUIRE(gpt::backward(m, acts, stored.data(), gpt::GradsOnEntry::zero).ok());
        CHECK(stored == grads);
        REQUIRE(gpt::backward(m, acts, added.data()).ok());
        size_t off = 0;
        for (size_t i = 0; i < grads.size(); ++i)
            off += std::fabs(added[i] - (1.0f + grads[i])) > 1e-5f * (1.0f + std::fabs(grads[i]));
        CHECK(off == 0);
    }

    auto loss_at = [&](const std::vector<float>& params) {
        gpt::Model probe = m;
        probe.params = params;
        gpt::Activations a;
        REQUIRE(gpt::forward(probe, a, tokens.data(), targets.data(), B, T, hooks).ok());
        return (double)a.loss;
    };
    const float h = 1e-2f;
    for (const gpt::TensorInfo& t : m.layout.tensors) {
        std::vector<float> u(t.size);
        double norm = 0.0;
        for (float& x : u) {
            x = rng.normal();
            norm += (double)x * x;
        }
        double g_dot_u = 0.0;
        for (size_t i = 0; i < t.size; ++i) {
            u[i] = (float)(u[i] / std::sqrt(norm));
            g_dot_u += (double)grads[t.offset + i] * u[i];
        }
        std::vector<float> plus = m.params, minus = m.params;
        for (size_t i = 0; i < t.size; ++i) {
            plus[t.offset + i] += h * u[i];
            minus[t.offset + i] -= h * u[i];
        }
        const double fd = (loss_at(plus) - loss_at(minus)) / (2.0 * h);
        INFO("tensor " << t.name << ": backward " << g_dot_u << ", finite difference " << fd);
        CHECK(std::fabs(fd - g_dot_u) <= 2e-2 * std::fabs(g_dot_u) + 2e-4);
    }
}

}  // namespace

TEST_CASE("gpt backward: finite differences, dense model with MLP") {
    gpt::Config cfg;
    cfg.vocab = 11; cfg.context = 6; cfg.width = 8; cfg.layers = 2; cfg.heads = 2;
    check_directional_derivatives(cfg, 2, 5, 11);
}

// window 2 < T = 7: the banded layer takes the path that scores only its band
TEST_CASE("gpt backward: finite differences, banded + strided layers") {
    gpt::Config cfg;
    cfg.vocab = 9; cfg.context = 7; cfg.width = 12; cfg.layers = 3; cfg.heads = 3; cfg.mlp_ratio = 2;
    cfg.attention = {AttentionMask{}, AttentionMask{AttentionMask::banded, 2, 0},
                     AttentionMask{AttentionMask::strided, 0, 3}};
    check_directional_derivatives(cfg, 2, 7, 12);
}

TEST_CASE("gpt backward: finite differences, attention-only model with an ablated head") {
    gpt::Config cfg;
    cfg.vocab = 7; cfg.context = 5; cfg.width = 8; cfg.layers = 2; cfg.heads = 2;
    cfg.attention_only = true;
    gpt::Hooks hooks;
    hooks.ablations = {{1, 0}};
    hooks.residual_adds = {{1, 2, std::vector<float>(8, 0.5f)}};
    check_directional_derivatives(cfg, 1, 5, 13, &hooks);
}

TEST_CASE("gpt backward: finite differences, momentum attention (Dai et al. 2023) and a patched head") {
    gpt::Config cfg;
    cfg.vocab = 9; cfg.context = 6; cfg.width = 8; cfg.layers = 2; cfg.heads = 2;
    cfg.momentum = 0.6f;
    check_directional_derivatives(cfg, 2, 6, 14);
    cfg.attention_only = true;
    gpt::Hooks hooks;
    hooks.head_patches = {{0, 1, 3, std::vector<float>(4, 0.7f)}};
    check_directional_derivatives(cfg, 1, 6, 15, &hooks);
}

TEST_CASE("gpt backward: finite differences, banded layers with momentum, an ablated and a patched head") {
    gpt::Config cfg;
    cfg.vocab = 9; cfg.context = 7; cfg.width = 8; cfg.layers = 2; cfg.heads = 2;
    cfg.momentum = 0.6f;
    cfg.attention = gpt::alternating_dense_banded(2, 3);  // layer 1 banded, window 3 < T
    check_directional_derivatives(cfg, 2, 7, 16);
    gpt::Hooks hooks;
    hooks.ablations = {{1, 0}};
    hooks.head_patches = {{1, 1, 4, std::vector<float>(4, 0.7f)}};
    check_directional_derivatives(cfg, 2, 7, 17, &hooks);
}

// softmax, linear (Katharopoulos et al. 2020) and delta-rule (Schlag et al. 2021) layers in
// one model; the delta layer's β projection (attn.wb, attn.bb) is checked like any tensor
TEST_CASE("gpt backward: finite differences, linear and delta-rule layers, an ablated head") {
    gpt::Config cfg;
    cfg.vocab = 9; cfg.context = 7; cfg.width = 8; cfg.layers = 3; cfg.heads = 2; cfg.mlp_ratio = 2;
    cfg.kinds = {gpt::AttentionKind::delta, gpt::AttentionKind::softmax, gpt::AttentionKind::linear};
    check_directional_derivatives(cfg, 2, 7, 18);
    gpt::Hooks hooks;
    hooks.ablations = {{2, 1}};
    cfg.kinds = {gpt::AttentionKind::linear, gpt::AttentionKind::delta, gpt::AttentionKind::delta};
    check_directional_derivatives(cfg, 1, 7, 19, &hooks);
}

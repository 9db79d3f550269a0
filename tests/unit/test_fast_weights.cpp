// Linear attention (Katharopoulos et al. 2020) and the delta rule (Schlag, Irie,
// Schmidhuber 2021) as layers of the tiny GPT: the kernels against their scalar
// references and finite differences; each kind's parallel attention form against its
// recurrent fast-weight form; the heads' backward against finite differences; the
// KV-cache / fast-weight generation step against the full forward; checkpoints that
// record the kind. (PyTorch fixtures: test_gpt_golden.cpp, gpt_fast.bin.)
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gpt_test_util.h"
#include "each_isa.h"
#include "icl/checkpoint.h"
#include "icl/generate.h"
#include "icl/gpt.h"
#include "icl/kernels.h"
#include "icl/rng.h"

using namespace icl;
using gpt::AttentionKind;

namespace {

std::vector<float> rand_vec(Rng& rng, size_t n, float sd) {
    std::vector<float> v(n);
    for (float& x : v) x = rng.normal(0.0f, sd);
    return v;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double d = 0.0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (double)std::fabs(a[i] - b[i]));
    return d;
}

}  // namespace

TEST_CASE("fast weights: feature map and fast-weight step match the references, every isa") {
    test::EachIsa isas;
    Rng rng(3);
    for (int n : {1, 7, 17, 65}) {
        const std::vector<float> x = rand_vec(rng, (size_t)n, 2.0f), dy = rand_vec(rng, (size_t)n, 1.0f);
        std::vector<float> want(n), got(n), dwant(n, 0.5f), dgot(n, 0.5f);
        ref::feature_map_forward(want.data(), x.data(), (size_t)n);
        ref::feature_map_backward(dwant.data(), x.data(), dy.data(), (size_t)n);
        for (int i = 0; i < n; ++i) {  // φ(x) = elu(x) + 1 > 0, continuous at 0
            CHECK(want[(size_t)i] > 0.0f);
            CHECK(want[(size_t)i] == doctest::Approx(x[(size_t)i] > 0 ? x[(size_t)i] + 1 : std::exp(x[(size_t)i])));
        }
        for (Isa isa : isas.list) {
            set_isa(isa);
            CAPTURE(isa_name(isa));
            feature_map_forward(got.data(), x.data(), (size_t)n);
            std::fill(dgot.begin(), dgot.end(), 0.5f);
            feature_map_backward(dgot.data(), x.data(), dy.data(), (size_t)n);
            CHECK(max_abs_diff(got, want) <= 1e-6 * 8);
            CHECK(max_abs_diff(dgot, dwant) <= 1e-6 * 8);
        }
    }
    // the backward against central differences of Σ dy·φ(x), away from the kink at 0
    std::vector<float> x = {-1.3f, -0.2f, 0.4f, 2.0f}, dy = {0.7f, -1.1f, 0.3f, 0.9f}, dx(4, 0.0f);
    ref::feature_map_backward(dx.data(), x.data(), dy.data(), 4);
    for (size_t i = 0; i < 4; ++i) {
        const float h = 1e-3f;
        float a, b, xp = x[i] + h, xm = x[i] - h;
        ref::feature_map_forward(&a, &xp, 1);
        ref::feature_map_forward(&b, &xm, 1);
        CHECK(dx[i] == doctest::Approx(dy[i] * (a - b) / (2 * h)).epsilon(1e-3));
    }
    for (bool delta : {false, true})
        for (int rows : {1, 5, 17})
            for (int dk : {1, 4, 9, 33}) {
                CAPTURE(delta); CAPTURE(rows); CAPTURE(dk);
                const std::vector<float> W0 = rand_vec(rng, (size_t)rows * dk, 0.5f);
                const std::vector<float> q = rand_vec(rng, (size_t)dk, 1.0f), k = rand_vec(rng, (size_t)dk, 1.0f),
                                         v = rand_vec(rng, (size_t)rows, 1.0f);
                std::vector<float> Wref = W0, yref((size_t)rows);
                ref::fast_weight_step(Wref.data(), yref.data(), q.data(), k.data(), v.data(), 0.7f, delta, rows, dk);
                for (Isa isa : isas.list) {
                    set_isa(isa);
                    std::vector<float> W = W0, y((size_t)rows);
                    fast_weight_step(W.data(), y.data(), q.data(), k.data(), v.data(), 0.7f, delta, rows, dk);
                    CHECK(max_abs_diff(W, Wref) <= 1e-5);
                    CHECK(max_abs_diff(y, yref) <= 1e-5 * dk);
                }
            }
}

// Schlag et al.'s reading of the delta rule: one gradient step of size β on
// ½‖W k − v‖². With β = 1 and ‖k‖ = 1 that step lands on W k = v exactly; with β = ½ it
// halves the error. Checked from the loss's own gradient, not from the kernel's formula.
TEST_CASE("fast weights: the delta rule is one gradient step on ½‖W k − v‖²") {
    Rng rng(5);
    const int rows = 5, dk = 6;
    std::vector<float> W = rand_vec(rng, rows * dk, 0.5f), k = rand_vec(rng, dk, 1.0f), v = rand_vec(rng, rows, 1.0f);
    float n = 0.0f;
    for (float x : k) n += x * x;
    for (float& x : k) x /= std::sqrt(n);
    std::vector<float> gd = W;  // W − β ∇_W ½‖W k − v‖² = W − β (W k − v) kᵀ
    for (int r = 0; r < rows; ++r) {
        float e = -v[(size_t)r];
        for (int c = 0; c < dk; ++c) e += W[(size_t)r * dk + c] * k[(size_t)c];
        for (int c = 0; c < dk; ++c) gd[(size_t)r * dk + c] -= 0.5f * e * k[(size_t)c];
    }
    std::vector<float> y(rows), half = W;
    fast_weight_step(half.data(), y.data(), k.data(), k.data(), v.data(), 0.5f, true, rows, dk);
    CHECK(max_abs_diff(half, gd) <= 1e-6);
    fast_weight_step(W.data(), y.data(), k.data(), k.data(), v.data(), 1.0f, true, rows, dk);
    CHECK(max_abs_diff(y, v) <= 1e-5);  // read with q = k after the write: W k = v
}

// The two forms of each kind on the same q, k, v: attention over the sequence (training)
// and fast weights written token by token (generation).
TEST_CASE("fast weights: parallel attention form = recurrent fast-weight form, linear and delta") {
    Rng rng(7);
    const int T = 24, hs = 8;
    const std::vector<float> q = rand_vec(rng, T * hs, 1.0f), k = rand_vec(rng, T * hs, 1.0f),
                             v = rand_vec(rng, T * hs, 1.0f);
    std::vector<float> beta(T);
    for (float& b : beta) b = rng.uniform(0.05f, 0.95f);
    std::vector<float> P(T * T), U(T * hs), O(T * hs), Orec(T * hs), scratch(T * T + 2 * T * hs);

    gpt::linear_head_forward(P.data(), O.data(), q.data(), k.data(), v.data(), scratch.data(), T, hs);
    std::vector<float> states((size_t)T * (hs + 1) * hs);
    gpt::fast_weight_head(AttentionKind::linear, Orec.data(), states.data(), q.data(), k.data(), v.data(),
                          nullptr, T, hs);
    CHECK(max_abs_diff(O, Orec) <= 2e-6);
    for (int t = 0; t < T; ++t) {  // each row of P is a distribution over j <= t
        double s = 0.0;
        for (int j = 0; j < T; ++j) {
            if (j > t) CHECK(P[(size_t)t * T + j] == 0.0f);
            s += P[(size_t)t * T + j];
        }
        CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
    }
    // the final state is Σ_j v_j ⊗ φ(k_j) and z = Σ_j φ(k_j) (Katharopoulos et al.'s S_T, z_T)
    std::vector<float> fk(T * hs), S((size_t)(hs + 1) * hs, 0.0f);
    ref::feature_map_forward(fk.data(), k.data(), fk.size());
    for (int j = 0; j < T; ++j)
        for (int r = 0; r <= hs; ++r)
            for (int c = 0; c < hs; ++c)
                S[(size_t)r * hs + c] += (r < hs ? v[(size_t)j * hs + r] : 1.0f) * fk[(size_t)j * hs + c];
    CHECK(max_abs_diff(std::vector<float>(states.end() - (long)S.size(), states.end()), S) <= 2e-5);

    gpt::delta_head_forward(P.data(), U.data(), O.data(), q.data(), k.data(), v.data(), beta.data(),
                            scratch.data(), T, hs);
    gpt::fast_weight_head(AttentionKind::delta, Orec.data(), nullptr, q.data(), k.data(), v.data(),
                          beta.data(), T, hs);
    double scale = 0.0;
    for (float x : Orec) scale = std::max(scale, (double)std::fabs(x));
    INFO("delta: largest |y| " << scale);
    CHECK(scale > 0.05);
    CHECK(max_abs_diff(O, Orec) <= 2e-6);
}

// Each head's backward against central differences of L = Σ G ∘ O (G random), in double
// steps on float functions: directional derivatives along random unit directions.
TEST_CASE("fast weights: linear and delta heads' backward match finite differences") {
    Rng rng(11);
    const int T = 9, hs = 4;
    std::vector<float> q = rand_vec(rng, T * hs, 1.0f), k = rand_vec(rng, T * hs, 1.0f),
                       v = rand_vec(rng, T * hs, 1.0f), G = rand_vec(rng, T * hs, 1.0f), beta(T);
    for (float& b : beta) b = rng.uniform(0.1f, 0.9f);
    std::vector<float> scratch(2 * T * T + 6 * T * hs + 3 * T + hs), P(T * T), U(T * hs), O(T * hs);
    for (AttentionKind kind : {AttentionKind::linear, AttentionKind::delta}) {
        CAPTURE(gpt::attention_kind_name(kind));
        auto loss = [&](const std::vector<float>& qq, const std::vector<float>& kk,
                        const std::vector<float>& vv, const std::vector<float>& bb) {
            if (kind == AttentionKind::linear)
                gpt::linear_head_forward(P.data(), O.data(), qq.data(), kk.data(), vv.data(), scratch.data(), T, hs);
            else
                gpt::delta_head_forward(P.data(), U.data(), O.data(), qq.data(), kk.data(), vv.data(), bb.data(),
                                        scratch.data(), T, hs);
            double s = 0.0;
            for (size_t i = 0; i < O.size(); ++i) s += (double)G[i] * O[i];
            return s;
        };
        loss(q, k, v, beta);
        std::vector<float> dq(T * hs), dk(T * hs), dv(T * hs), db(T, 0.0f);
        if (kind == AttentionKind::linear)
            gpt::linear_head_backward(dq.data(), dk.data(), dv.data(), G.data(), q.data(), k.data(), v.data(),
                                      P.data(), scratch.data(), T, hs);
        else
            gpt::delta_head_backward(dq.data(), dk.data(), dv.data(), db.data(), G.data(), q.data(), k.data(),
                                     v.data(), beta.data(), P.data(), U.data(), scratch.data(), T, hs);
        const float h = 2e-3f;
        std::vector<float>* inputs[] = {&q, &k, &v, &beta};
        const std::vector<float>* grads[] = {&dq, &dk, &dv, &db};
        for (int which = 0; which < (kind == AttentionKind::delta ? 4 : 3); ++which) {
            std::vector<float>& x = *inputs[which];
            std::vector<float> u = rand_vec(rng, x.size(), 1.0f);
            double nrm = 0.0, gu = 0.0;
            for (float a : u) nrm += (double)a * a;
            for (size_t i = 0; i < u.size(); ++i) {
                u[i] = (float)(u[i] / std::sqrt(nrm));
                gu += (double)(*grads[which])[i] * u[i];
            }
            const std::vector<float> x0 = x;
            for (size_t i = 0; i < x.size(); ++i) x[i] = x0[i] + h * u[i];
            const double lp = loss(q, k, v, beta);
            for (size_t i = 0; i < x.size(); ++i) x[i] = x0[i] - h * u[i];
            const double lm = loss(q, k, v, beta);
            x = x0;
            const double fd = (lp - lm) / (2.0 * h);
            INFO("input " << which << ": backward " << gu << ", finite difference " << fd);
            CHECK(std::fabs(fd - gu) <= 1e-2 * std::fabs(gu) + 1e-3);
        }
    }
}

// The whole model: the full forward (parallel forms) and generate's step (a KV cache for
// softmax layers, one fast-weight state per head for the others) give the same logits.
TEST_CASE("fast weights: generation with fast-weight states = the full forward, and its state is constant") {
    gpt::Config c;
    c.vocab = 13; c.context = 16; c.width = 16; c.layers = 3; c.heads = 2; c.mlp_ratio = 2;
    c.kinds = {AttentionKind::linear, AttentionKind::softmax, AttentionKind::delta};
    gpt::Model m = gpt::make_model(c, 21).value();
    Rng rng(22);
    for (float& p : m.params) p += rng.normal(0.0f, 0.2f);
    const int T = 16;
    const std::vector<int> tokens = test::random_tokens(T, c.vocab, 23);
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, 1, T).ok());
    gpt::KvCache cache = gpt::make_cache(c);
    // one softmax layer caches (T, C) keys and values; two fast layers keep H x (rows, hs)
    CHECK(cache.k.size() == (size_t)T * c.width);
    CHECK(cache.fw.size() == (size_t)c.heads * (9 * 8 + 8 * 8));
    std::vector<float> logits(c.vocab);
    double worst = 0.0;
    for (int t = 0; t < T; ++t) {
        REQUIRE(gpt::step(m, cache, tokens[(size_t)t], logits.data()).ok());
        for (int i = 0; i < c.vocab; ++i)
            worst = std::max(worst, (double)std::fabs(logits[(size_t)i] - acts.logits_ptr()[(size_t)t * c.vocab + i]));
    }
    INFO("largest logit difference " << worst);
    CHECK(worst <= 2e-5);
}

TEST_CASE("fast weights: configs and checkpoints record the kind; mismatches are named errors") {
    gpt::Config c;
    c.vocab = 11; c.context = 8; c.width = 12; c.layers = 2; c.heads = 3; c.mlp_ratio = 2;
    c.kinds = {AttentionKind::delta, AttentionKind::linear};
    gpt::Model m = gpt::make_model(c, 4).value();
    REQUIRE(m.find("h0.attn.wb") != nullptr);
    CHECK(m.find("h0.attn.wb")->shape == std::vector<int>{3, 12});
    CHECK(m.find("h1.attn.wb") == nullptr);
    CHECK(gpt::parameter_count(c) == m.params.size());
    const std::vector<uint8_t> bytes = checkpoint::save(m);
    CHECK(bytes[8] == 3);  // version 3: the kinds are recorded
    Expected<gpt::Model> back = checkpoint::load(bytes.data(), bytes.size());
    REQUIRE(back.ok());
    CHECK(back.value().config.kind(0) == AttentionKind::delta);
    CHECK(back.value().config.kind(1) == AttentionKind::linear);
    CHECK(back.value().params == m.params);
    // the same model in f16 (version 3 carries the encoding too)
    Expected<std::vector<uint8_t>> half = checkpoint::save(m, checkpoint::Encoding::f16);
    REQUIRE(half.ok());
    CHECK(half.value()[8] == 3);
    checkpoint::Encoding stored = checkpoint::Encoding::f32;
    Expected<gpt::Model> back16 = checkpoint::load(half.value().data(), half.value().size(), &stored);
    REQUIRE(back16.ok());
    CHECK(stored == checkpoint::Encoding::f16);
    CHECK(back16.value().config.kind(0) == AttentionKind::delta);
    CHECK(half.value().size() < bytes.size());
    gpt::Config other = c;
    other.kinds = {AttentionKind::delta, AttentionKind::softmax};
    gpt::Model into = gpt::make_model(other, 4).value();
    const std::vector<float> before = into.params;
    Status s = checkpoint::load_into(into, bytes.data(), bytes.size());
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("layer 1 linear attention (the model has softmax)") != std::string::npos);
    CHECK(into.params == before);
    // an all-softmax model still writes version 1, byte for byte what older builds wrote
    gpt::Config plain = c;
    plain.kinds.clear();
    CHECK(checkpoint::save(gpt::make_model(plain, 4).value())[8] == 1);
    // a kind past delta in layer 1's record (16-byte header, 7 config fields, 16 bytes a layer)
    std::vector<uint8_t> bad_bytes = bytes;
    bad_bytes[16 + 7 * 4 + 16 * 1 + 12] = 7;
    const uint64_t h = checkpoint::fnv1a64(bad_bytes.data(), bad_bytes.size() - 8);
    for (int i = 0; i < 8; ++i) bad_bytes[bad_bytes.size() - 8 + i] = (uint8_t)(h >> (8 * i));
    Expected<gpt::Model> unknown = checkpoint::load(bad_bytes.data(), bad_bytes.size());
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message == "checkpoint: layer 1 attention kind 7 is unknown (0 softmax, 1 linear, 2 delta)");

    gpt::Config bad = c;
    bad.attention = gpt::alternating_dense_banded(2, 3);  // layer 1: banded + linear
    REQUIRE_FALSE(gpt::validate(bad).ok());
    CHECK(gpt::validate(bad).error().message.find("layer 1 is linear attention, which takes the causal mask only") !=
          std::string::npos);
    bad = c;
    bad.kinds = {AttentionKind::linear};
    CHECK(gpt::validate(bad).error().message.find("1 attention kinds given for 2 layers") != std::string::npos);
    bad = c;
    bad.momentum = 0.5f;
    CHECK(gpt::validate(bad).error().message.find("momentum attention applies to softmax layers only") !=
          std::string::npos);
}

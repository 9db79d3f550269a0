// Training: the optimizer's mask, decay and clipping; a 2-layer model learning to copy;
// divergence stopping with the step named.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "alloc_meter.h"
#include "gpt_test_util.h"
#include "icl/gpt.h"
#include "icl/finetune.h"
#include "icl/gpt_train.h"
#include "icl/optim.h"

using namespace icl;

namespace {

gpt::Config small_config() {
    gpt::Config c;
    c.vocab = 10; c.context = 10; c.width = 16; c.layers = 2; c.heads = 2;
    return c;
}

// Copy task: n random digits from [0, 8), the separator 8, the same digits again.
// Only the copied half is scored (targets -1 elsewhere).
void copy_batch(Rng& rng, int B, int n, std::vector<int>& tokens, std::vector<int>& targets) {
    const int T = 2 * n + 1;
    tokens.assign((size_t)B * T, 0);
    targets.assign((size_t)B * T, -1);
    for (int b = 0; b < B; ++b) {
        int* x = tokens.data() + (size_t)b * T;
        for (int i = 0; i < n; ++i) x[i] = x[n + 1 + i] = (int)rng.below(8);
        x[n] = 8;
        for (int i = n; i < 2 * n; ++i) targets[(size_t)b * T + i] = x[i + 1];
    }
}

}  // namespace

TEST_CASE("optimizer: only the trainable tensors change (W_K and W_V)") {
    gpt::Model m = gpt::make_model(small_config(), 3).value();
    const gpt::Model before = m;
    OptimizerConfig oc;
    oc.lr = 1e-2f;
    oc.weight_decay = 0.1f;
    auto trainer = gpt::Trainer::make(m, oc, {"h0.attn.wk", "h0.attn.wv", "h1.attn.wk", "h1.attn.wv"});
    REQUIRE(trainer.ok());
    const std::vector<int> tokens = test::random_tokens(2 * 8, 10, 4), targets = test::random_tokens(2 * 8, 10, 5);
    REQUIRE(trainer.value().step(tokens.data(), targets.data(), 2, 8).ok());
    for (const gpt::TensorInfo& t : m.layout.tensors) {
        bool changed = false;
        for (size_t i = 0; i < t.size; ++i) changed = changed || m.params[t.offset + i] != before.params[t.offset + i];
        const bool trainable = t.name.find("attn.wk") != std::string::npos || t.name.find("attn.wv") != std::string::npos;
        INFO(t.name);
        CHECK(changed == trainable);
    }
    CHECK_FALSE(gpt::Trainer::make(m, oc, {"h0.attn.wz"}).ok());
}

TEST_CASE("optimizer: SGD momentum, decay only where flagged, global-norm clipping") {
    // two slots of two floats; gradient norm 5 clipped to 1
    std::vector<ParamSlot> slots = {{"a", 0, 2, true, true}, {"b", 2, 2, false, true}};
    OptimizerConfig oc;
    oc.kind = OptimizerConfig::sgd;
    oc.lr = 0.5f;
    oc.momentum = 0.9f;
    oc.weight_decay = 0.1f;
    oc.clip_norm = 1.0f;
    Optimizer opt(oc, slots, 4);
    std::vector<float> p = {1, 1, 1, 1};
    std::vector<float> g = {3, 0, 0, 4};
    Expected<float> norm = opt.step(p.data(), g.data());
    REQUIRE(norm.ok());
    CHECK(norm.value() == doctest::Approx(5.0f));
    // clipped g = (0.6, 0, 0, 0.8) (up to the 1e-6 in the divisor); slot a decays
    CHECK(p[0] == doctest::Approx(1 - 0.5f * (0.6f + 0.1f)).epsilon(1e-5));
    CHECK(p[1] == doctest::Approx(1 - 0.5f * 0.1f).epsilon(1e-5));
    CHECK(p[2] == doctest::Approx(1.0f));
    CHECK(p[3] == doctest::Approx(1 - 0.5f * 0.8f).epsilon(1e-5));
    // second step with zero gradient: the momentum buffer alone moves b
    std::vector<float> zero = {0, 0, 0, 0};
    REQUIRE(opt.step(p.data(), zero.data()).ok());
    CHECK(p[3] == doctest::Approx(0.6f - 0.5f * 0.9f * 0.8f).epsilon(1e-5));

    oc.lr = -1.0f;
    CHECK(validate(oc).error().message.find("lr") != std::string::npos);
}

TEST_CASE("training: a 2-layer GPT learns to copy 4 digits") {
    gpt::Config c;
    c.vocab = 9; c.context = 9; c.width = 32; c.layers = 2; c.heads = 2;
    gpt::Model m = gpt::make_model(c, 1).value();
    OptimizerConfig oc;
    oc.lr = 1e-2f;
    oc.beta2 = 0.99f;
    oc.weight_decay = 0.01f;
    oc.clip_norm = 1.0f;
    auto trainer = gpt::Trainer::make(m, oc);
    REQUIRE(trainer.ok());
    Rng rng(7);
    std::vector<int> tokens, targets;
    const auto t0 = std::chrono::steady_clock::now();
    float first = 0.0f, last = 0.0f;
    const int steps = 120;
    for (int s = 0; s < steps; ++s) {
        copy_batch(rng, 16, 4, tokens, targets);
        Expected<float> loss = trainer.value().step(tokens.data(), targets.data(), 16, 9);
        REQUIRE_MESSAGE(loss.ok(), loss.error().message);
        if (s == 0) first = loss.value();
        last = loss.value();
    }
    // held-out batch: the copied digits are predicted
    copy_batch(rng, 64, 4, tokens, targets);
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, tokens.data(), targets.data(), 64, 9).ok());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("copy task: loss " << first << " -> " << last << " in " << steps << " steps, held-out "
                               << acts.loss << ", " << seconds << " s");
    CHECK(first > 1.8f);       // ln 8 = 2.08: chance
    CHECK(acts.loss < 0.05f);  // stated target
}

TEST_CASE("training: each step updates with that step's gradient alone (the optimizer consumes "
          "the trainable ones, the frozen ones are zeroed), as a loop with fresh gradients does") {
    // The Trainer zeroes no gradient buffer of its own after a completed step: AdamW leaves
    // the trainable slots' gradients at 0 as it reads them. Held to the plain loop: zeroed
    // gradients, forward, backward, Optimizer::step, every step; bit for bit.
    OptimizerConfig adamw;
    adamw.clip_norm = 0.05f;  // clips: the coefficient rides on the gradient AdamW consumes
    OptimizerConfig sgd;
    sgd.kind = OptimizerConfig::sgd;
    sgd.momentum = 0.9f;
    for (const OptimizerConfig& oc : {adamw, sgd})
        for (bool frozen : {false, true}) {
            INFO("sgd=" << (oc.kind == OptimizerConfig::sgd) << " frozen tensors=" << frozen);
            const std::vector<std::string> names =
                frozen ? std::vector<std::string>{"h0.attn.wk", "h1.mlp.w1"} : std::vector<std::string>{};
            gpt::Model a = gpt::make_model(small_config(), 4).value(), b = a;
            gpt::Trainer trainer = gpt::Trainer::make(a, oc, names).value();
            std::vector<ParamSlot> slots = gpt::param_slots(b);
            if (frozen) REQUIRE(set_trainable(slots, names).ok());
            Optimizer opt(oc, slots, b.params.size());
            gpt::Activations acts;
            std::vector<float> grads(b.params.size());
            Rng rng(6);
            std::vector<int> tokens, targets;
            for (int s = 0; s < 4; ++s) {
                copy_batch(rng, 3, 4, tokens, targets);
                if (s == 2) {  // a step refused before its backward changes nothing
                    std::vector<int> bad = tokens;
                    bad[5] = 99;
                    REQUIRE_FALSE(trainer.step(bad.data(), targets.data(), 3, 9).ok());
                }
                REQUIRE(trainer.step(tokens.data(), targets.data(), 3, 9).ok());
                std::fill(grads.begin(), grads.end(), 0.0f);
                REQUIRE(gpt::forward(b, acts, tokens.data(), targets.data(), 3, 9).ok());
                REQUIRE(gpt::backward(b, acts, grads.data()).ok());
                REQUIRE(opt.step(b.params.data(), grads.data()).ok());
            }
            size_t differ = 0;
            for (size_t i = 0; i < a.params.size(); ++i) differ += a.params[i] != b.params[i];
            CHECK(differ == 0);
        }
}

TEST_CASE("training: a huge learning rate diverges and the error names the step") {
    gpt::Model m = gpt::make_model(small_config(), 2).value();
    OptimizerConfig oc;
    oc.kind = OptimizerConfig::sgd;
    oc.lr = 1e6f;
    oc.momentum = 0.9f;
    auto trainer = gpt::Trainer::make(m, oc);
    REQUIRE(trainer.ok());
    const std::vector<int> tokens = test::random_tokens(4 * 10, 10, 1), targets = test::random_tokens(4 * 10, 10, 2);
    std::string error;
    int failed_at = 0;
    for (int s = 1; s <= 50 && error.empty(); ++s) {
        Expected<float> loss = trainer.value().step(tokens.data(), targets.data(), 4, 10);
        if (!loss.ok()) {
            error = loss.error().message;
            failed_at = s;
        }
    }
    REQUIRE_MESSAGE(!error.empty(), "training did not diverge");
    MESSAGE(error);
    CHECK(error.find("diverged at step " + std::to_string(failed_at)) != std::string::npos);
    for (float p : m.params) REQUIRE(std::isfinite(p));  // the failing step changed nothing
}

TEST_CASE("training: a step after the first allocates nothing (forward, backward, the optimizer)") {
    // gpt.h promises forward and backward keep their buffers between calls; the step
    // around them (targets, loss weights, momentum sums, clipping) must not allocate either.
    struct Case {
        const char* what;
        gpt::Config config;
        OptimizerConfig opt;
    };
    std::vector<Case> cases;
    gpt::Config c = small_config();
    c.momentum = 0.5f;  // momentum attention's running sums
    c.attention = {AttentionMask{}, AttentionMask{AttentionMask::banded, 3, 0}};
    OptimizerConfig opt;
    opt.clip_norm = 1e-3f;  // clips every step
    opt.weight_decay = 0.1f;
    cases.push_back({"softmax, momentum, banded, clipped", c, opt});
    gpt::Config f = small_config();
    f.kinds = {gpt::AttentionKind::linear, gpt::AttentionKind::delta};
    cases.push_back({"linear and delta heads", f, OptimizerConfig{}});
    OptimizerConfig sgd;
    sgd.kind = OptimizerConfig::sgd;
    cases.push_back({"sgd, only W_K and W_V trainable", small_config(), sgd});
    for (const Case& k : cases) {
        INFO(std::string(k.what));
        gpt::Model m = gpt::make_model(k.config, 5).value();
        std::vector<std::string> trainable;
        if (k.opt.kind == OptimizerConfig::sgd) trainable = {"h0.attn.wk", "h1.attn.wv"};
        gpt::Trainer trainer = gpt::Trainer::make(m, k.opt, trainable).value();
        Rng rng(9);
        std::vector<int> tokens, targets;
        copy_batch(rng, 3, 4, tokens, targets);  // T = 9, half the targets -1
        REQUIRE(trainer.step(tokens.data(), targets.data(), 3, 9).ok());
        copy_batch(rng, 3, 4, tokens, targets);
        size_t peak = 0;
        {
            testing::PeakMeter meter;
            REQUIRE(trainer.step(tokens.data(), targets.data(), 3, 9).ok());
            peak = meter.peak_above_start();
        }
        CHECK(peak == 0);
    }
}

TEST_CASE("gpt forward: one Activations reused across batch shapes grows to exactly the largest, "
          "then allocates nothing, and its logits equal a fresh one's") {
    // What a scorer that keeps its workspace relies on (recipe::score_hmm, whose fresh
    // Activations per call cost bayes_posterior 212K page faults): growth by a plain resize
    // would reserve up to twice the largest call and copy stale activations.
    const gpt::Model m = gpt::make_model(small_config(), 7).value();
    Rng rng(3);
    std::vector<int> small(7), large(10);
    for (int& t : small) t = (int)rng.below(10);
    for (int& t : large) t = (int)rng.below(10);
    gpt::Activations acts;
    REQUIRE(gpt::forward(m, acts, small.data(), nullptr, 1, 7).ok());
    const size_t n_small = acts.buf.size();
    REQUIRE(gpt::forward(m, acts, large.data(), nullptr, 1, 10).ok());
    const size_t n_large = acts.buf.size();
    REQUIRE(n_large > n_small);
    CHECK(n_large < 2 * n_small);  // so a geometric growth would show in the capacity
    CHECK(acts.buf.capacity() == n_large);
    size_t peak = 0;
    {
        testing::PeakMeter meter;
        REQUIRE(gpt::forward(m, acts, small.data(), nullptr, 1, 7).ok());
        peak = meter.peak_above_start();
    }
    CHECK(peak == 0);
    CHECK(acts.buf.capacity() == n_large);
    gpt::Activations fresh;
    REQUIRE(gpt::forward(m, fresh, small.data(), nullptr, 1, 7).ok());
    const size_t V = 10;
    for (size_t i = 0; i < 7 * V; ++i) CHECK(acts.logits_ptr()[i] == fresh.logits_ptr()[i]);
}

TEST_CASE("finetune: batch 1 is SGD example by example, in order; a bad batch is an error") {
    auto model = gpt::make_model(small_config(), 5);
    REQUIRE(model);
    const std::vector<finetune::Example> ex = {{3, 4}, {5, 6}, {7, 3}};
    finetune::Options o;
    o.optimizer.kind = OptimizerConfig::sgd;
    o.optimizer.lr = 0.5f;
    o.optimizer.momentum = 0.0f;
    o.batch = 1;
    o.steps = 4;  // one epoch and the first example again
    gpt::Model tuned = model.value();
    auto losses = finetune::finetune(tuned, ex, o);
    REQUIRE(losses);
    // by hand: w ← w − lr ∇L(BOS x →, y) for examples 0, 1, 2, 0
    gpt::Model ref = model.value();
    OptimizerConfig sgd = o.optimizer;
    auto trainer = gpt::Trainer::make(ref, sgd);
    REQUIRE(trainer);
    for (int e : {0, 1, 2, 0}) {
        const int tokens[3] = {0, ex[(size_t)e].x, 1}, targets[3] = {-1, -1, ex[(size_t)e].y};
        REQUIRE(trainer.value().step(tokens, targets, 1, 3));
    }
    CHECK(finetune::delta_norm(tuned.params, ref.params) <= 1e-6 * finetune::delta_norm(ref.params, model.value().params));
    CHECK(finetune::delta_norm(tuned.params, model.value().params) > 0.0);
    // the loss before is the mean over all three, not the first step's one example
    gpt::Activations acts;
    const std::vector<int> all = {0, 3, 1, 0, 5, 1, 0, 7, 1}, all_targets = {-1, -1, 4, -1, -1, 6, -1, -1, 3};
    REQUIRE(gpt::forward(model.value(), acts, all.data(), all_targets.data(), 3, 3));
    CHECK(losses.value().before == doctest::Approx(acts.loss).epsilon(1e-6));
    // without the losses: the same weights, NaN losses
    o.losses = false;
    gpt::Model quiet = model.value();
    auto none = finetune::finetune(quiet, ex, o);
    REQUIRE(none);
    CHECK(quiet.params == tuned.params);
    CHECK(std::isnan(none.value().before));
    CHECK(std::isnan(none.value().after));
    for (int bad : {-1, 4}) {
        o.batch = bad;
        gpt::Model m = model.value();
        auto r = finetune::finetune(m, ex, o);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("batch = " + std::to_string(bad)) != std::string::npos);
    }
}

TEST_CASE("training: no committed core code reads the trial switch (icl/profile.h's ICL_TRIAL)") {
    // icl/profile.h's ICL_TRIAL is for a candidate measured by bench/run pair and then
    // either kept (replacing the code it was tried against) or reverted; a leftover would
    // leave a second, dead version of the step in the source.
    std::string readers;
    size_t files = 0;
    for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(ICL_SOURCE_DIR) + "/core")) {
        const std::string ext = f.path().extension().string();
        if (ext != ".cpp" && ext != ".h") continue;
        ++files;
        std::ifstream in(f.path());
        std::stringstream ss;
        ss << in.rdbuf();
        if (f.path().filename() != "profile.h" && ss.str().find("ICL_TRIAL") != std::string::npos)
            readers += " " + f.path().string();
    }
    CHECK(files > 50);
    CHECK_MESSAGE(readers.empty(), "ICL_TRIAL is read in" << readers);
}

TEST_CASE("training: decay on the attention matrices only shrinks them alone when the gradients are zero") {
    gpt::Config c = small_config();
    c.attention_only = true;
    gpt::Model m = gpt::make_model(c, 3).value();
    const std::vector<std::string> attn = gpt::attention_matrices(m);
    CHECK(attn == std::vector<std::string>{"h0.attn.wq", "h0.attn.wk", "h0.attn.wv", "h0.attn.wo", "h1.attn.wq",
                                           "h1.attn.wk", "h1.attn.wv", "h1.attn.wo"});
    std::vector<ParamSlot> slots = gpt::param_slots(m);
    CHECK_FALSE(set_decay(slots, {"h0.attn.wq", "nope"}).ok());  // unknown: refused, nothing changed
    for (const ParamSlot& s : slots) CHECK(s.decay == (s.name == "wte" || s.name == "wpe" || s.name.find(".attn.w") != std::string::npos));
    REQUIRE(set_decay(slots, attn).ok());
    OptimizerConfig oc;
    oc.lr = 0.1f;
    oc.weight_decay = 0.5f;
    Optimizer opt(oc, slots, m.params.size());
    const std::vector<float> before = m.params;
    std::vector<float> grads(m.params.size(), 0.0f);
    REQUIRE(opt.step(m.params.data(), grads.data()).ok());
    for (const gpt::TensorInfo& t : m.layout.tensors) {
        const bool attention = t.name.find(".attn.w") != std::string::npos;
        double worst = 0;
        for (size_t i = t.offset; i < t.offset + t.size; ++i) {
            const double want = attention ? (double)before[i] * (1.0 - 0.1 * 0.5) : (double)before[i];
            worst = std::max(worst, std::abs((double)m.params[i] - want));
        }
        INFO(t.name);
        CHECK(worst <= (attention ? 1e-6 : 0.0));
    }
}

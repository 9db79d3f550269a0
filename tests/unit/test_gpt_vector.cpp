// The model's vector input, regression readout and recurrent control (gpt.h Config's
// input_dim / token_input / output_dim / token_output, Arch::gru): against PyTorch
// (tests/golden/make_golden.py, float64: the GRU is torch.nn.GRU itself) on every
// instruction set, against finite differences, through the Trainer and the checkpoint.
// Tolerances, each as max |ours − torch| over the tensor's largest |torch| value: outputs,
// loss and the 10 AdamW losses 1e-5, gradients 2e-5 (every set lands within 1e-6 natively;
// test_gpt_golden.cpp's token models keep their looser 1e-4 and 1e-3).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "golden_fixture.h"
#include "gpt_test_util.h"
#include "each_isa.h"
#include "icl/checkpoint.h"
#include "icl/generate.h"
#include "icl/gpt.h"
#include "icl/gpt_probe.h"
#include "icl/gpt_train.h"
#include "icl/rng.h"

using namespace icl;

namespace {

gpt::Config vector_config_from(const std::vector<int>& v, const std::vector<int>& io) {
    gpt::Config c;
    c.vocab = v[0]; c.context = v[1]; c.width = v[2]; c.layers = v[3]; c.heads = v[4];
    c.mlp_ratio = v[5]; c.attention_only = v[6] != 0;
    for (int l = 0; l < c.layers; ++l)
        c.attention.push_back(AttentionMask{(AttentionMask::Kind)v[7 + 3 * l], v[8 + 3 * l], v[9 + 3 * l]});
    c.arch = (gpt::Arch)io[0];
    c.input_dim = io[1];
    c.token_input = io[2] != 0;
    c.output_dim = io[3];
    c.token_output = io[4] != 0;
    return c;
}

struct VectorGolden {
    std::map<std::string, test::GoldenTensor> t;
    gpt::Model model;
    std::vector<uint8_t> mask;
    gpt::Batch batch;
};

void load_vector_golden(VectorGolden& g, const std::string& file) {
    const std::string path = std::string(ICL_TEST_DATA_DIR) + "/golden/" + file;
    g.t = test::read_golden(path);
    REQUIRE_MESSAGE(!g.t.empty(), "missing or malformed fixture " << path);
    Expected<gpt::Model> m = gpt::make_model(vector_config_from(g.t["config"].i, g.t["io"].i), 0);
    REQUIRE_MESSAGE(m.ok(), m.error().message);
    g.model = std::move(m.value());
    REQUIRE(g.model.layout.tensors.size() + 0 > 0);
    for (const gpt::TensorInfo& ti : g.model.layout.tensors) {
        const test::GoldenTensor& p = g.t["param/" + ti.name];
        REQUIRE_MESSAGE(p.shape == ti.shape, "fixture shape of " << ti.name);
        std::copy(p.f.begin(), p.f.end(), g.model.params.begin() + (long)ti.offset);
    }
    const gpt::Config& c = g.model.config;
    g.mask.assign(g.t["mask"].i.begin(), g.t["mask"].i.end());
    g.batch.B = g.t["tokens"].shape[0];
    g.batch.T = g.t["tokens"].shape[1];
    g.batch.tokens = c.token_input ? g.t["tokens"].i.data() : nullptr;
    g.batch.vectors = c.input_dim > 0 ? g.t["vectors"].f.data() : nullptr;
    g.batch.targets = c.token_output ? g.t["targets"].i.data() : nullptr;
    g.batch.target_vectors = c.output_dim > 0 ? g.t["target_vectors"].f.data() : nullptr;
    g.batch.target_mask = c.output_dim > 0 ? g.mask.data() : nullptr;
}

void check_vector_against_torch(const std::string& file) {
    VectorGolden g;
    load_vector_golden(g, file);
    const gpt::Config& c = g.model.config;
    test::EachIsa isas;
    for (Isa isa : isas.list) {
        set_isa(isa);
        CAPTURE(file);
        CAPTURE(isa_name(isa));
        gpt::Activations acts;
        Status f = gpt::forward(g.model, acts, g.batch);
        REQUIRE_MESSAGE(f.ok(), f.error().message);
        const size_t BT = (size_t)g.batch.B * g.batch.T;
        if (c.token_output) {
            const double e = test::scaled_max_diff(acts.logits_ptr(), g.t["logits"].f.data(), BT * c.vocab);
            INFO("logits error " << e);
            CHECK(e <= 1e-5);
        }
        if (c.output_dim > 0) {
            const double e = test::scaled_max_diff(acts.predictions(), g.t["predictions"].f.data(), BT * c.output_dim);
            INFO("predictions error " << e);
            CHECK(e <= 1e-5);
        }
        if (!c.token_input && c.output_dim > 0) {  // the vector form without targets predicts the same
            gpt::Activations plain;
            REQUIRE(gpt::forward(g.model, plain, g.batch.vectors, g.batch.B, g.batch.T).ok());
            const double e = test::scaled_max_diff(plain.predictions(), g.t["predictions"].f.data(), BT * c.output_dim);
            INFO("predictions error, vectors only " << e);
            CHECK(e <= 1e-5);
        }
        const float torch_loss = g.t["loss"].f[0];
        INFO("loss " << acts.loss << " (ce " << acts.ce_loss << ", mse " << acts.mse_loss << ") vs torch " << torch_loss);
        CHECK(std::fabs(acts.loss - torch_loss) <= 1e-5 * std::fabs(torch_loss));

        std::vector<float> grads(g.model.params.size(), 0.0f);
        REQUIRE(gpt::backward(g.model, acts, grads.data()).ok());
        for (const gpt::TensorInfo& ti : g.model.layout.tensors) {
            const double err = test::scaled_max_diff(grads.data() + ti.offset, g.t["grad/" + ti.name].f.data(), ti.size);
            INFO("gradient of " << ti.name << " error " << err);
            if (ti.name.size() > 7 && ti.name.substr(ti.name.size() - 7) == "attn.bk") continue;  // 0 (test_gpt_golden.cpp)
            CHECK(err <= 2e-5);
        }

        OptimizerConfig oc;
        const std::vector<float>& h = g.t["adamw"].f;
        oc.lr = h[0]; oc.beta1 = h[1]; oc.beta2 = h[2]; oc.eps = h[3]; oc.weight_decay = h[4]; oc.clip_norm = h[5];
        gpt::Model trained = g.model;
        Expected<gpt::Trainer> trainer = gpt::Trainer::make(trained, oc);
        REQUIRE(trainer.ok());
        std::vector<float> ours;
        for (int s = 0; s < 10; ++s) {
            Expected<float> loss = trainer.value().step(g.batch);
            REQUIRE_MESSAGE(loss.ok(), loss.error().message);
            ours.push_back(loss.value());
        }
        const std::vector<float>& want = g.t["adamw_losses"].f;
        const double traj = test::scaled_max_diff(ours.data(), want.data(), want.size());
        INFO("AdamW losses " << ours.front() << " .. " << ours.back() << " vs torch " << want.front() << " .. "
                             << want.back() << ", error " << traj);
        CHECK(want.back() < want.front() - 0.05f);  // the trajectory moves
        CHECK(traj <= 1e-5);
    }
}

// A random batch for cfg: tokens, vectors, targets (one unscored), target vectors, a mask.
struct RandomVectorBatch {
    std::vector<int> tokens, targets;
    std::vector<float> vectors, target_vectors;
    std::vector<uint8_t> mask;
    gpt::Batch batch;
    RandomVectorBatch(const gpt::Config& c, int B, int T, uint64_t seed) {
        Rng rng(seed);
        tokens = test::random_tokens(B * T, std::max(c.vocab, 2), seed + 1);
        targets = test::random_tokens(B * T, std::max(c.vocab, 2), seed + 2);
        targets[1] = -1;
        for (int i = 0; i < B * T * c.input_dim; ++i) vectors.push_back(rng.normal());
        for (int i = 0; i < B * T * c.output_dim; ++i) target_vectors.push_back(rng.normal());
        for (int i = 0; i < B * T; ++i) mask.push_back(i % 3 != 0);
        batch.B = B;
        batch.T = T;
        batch.tokens = c.token_input ? tokens.data() : nullptr;
        batch.vectors = c.input_dim ? vectors.data() : nullptr;
        batch.targets = c.token_output ? targets.data() : nullptr;
        batch.target_vectors = c.output_dim ? target_vectors.data() : nullptr;
        batch.target_mask = c.output_dim ? mask.data() : nullptr;
    }
};

// For every tensor: a random unit direction u; (L(p + h u) − L(p − h u)) / 2h against g·u
// (test_gpt_grad.cpp's check), on every instruction set.
void check_vector_fd(const gpt::Config& cfg, int B, int T, uint64_t seed) {
    REQUIRE(gpt::validate(cfg).ok());
    gpt::Model m = gpt::make_model(cfg, seed).value();
    Rng rng(seed + 1);
    for (float& p : m.params) p += rng.normal(0.0f, 0.3f);
    RandomVectorBatch rb(cfg, B, T, seed + 2);
    test::EachIsa isas;
    for (Isa isa : isas.list) {
        set_isa(isa);
        CAPTURE(isa_name(isa));
        gpt::Activations acts;
        REQUIRE(gpt::forward(m, acts, rb.batch).ok());
        std::vector<float> grads(m.params.size(), 0.0f), stored(m.params.size(), 0.0f);
        REQUIRE(gpt::backward(m, acts, grads.data()).ok());
        REQUIRE(gpt::backward(m, acts, stored.data(), gpt::GradsOnEntry::zero).ok());
        CHECK(stored == grads);  // storing and adding onto 0 give the same bits
        auto loss_at = [&](const std::vector<float>& params) {
            gpt::Model probe = m;
            probe.params = params;
            gpt::Activations a;
            REQUIRE(gpt::forward(probe, a, rb.batch).ok());
            return (double)a.loss;
        };
        const float h = 1e-2f;
        Rng dirs(seed + 3);
        for (const gpt::TensorInfo& t : m.layout.tensors) {
            std::vector<float> u(t.size);
            double norm = 0.0;
            for (float& x : u) {
                x = dirs.normal();
                norm += (double)x * x;
            }
            double g_dot_u = 0.0;
            std::vector<float> plus = m.params, minus = m.params;
            for (size_t i = 0; i < t.size; ++i) {
                u[i] = (float)(u[i] / std::sqrt(norm));
                g_dot_u += (double)grads[t.offset + i] * u[i];
                plus[t.offset + i] += h * u[i];
                minus[t.offset + i] -= h * u[i];
            }
            const double fd = (loss_at(plus) - loss_at(minus)) / (2.0 * h);
            INFO("tensor " << t.name << ": backward " << g_dot_u << ", finite difference " << fd);
            CHECK(std::fabs(fd - g_dot_u) <= 2e-2 * std::fabs(g_dot_u) + 2e-4);
        }
    }
}

gpt::Config small(gpt::Arch arch, int din, bool tin, int dout, bool tout) {
    gpt::Config c;
    c.vocab = 9; c.context = 7; c.width = 8; c.layers = 2; c.heads = 2; c.mlp_ratio = 2;
    c.arch = arch; c.input_dim = din; c.token_input = tin; c.output_dim = dout; c.token_output = tout;
    return c;
}

}  // namespace

TEST_CASE("vector gpt golden: tokens and vectors in, softmax and regression out, vs PyTorch, every isa") {
    check_vector_against_torch("gpt_vector.bin");
}

TEST_CASE("vector gpt golden: vectors in, a masked scalar regression out, attention only, vs PyTorch, every isa") {
    check_vector_against_torch("gpt_regression.bin");
}

TEST_CASE("vector gru golden: a 2-layer GRU, tokens and vectors in, both readouts, vs torch.nn.GRU, every isa") {
    check_vector_against_torch("gru_mixed.bin");
}

TEST_CASE("vector gru golden: a GRU regression (vectors in, scalar out), vs torch.nn.GRU, every isa") {
    check_vector_against_torch("gru_regression.bin");
}

TEST_CASE("vector gpt backward: finite differences, inputs and readouts in every combination, every isa") {
    check_vector_fd(small(gpt::Arch::transformer, 3, true, 2, true), 2, 6, 31);
    gpt::Config c = small(gpt::Arch::transformer, 4, false, 1, false);
    c.attention_only = true;
    check_vector_fd(c, 2, 7, 32);
    check_vector_fd(small(gpt::Arch::transformer, 0, true, 3, false), 2, 5, 33);
    check_vector_fd(small(gpt::Arch::transformer, 2, false, 0, true), 1, 6, 34);
}

TEST_CASE("vector gru backward: finite differences, tokens and/or vectors in, either readout, every isa") {
    check_vector_fd(small(gpt::Arch::gru, 3, true, 2, true), 2, 6, 41);
    check_vector_fd(small(gpt::Arch::gru, 4, false, 1, false), 3, 7, 42);
    gpt::Config c = small(gpt::Arch::gru, 0, true, 0, true);
    c.layers = 1;
    check_vector_fd(c, 2, 5, 43);
}

TEST_CASE("vector gpt: token models keep their layout and checkpoint bytes; new configs save as version 4 and load back") {
    gpt::Config tok = small(gpt::Arch::transformer, 0, true, 0, true);
    gpt::Model tm = gpt::make_model(tok, 1).value();
    CHECK(tm.layout.tensors.front().name == "wte");
    CHECK(tm.find("wx") == nullptr);
    CHECK(tm.find("wy") == nullptr);
    CHECK(checkpoint::save(tm)[8] == 1);  // version 1, as before
    for (gpt::Config c : {small(gpt::Arch::transformer, 3, true, 2, true), small(gpt::Arch::transformer, 4, false, 1, false),
                          small(gpt::Arch::gru, 3, false, 0, true), small(gpt::Arch::gru, 2, true, 5, false)}) {
        gpt::Model m = gpt::make_model(c, 2).value();
        CHECK(m.params.size() == gpt::parameter_count(c));
        CHECK((m.find("wte") != nullptr) == c.has_wte());
        CHECK((m.find("wpe") != nullptr) == (c.arch == gpt::Arch::transformer));
        for (checkpoint::Encoding e : {checkpoint::Encoding::f32, checkpoint::Encoding::f16}) {
            const std::vector<uint8_t> bytes = checkpoint::save(m, e).value();
            CHECK(bytes[8] == 4);
            checkpoint::Encoding stored{};
            Expected<gpt::Model> back = checkpoint::load(bytes.data(), bytes.size(), &stored);
            REQUIRE_MESSAGE(back.ok(), back.error().message);
            CHECK(stored == e);
            const gpt::Config& b = back.value().config;
            CHECK(b.arch == c.arch);
            CHECK(b.input_dim == c.input_dim);
            CHECK(b.token_input == c.token_input);
            CHECK(b.output_dim == c.output_dim);
            CHECK(b.token_output == c.token_output);
            if (e == checkpoint::Encoding::f32) CHECK(back.value().params == m.params);
            CHECK(checkpoint::save(back.value(), e).value() == bytes);
        }
    }
    // a GRU file into a transformer model: named, the model unchanged
    gpt::Model gru = gpt::make_model(small(gpt::Arch::gru, 3, true, 2, true), 3).value();
    gpt::Model into = gpt::make_model(small(gpt::Arch::transformer, 3, true, 2, true), 3).value();
    const std::vector<float> before = into.params;
    const std::vector<uint8_t> bytes = checkpoint::save(gru);
    Status s = checkpoint::load_into(into, bytes.data(), bytes.size());
    REQUIRE(!s.ok());
    CHECK(s.error().message.find("arch 1 (the model has 0)") != std::string::npos);
    CHECK(into.params == before);
}

TEST_CASE("vector gpt: bad configs and batches are named errors") {
    auto config_error = [](const gpt::Config& c) { Status s = gpt::validate(c); return s.ok() ? std::string() : s.error().message; };
    CHECK(config_error(small(gpt::Arch::transformer, 0, false, 0, true)).find("no input") != std::string::npos);
    CHECK(config_error(small(gpt::Arch::transformer, 2, true, 0, false)).find("no readout") != std::string::npos);
    CHECK(config_error(small(gpt::Arch::gru, 2000, true, 0, true)).find("input_dim = 2000 is outside") != std::string::npos);
    gpt::Config g = small(gpt::Arch::gru, 0, true, 0, true);
    g.width = 7;  // heads = 2 does not divide it, and a GRU does not read heads
    CHECK(gpt::validate(g).ok());

    const gpt::Config c = small(gpt::Arch::transformer, 3, true, 2, false);
    gpt::Model m = gpt::make_model(c, 4).value();
    RandomVectorBatch rb(c, 2, 5, 5);
    gpt::Activations acts;
    auto error_of = [&](gpt::Batch b) {
        Status s = gpt::forward(m, acts, b);
        return s.ok() ? std::string() : s.error().message;
    };
    gpt::Batch b = rb.batch;
    b.vectors = nullptr;
    CHECK(error_of(b).find("reads an input vector of 3 per position and none were given") != std::string::npos);
    b = rb.batch;
    b.targets = rb.targets.data();
    CHECK(error_of(b).find("no softmax head") != std::string::npos);
    b = rb.batch;
    std::vector<uint8_t> none(10, 0);
    b.target_mask = none.data();
    CHECK(error_of(b).find("scores no position") != std::string::npos);
    std::vector<float> bad = rb.vectors;
    bad[7] = std::nanf("");
    b = rb.batch;
    b.vectors = bad.data();
    CHECK(error_of(b).find("the input vectors holds NaN at batch row 0, position 2, entry 1") != std::string::npos);
    CHECK(error_of(rb.batch).empty());
    CHECK(std::fabs(acts.loss - acts.mse_loss) == 0.0f);
    Expected<gpt::View> probed = gpt::logits(m, acts, 0);  // a regression-only model has none
    REQUIRE(!probed.ok());
    CHECK(probed.error().message.find("no softmax head") != std::string::npos);

    gpt::Hooks hooks;
    gpt::Model gm = gpt::make_model(small(gpt::Arch::gru, 0, true, 0, true), 4).value();
    std::vector<int> tokens(5, 1);
    Status hs = gpt::forward(gm, acts, tokens.data(), nullptr, 1, 5, &hooks);
    REQUIRE(!hs.ok());
    CHECK(hs.error().message.find("transformer only") != std::string::npos);
    gpt::KvCache cache = gpt::make_cache(gm.config);
    std::vector<float> logits((size_t)gm.config.vocab);
    Status st = gpt::step(gm, cache, 1, logits.data());
    REQUIRE(!st.ok());
    CHECK(st.error().message.find("generation needs a transformer") != std::string::npos);
}

TEST_CASE("vector gru: the Trainer fits a regression the GRU can only solve by remembering (y_t = x_{t-1})") {
    gpt::Config c = small(gpt::Arch::gru, 1, false, 1, false);
    c.width = 8; c.layers = 1; c.context = 8;
    gpt::Model m = gpt::make_model(c, 6).value();
    OptimizerConfig oc;
    oc.lr = 2e-2f;
    gpt::Trainer tr = gpt::Trainer::make(m, oc).value();
    Rng rng(7);
    const int B = 16, T = 8;
    std::vector<float> x(B * T), y(B * T);
    std::vector<uint8_t> mask(B * T);
    float first = 0.0f, last = 0.0f;
    for (int s = 0; s < 300; ++s) {
        for (int i = 0; i < B * T; ++i) x[i] = rng.normal();
        for (int i = 0; i < B * T; ++i) {
            const int t = i % T;
            y[i] = t > 0 ? x[i - 1] : 0.0f;
            mask[i] = t > 0;
        }
        gpt::Batch b;
        b.B = B; b.T = T; b.vectors = x.data(); b.target_vectors = y.data(); b.target_mask = mask.data();
        Expected<float> loss = tr.step(b);
        REQUIRE_MESSAGE(loss.ok(), loss.error().message);
        (s == 0 ? first : last) = loss.value();
    }
    INFO("MSE " << first << " -> " << last);
    CHECK(first > 0.5f);   // E[x²] = 1 for a predictor near 0
    CHECK(last < 0.1f);    // the previous input, carried one step by the hidden state
}

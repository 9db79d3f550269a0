// The tiny GPT against PyTorch: fixtures from tests/golden/make_golden.py (PyTorch 1.13,
// float64) hold the weights, a batch, the logits, the loss, every parameter's gradient
// and the losses of 10 AdamW steps with clipping. Tolerances: logits and loss 1e-4,
// gradients 1e-3, AdamW losses 1e-4, each as max |ours − torch| over the tensor's
// largest |torch| value.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "golden_fixture.h"
#include "gpt_test_util.h"
#include "icl/checkpoint.h"
#include "icl/gpt.h"
#include "icl/gpt_train.h"

using namespace icl;

namespace {

std::string golden_path(const std::string& file) { return std::string(ICL_TEST_DATA_DIR) + "/golden/" + file; }

gpt::Config config_from(const std::vector<int>& v) {
    gpt::Config c;
    c.vocab = v[0]; c.context = v[1]; c.width = v[2]; c.layers = v[3]; c.heads = v[4];
    c.mlp_ratio = v[5]; c.attention_only = v[6] != 0;
    for (int l = 0; l < c.layers; ++l) {
        AttentionMask m;
        m.kind = (AttentionMask::Kind)v[7 + 3 * l];
        m.window = v[8 + 3 * l];
        m.stride = v[9 + 3 * l];
        c.attention.push_back(m);
    }
    if (v.size() == 7 + 4 * (size_t)c.layers)  // attention kinds (gpt_fast.bin)
        for (int l = 0; l < c.layers; ++l) c.kinds.push_back((gpt::AttentionKind)v[7 + 3 * (size_t)c.layers + l]);
    return c;
}

struct Golden {
    std::map<std::string, test::GoldenTensor> t;
    gpt::Model model;
    int B = 0, T = 0;
};

Golden load_golden(const std::string& file) {
    Golden g;
    g.t = test::read_golden(golden_path(file));
    REQUIRE_MESSAGE(!g.t.empty(), "missing or malformed fixture " << golden_path(file));
    Expected<gpt::Model> m = gpt::make_model(config_from(g.t["config"].i), 0);
    REQUIRE(m.ok());
    g.model = std::move(m.value());
    for (const gpt::TensorInfo& ti : g.model.layout.tensors) {
        const test::GoldenTensor& p = g.t["param/" + ti.name];
        REQUIRE_MESSAGE(p.shape == ti.shape, "fixture shape of " << ti.name);
        std::copy(p.f.begin(), p.f.end(), g.model.params.begin() + (long)ti.offset);
    }
    g.B = g.t["tokens"].shape[0];
    g.T = g.t["tokens"].shape[1];
    return g;
}

void check_against_torch(const std::string& file) {
    Golden g = load_golden(file);
    gpt::Activations acts;
    REQUIRE(gpt::forward(g.model, acts, g.t["tokens"].i.data(), g.t["targets"].i.data(), g.B, g.T).ok());
    const std::vector<float>& logits = g.t["logits"].f;
    const double logit_err = test::scaled_max_diff(acts.logits_ptr(), logits.data(), logits.size());
    const float torch_loss = g.t["loss"].f[0];
    INFO(file << ": logits error " << logit_err << ", loss " << acts.loss << " vs torch " << torch_loss);
    CHECK(logit_err <= 1e-4);
    CHECK(std::fabs(acts.loss - torch_loss) <= 1e-4 * std::fabs(torch_loss));

    std::vector<float> grads(g.model.params.size(), 0.0f);
    REQUIRE(gpt::backward(g.model, acts, grads.data()).ok());
    double grad_scale = 0.0;  // the largest |torch gradient| in the model
    for (const gpt::TensorInfo& ti : g.model.layout.tensors)
        for (float x : g.t["grad/" + ti.name].f) grad_scale = std::max(grad_scale, (double)std::fabs(x));
    for (const gpt::TensorInfo& ti : g.model.layout.tensors) {
        const std::vector<float>& want = g.t["grad/" + ti.name].f;
        const int layer = ti.name[0] == 'h' ? std::atoi(ti.name.c_str() + 1) : -1;
        if (ti.name.size() > 7 && ti.name.substr(ti.name.size() - 7) == "attn.bk" &&
            g.model.config.kind(layer) == gpt::AttentionKind::softmax) {
            // The key bias adds q·bk to every score of a row, and softmax ignores a
            // per-row shift: its true gradient is 0, so both sides hold only rounding.
            double ours = 0.0, theirs = 0.0;
            for (size_t i = 0; i < ti.size; ++i) {
                ours = std::max(ours, (double)std::fabs(grads[ti.offset + i]));
                theirs = std::max(theirs, (double)std::fabs(want[i]));
            }
            INFO(file << ": gradient of " << ti.name << " max " << ours << " (torch " << theirs
                      << "), model scale " << grad_scale);
            CHECK(ours <= 1e-6 * grad_scale);
            CHECK(theirs <= 1e-6 * grad_scale);
            continue;
        }
        const double err = test::scaled_max_diff(grads.data() + ti.offset, want.data(), ti.size);
        INFO(file << ": gradient of " << ti.name << " error " << err);
        CHECK(err <= 1e-3);
    }

    // 10 AdamW steps, decay on matrices and embeddings only, clipping before each step
    const std::vector<float>& h = g.t["adamw"].f;
    OptimizerConfig oc;
    oc.kind = OptimizerConfig::adamw;
    oc.lr = h[0]; oc.beta1 = h[1]; oc.beta2 = h[2]; oc.eps = h[3]; oc.weight_decay = h[4];
    oc.clip_norm = h[5];
    gpt::Model trained = g.model;
    Expected<gpt::Trainer> trainer = gpt::Trainer::make(trained, oc);
    REQUIRE(trainer.ok());
    const std::vector<float>& want = g.t["adamw_losses"].f;
    std::vector<float> ours;
    for (int s = 0; s < 10; ++s) {
        Expected<float> loss = trainer.value().step(g.t["tokens"].i.data(), g.t["targets"].i.data(), g.B, g.T);
        REQUIRE(loss.ok());
        ours.push_back(loss.value());
    }
    const double traj_err = test::scaled_max_diff(ours.data(), want.data(), want.size());
    INFO(file << ": AdamW losses " << ours.front() << " .. " << ours.back() << " vs torch "
              << want.front() << " .. " << want.back() << ", error " << traj_err);
    CHECK(want.back() < want.front() - 0.05f);  // the trajectory actually moves
    CHECK(traj_err <= 1e-4);
}

}  // namespace

TEST_CASE("gpt golden: dense model vs PyTorch (logits, loss, gradients, 10 AdamW steps)") {
    check_against_torch("gpt_dense.bin");
}

TEST_CASE("gpt golden: dense/banded/strided layers, unscored targets, vs PyTorch") {
    check_against_torch("gpt_mixed.bin");
}

TEST_CASE("gpt golden: attention-only model vs PyTorch") {
    check_against_torch("gpt_attn_only.bin");
}

TEST_CASE("gpt golden: linear-attention, delta-rule and softmax layers vs PyTorch (the delta rule as its recurrence)") {
    check_against_torch("gpt_fast.bin");
}

TEST_CASE("checkpoint: a file written by the independent Python writer loads, gives PyTorch's logits, and re-saves byte for byte") {
    Golden g = load_golden("gpt_mixed.bin");
    const std::vector<uint8_t> file = test::read_bytes(golden_path("ckpt_mixed.icl"));
    REQUIRE(!file.empty());
    Expected<gpt::Model> m = checkpoint::load(file.data(), file.size());
    REQUIRE_MESSAGE(m.ok(), m.error().message);
    CHECK(m.value().params == g.model.params);
    gpt::Activations acts;
    REQUIRE(gpt::forward(m.value(), acts, g.t["tokens"].i.data(), nullptr, g.B, g.T).ok());
    const std::vector<float>& logits = g.t["logits"].f;
    CHECK(test::scaled_max_diff(acts.logits_ptr(), logits.data(), logits.size()) <= 1e-4);
    CHECK(checkpoint::save(m.value()) == file);
}

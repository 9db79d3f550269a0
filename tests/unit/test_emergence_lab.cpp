// The emergence lab's numbers (icl/fewshot_eval.h): the accuracy and the induction-head
// score against a recomputation, sequence by sequence, from the model's own forward; the
// score of a model whose attention is uniform against its closed form; the crossing
// steps on curves whose crossings are known by construction.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "demo_testing.h"
#include "icl/fewshot.h"
#include "icl/fewshot_eval.h"
#include "icl/gpt.h"

using namespace icl;

namespace {

fewshot::Knobs small_knobs() {
    fewshot::Knobs k;
    k.classes = 32;
    k.labels = 8;
    k.pairs = 6;
    k.burstiness = 3;
    k.dim = 8;
    return k;
}

gpt::Model small_model(const fewshot::Knobs& k, int layers, uint64_t seed) {
    gpt::Config c;
    c.vocab = k.labels;
    c.context = 2 * k.pairs + 1;
    c.width = 16;
    c.layers = layers;
    c.heads = 2;
    c.attention_only = true;
    c.token_input = false;
    c.input_dim = k.dim;
    auto m = gpt::make_model(c, seed);
    REQUIRE(m.ok());
    return std::move(m.value());
}

}  // namespace

TEST_CASE("emergence_lab: accuracy and induction score equal a per-sequence recomputation from the forward") {
    const fewshot::Knobs k = small_knobs();
    auto w = fewshot::make_world(k, 5);
    REQUIRE(w.ok());
    const fewshot::Batch b = fewshot::sample(w.value(), fewshot::Split::icl_novel, 24, 9);
    const std::vector<float> v = fewshot::vectors(w.value(), b);
    const gpt::Model m = small_model(k, 2, 3);
    auto s = fewshot::score(m, b, v);
    REQUIRE(s.ok());
    const int T = 2 * k.pairs + 1, D = k.dim, H = 2;
    int right = 0;
    double ih = 0;
    for (int q = 0; q < b.count; ++q) {  // one sequence at a time, batch of one
        gpt::Activations acts;
        gpt::Batch one;
        one.B = 1;
        one.T = T;
        one.vectors = v.data() + (size_t)q * T * D;
        REQUIRE(gpt::forward(m, acts, one).ok());
        const float* logits = acts.logits_ptr() + (size_t)(T - 1) * k.labels;
        int best = 0;
        for (int j = 1; j < k.labels; ++j)
            if (logits[j] > logits[best]) best = j;
        right += best == b.item_label[(size_t)b.at(q, k.pairs)];
        const int qc = b.item_class[(size_t)b.at(q, k.pairs)];
        for (int h = 0; h < H; ++h) {
            const float* row = acts.ptr(acts.blocks[1].att) + (size_t)h * T * T + (size_t)(T - 1) * T;  // raw: independent of the probe
            for (int i = 0; i < k.pairs; ++i)
                if (b.item_class[(size_t)b.at(q, i)] == qc) ih += row[2 * i + 1];
        }
    }
    CHECK(s.value().accuracy == doctest::Approx((double)right / b.count).epsilon(1e-12));
    CHECK(s.value().induction == doctest::Approx(ih / (b.count * H)).epsilon(1e-5));
}

TEST_CASE("emergence_lab: with q and k zeroed, attention is uniform and the induction score is B/(2N+1)") {
    const fewshot::Knobs k = small_knobs();
    auto w = fewshot::make_world(k, 6);
    REQUIRE(w.ok());
    const fewshot::Batch b = fewshot::sample(w.value(), fewshot::Split::icl_novel, 16, 10);
    gpt::Model m = small_model(k, 1, 4);
    for (const char* name : {"h0.attn.wq", "h0.attn.wk", "h0.attn.bq", "h0.attn.bk"}) {
        const gpt::TensorInfo* t = m.find(name);
        REQUIRE(t);
        std::fill(m.at(t->offset), m.at(t->offset) + t->size, 0.0f);
    }
    auto s = fewshot::score(m, b, fewshot::vectors(w.value(), b));
    REQUIRE(s.ok());
    // every ICL sequence holds the query's class in exactly B of its N places
    CHECK(s.value().induction == doctest::Approx(3.0 / 13.0).epsilon(1e-5));
}

TEST_CASE("emergence_lab: crossings are the first evaluation past halfway to 1, and IWL's first lead after it") {
    const std::vector<double> steps = {0, 50, 100, 150, 200, 250};
    // floor 0.2: the bar is 0.6
    const std::vector<double> icl = {0.2, 0.3, 0.59, 0.61, 0.9, 0.5};
    const std::vector<double> iwl = {0.9, 0.2, 0.2, 0.3, 0.4, 0.7};  // leads at step 0, before ICL: not an overtaking
    fewshot::Crossings c = fewshot::crossings(steps, icl, iwl, 0.2);
    CHECK(c.icl_step == 150);
    CHECK(c.overtake_step == 250);
    c = fewshot::crossings(steps, {0.2, 0.3, 0.3, 0.3, 0.3, 0.3}, iwl, 0.2);
    CHECK(std::isnan(c.icl_step));
    CHECK(std::isnan(c.overtake_step));
}

TEST_CASE("emergence_lab: transient ICL is a peak after ICL appeared and a fall below halfway that lasts to the end") {
    const std::vector<double> steps = {0, 50, 100, 150, 200, 250, 300};
    const std::vector<double> iwl(7, 0.1);
    // floor 0.2, bar 0.6: appears at 100, peaks 0.95 at 150, dips at 200, recovers, falls for good at 300
    fewshot::Crossings c = fewshot::crossings(steps, {0.2, 0.3, 0.7, 0.95, 0.5, 0.95, 0.4}, iwl, 0.2);
    CHECK(c.icl_step == 100);
    CHECK(c.peak == 0.95);
    CHECK(c.peak_step == 150);  // the first of two equal highs
    CHECK(c.fade_step == 300);
    // falls at 200 and stays below to the end
    c = fewshot::crossings(steps, {0.2, 0.3, 0.7, 0.8, 0.5, 0.4, 0.3}, iwl, 0.2);
    CHECK(c.fade_step == 200);
    CHECK(c.peak_step == 150);
    // a dip that recovers is not a fade; no ICL, no fade
    c = fewshot::crossings(steps, {0.2, 0.3, 0.7, 0.8, 0.5, 0.9, 0.9}, iwl, 0.2);
    CHECK(std::isnan(c.fade_step));
    c = fewshot::crossings(steps, {0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, iwl, 0.2);
    CHECK(std::isnan(c.fade_step));
    CHECK(std::isnan(c.peak));
}

TEST_CASE("emergence_lab: data knobs the generator cannot honour are refused, naming the knob") {
    testing::expect_refused("emergence_lab", {{"pairs", 6}, {"burstiness", 7}}, {"burstiness", "at most the pairs"});
    testing::expect_refused("emergence_lab", {{"classes", 16}, {"labels", 32}}, {"labels", "at most the classes"});
}

TEST_CASE("emergence_lab: B = 0 starts whatever N and L are (no bursty sequence needs N distinct labels)") {
    const Result r = testing::run_demo("emergence_lab", {{"steps", 20}, {"seeds", 1}, {"eval_every", 10}, {"burstiness", 0},
                                                         {"pairs", 16}, {"labels", 8}, {"classes", 64}, {"dim", 8}});
    CHECK(r.error.empty());
    CHECK(r.done);
}

TEST_CASE("emergence_lab: the weight_decay knob reaches the optimizer (the same seeds train another model)") {
    const nlohmann::json base = {{"steps", 30}, {"seeds", 1}, {"eval_every", 10}, {"classes", 32}, {"dim", 4}, {"width", 8}, {"lr", 0.02}};
    nlohmann::json decayed = base;
    decayed["weight_decay"] = 1.0;
    const Result a = testing::run_demo("emergence_lab", base), b = testing::run_demo("emergence_lab", decayed);
    auto loss = [](const Result& r) {
        for (const Panel& p : r.panels)
            if (const auto* l = std::get_if<LinesPanel>(&p); l && l->title == "Training loss (smoothed)") return l->series[0].y;
        FAIL("no loss panel");
        return std::vector<double>{};
    };
    const std::vector<double> la = loss(a), lb = loss(b);
    REQUIRE(la.size() == 3);
    REQUIRE(lb.size() == 3);
    CHECK(la[0] != lb[0]);  // decay shrinks the weights from the first step on, so step 10's loss already differs
    CHECK(la[2] != lb[2]);
}

TEST_CASE("emergence_lab: IWL's lead before ICL appeared is its highest evaluation past halfway from chance, ahead of ICL") {
    const std::vector<double> steps = {0, 50, 100, 150, 200};
    // chance 0.2: IWL's mark is 0.6. Step 0 leads but below the mark; 50 and 100 lead past it; ICL appears at 150
    const std::vector<double> icl = {0.1, 0.3, 0.5, 0.9, 0.95};
    const std::vector<double> iwl = {0.3, 0.7, 0.65, 0.95, 0.1};
    fewshot::Lead lead = fewshot::iwl_lead(steps, icl, iwl, 150, 0.2);
    CHECK(lead.value == 0.7);
    CHECK(lead.step == 50);
    // 0.95 at step 150 is not before ICL appeared; with no ICL every evaluation counts
    lead = fewshot::iwl_lead(steps, icl, iwl, NAN, 0.2);
    CHECK(lead.value == 0.95);
    CHECK(lead.step == 150);
    // IWL never past the mark while ahead
    lead = fewshot::iwl_lead(steps, icl, {0.3, 0.5, 0.55, 0.2, 0.1}, 150, 0.2);
    CHECK(std::isnan(lead.value));
    CHECK(std::isnan(lead.step));
}

// momentum_attention (Dai et al. 2023, section 6): attention with a momentum term,
//     MoAttn(V, K, q_t) = V softmax(Kᵀ q_t / √d) + Σ_{i<t} η^{t−i} v_i,
// the analogue of SGD with momentum in the dual form. Two tiny LMs trained identically
// (same init, same batches) on the task suite, with and without the term, over seeds:
// validation perplexity and in-context accuracy side by side.
// Two lanes (Session::lanes): lane 1 is the model with the momentum term, so a second
// worker trains it beside the plain one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "icl/demo_panels.h"
#include "icl/format.h"
#include "icl/demo.h"
#include "icl/task_suite_lanes.h"
#include "icl/gpt_probe.h"
#include "icl/gpt_train.h"
#include "icl/recipe.h"
#include "icl/tasks.h"
#include "icl/metrics.h"

namespace icl {
namespace {

constexpr int kPairs = 9;    // pairs per training document; 8-shot curves fit its context
constexpr int kShots = 8;
constexpr int kLaneArm = 1;  // lane 1's model: the one with the momentum term

class MomentumSession : public TaskSuiteLanesSession {
public:
    MomentumSession(const DemoContext& ctx, gpt::Config cfg)
        : TaskSuiteLanesSession("momentum_attention", ctx, std::move(cfg), kPairs, 51, {kLaneArm}, 2, 0.95, 0.05) {
        begin_seed();
    }
    std::vector<Panel> panels() const override;

private:
    // arm 1 has the momentum term; both start from the same init
    gpt::Config arm_config(int arm) const override {
        gpt::Config c = cfg_;
        c.momentum = arm == 1 ? ctx_.params.f("eta") : 0.0f;
        return c;
    }

    // The momentum model's fields: every seed's perplexity, ICL and zero-shot accuracy
    // and previous-token score, listed once for both ways.
    struct LaneResults {
        std::vector<double> ppl, icl, zero, prev;
    };
    void lane_fields(LaneState& io, LaneResults& r) const {
        io.numbers_at_most("ppl", r.ppl, seeds_, "seeds");
        const long n = (long)r.ppl.size();
        io.numbers("icl", r.icl, n);
        io.numbers("zero", r.zero, n);
        io.numbers("prev", r.prev, n);
    }
    void write_lane(int arm, LaneState& out) const override {
        LaneResults r{ppl_[arm], icl_[arm], zero_[arm], prev_[arm]};
        lane_fields(out, r);
    }
    Status read_lane(int arm, LaneState& in) override {
        LaneResults r;
        lane_fields(in, r);
        if (Status st = in.status(); !st) return st;
        ppl_[arm] = std::move(r.ppl);
        icl_[arm] = std::move(r.icl);
        zero_[arm] = std::move(r.zero);
        prev_[arm] = std::move(r.prev);
        return Ok{};
    }

    Status evaluate_seed() override {
        const tasks::Suite& s = tasks::suite();
        Rng val(ctx_.seed, 52);  // the same validation documents for every model and seed
        std::vector<int> tokens, targets;
        const int n = 64;
        tasks::append_training_batch(s, n, kPairs, val, tokens, targets);
        std::vector<tasks::Sequence> curves;
        for (int task = 0; task < (int)s.tasks.size(); ++task)
            for (int i = 0; i < 8; ++i) {
                auto c = tasks::make_curve_sequence(s, task, kShots, val);
                if (!c) return c.error();
                curves.push_back(std::move(c.value()));
            }
        for (int i = 0; i < 2; ++i) {
            if (!trains(i)) continue;
            const gpt::Model& m = arms_[(size_t)i].model;
            gpt::Activations acts;
            if (Status st = gpt::forward(m, acts, tokens.data(), targets.data(), n, cfg_.context); !st) return st;
            auto acc = tasks::evaluate(recipe::logits_fn(m), curves, s.vocab());
            if (!acc) return acc.error();
            double few = 0;
            for (int k = 1; k <= kShots; ++k) few += acc.value()[(size_t)k].accuracy() / kShots;
            ppl_[i].push_back(std::exp((double)acts.loss));
            // The strongest previous-token head: mean attention from t to t − 1 over the
            // validation documents, the largest over every head of every layer.
            const int T = cfg_.context, H = cfg_.heads;
            double best = 0;
            for (int l = 0; l < cfg_.layers; ++l)
                for (int h = 0; h < H; ++h) {
                    double prev = 0;
                    for (int b = 0; b < n; ++b) {
                        const gpt::View att = gpt::attention_map(acts, l, b, h).value();  // (T,T)
                        for (int t = 1; t < T; ++t) prev += att(t, t - 1) / ((double)n * (T - 1));
                    }
                    best = std::max(best, prev);
                }
            prev_[i].push_back(best);
            icl_[i].push_back(few);
            zero_[i].push_back(acc.value()[0].accuracy());
        }
        return Ok{};
    }

    std::vector<double> ppl_[2], icl_[2], zero_[2], prev_[2];  // [plain, momentum][seed]
};

std::vector<Panel> MomentumSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    int better_ppl = 0, better_icl = 0;
    for (size_t i = 0; i < std::min(ppl_[0].size(), ppl_[1].size()); ++i) {  // a lane's seeds may lag
        better_ppl += ppl_[1][i] < ppl_[0][i];
        better_icl += icl_[1][i] > icl_[0][i];
    }
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"ppl_plain", metrics::mean(ppl_[0]), "", msg("scalar.ppl_plain.help")});
    s.items.push_back({"ppl_momentum", metrics::mean(ppl_[1]), "", msg("scalar.ppl_momentum.help")});
    s.items.push_back({"icl_plain", metrics::mean(icl_[0]), "", msg("scalar.icl_plain.help")});
    s.items.push_back({"icl_momentum", metrics::mean(icl_[1]), "", msg("scalar.icl_momentum.help")});
    s.items.push_back({"prev_token_plain", metrics::mean(prev_[0]), "",
                       msg("scalar.prev_token_plain.help")});
    s.items.push_back({"prev_token_momentum", metrics::mean(prev_[1]), "",
                       msg("scalar.prev_token_momentum.help")});
    s.items.push_back({"seeds_ppl_better", (double)better_ppl, "", msg("scalar.seeds_ppl_better.help")});
    s.items.push_back({"seeds_icl_better", (double)better_icl, "", msg("scalar.seeds_icl_better.help")});
    s.items.push_back({"seeds_done", (double)ppl_[0].size(), "", msg("scalar.seeds_done.help")});
    panels.push_back(s);

    LinesPanel loss{msg("panel.loss.title"), msg("panel.loss.x"), "nats", false, false, {}};
    loss.series.push_back({msg("series.plain"), trace(0).steps, trace(0).loss, {}, false});
    loss.series.push_back({msg("series.momentum"), trace(1).steps, trace(1).loss, {}, true});
    panels.push_back(loss);

    TablePanel t{msg("panel.seeds.title"),
                 {msg("panel.seeds.col.run"), msg("panel.seeds.col.ppl"),
                  msg("panel.seeds.col.icl"), msg("panel.seeds.col.zs")}, {}};
    for (size_t i = 0; i < ppl_[0].size(); ++i) {
        // "…": the momentum model's lane has not finished this seed yet
        auto pair = [&](const std::vector<double>* v, const char* f) {
            return format_number(v[0][i], f) + " → " + (i < v[1].size() ? format_number(v[1][i], f) : "…");
        };
        t.rows.push_back({"seed " + std::to_string(i), pair(ppl_, "%.2f"), pair(icl_, "%.3f"), pair(zero_, "%.3f")});
    }
    t.rows.push_back({"Dai et al. 2023, 350M", "15.14 → 15.02", "0.519 → 0.547", "—"});
    panels.push_back(t);

    panels.push_back(guide_note(msg));
    return panels;
}

const DemoDef kMomentumAttention = [] {
    DemoDef d;
    d.id = "momentum_attention";
    d.paper = "Dai et al. 2023";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::real("eta", 0.05, 0.95, 0.5, 0.05),
        ParamSpec::integer("steps", 20, 2000, 400, 10),
        ParamSpec::integer("seeds", 1, 8, 3, 1),
        ParamSpec::integer("width", 16, 64, 32, 2),
        ParamSpec::real("lr", 1e-4, 1e-2, 3e-3, 1e-4),
    };
    d.start = start_task_suite<MomentumSession, kPairs>;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kMomentumAttention);

}  // namespace
}  // namespace icl

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

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/demo_seeded_lanes.h"
#include "icl/gpt_train.h"
#include "icl/recipe.h"
#include "icl/tasks.h"
#include "icl/metrics.h"

namespace icl {
namespace {

constexpr int kPairs = 9;    // pairs per training document; 8-shot curves fit its context
constexpr int kShots = 8;
constexpr int kLaneArm = 1;  // lane 1's model: the one with the momentum term

struct Arm {  // one model of a pair
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;
    std::vector<double> steps, loss;  // smoothed training loss
    double smooth = 0;
};

class MomentumSession : public SeededLanesSession {
public:
    MomentumSession(const DemoContext& ctx, gpt::Config cfg)
        : SeededLanesSession("momentum_attention", ctx.params.i("steps"), ctx.params.i("seeds"), ctx.lane, {kLaneArm}), ctx_(ctx), cfg_(cfg) {
        begin_seed();
    }
    // One unit = one AdamW step of each model of the current seed this session trains.
    // Every session draws every batch, so a lane trains on the very batches the whole
    // session would.
    void step(int budget) override {
        const tasks::Suite& s = tasks::suite();
        for (int u = 0; u < budget && seed_ < seeds_ && error_.empty(); ++u) {
            std::vector<int> tokens, targets;
            tasks::append_training_batch(s, kBatch, kPairs, *rng_, tokens, targets);
            for (Arm& a : arms_) {
                if (!a.trainer) continue;  // another lane's
                auto loss = a.trainer->step(tokens.data(), targets.data(), kBatch, cfg_.context);
                if (!loss) { error_ = loss.error().message; return; }
                a.smooth = step_ == 0 ? loss.value() : 0.95 * a.smooth + 0.05 * loss.value();
                if ((step_ + 1) % 10 == 0 && seed_ == 0) {
                    a.steps.push_back(step_ + 1);
                    a.loss.push_back(a.smooth);
                }
            }
            if (++step_ == steps_) {
                if (Status st = evaluate_seed(); !st) { error_ = st.error().message; return; }
                if (++seed_ < seeds_) begin_seed();
            }
        }
    }
    nlohmann::json lane_state() const override {
        if (lane() == 0) return nullptr;
        const auto lc = loss_curve(kLaneArm);
        nlohmann::json state = lane_progress_json(lc.first, lc.second);
        state["ppl"] = json_numbers(ppl_[kLaneArm]);
        state["icl"] = json_numbers(icl_[kLaneArm]);
        state["zero"] = json_numbers(zero_[kLaneArm]);
        state["prev"] = json_numbers(prev_[kLaneArm]);
        return state;
    }
    Status take_lane(int k, const nlohmann::json& state) override {
        if (!takes_lane(k)) return Session::take_lane(k, state);
        auto progress = read_lane_progress(k, state);
        if (!progress) return progress.error();
        auto ppl = read_json_numbers(state, "ppl", -1);
        if (!ppl) return lane_state_error(k, ppl.error().message);
        if ((long long)ppl.value().size() > seeds_) return lane_state_error(k, "'ppl' has more than " + std::to_string(seeds_) + " seeds");
        const long n = (long)ppl.value().size();
        auto icl = read_json_numbers(state, "icl", n), zero = read_json_numbers(state, "zero", n),
             prev = read_json_numbers(state, "prev", n);
        for (const auto* v : {&icl, &zero, &prev})
            if (!*v) return lane_state_error(k, v->error().message);
        curves_[kLaneArm] = {progress.value().loss_steps, progress.value().loss};
        ppl_[kLaneArm] = ppl.value();
        icl_[kLaneArm] = icl.value();
        zero_[kLaneArm] = zero.value();
        prev_[kLaneArm] = prev.value();
        took_lane(k, progress.value());
        return Ok{};
    }
    std::vector<Panel> panels() const override;

private:
    static constexpr int kBatch = 16;

    void drop_model(int arm) override { arms_[(size_t)arm].trainer.reset(); }

    // Arm i's training loss: the first seed's, or while it trains, the curve so far.
    std::pair<std::vector<double>, std::vector<double>> loss_curve(int i) const {
        if (!curves_[i].first.empty() || arms_.empty() || !trains(i)) return curves_[i];
        return {arms_[(size_t)i].steps, arms_[(size_t)i].loss};
    }

    void begin_seed() {
        step_ = 0;
        const uint64_t seed = ctx_.seed * 1000 + (uint64_t)seed_;
        rng_.emplace(seed, 51);
        arms_.clear();
        arms_.resize(2);
        OptimizerConfig o;
        o.lr = ctx_.params.f("lr");
        o.clip_norm = 1.0f;
        for (int i = 0; i < 2; ++i) {
            gpt::Config c = cfg_;
            c.momentum = i == 1 ? ctx_.params.f("eta") : 0.0f;
            arms_[(size_t)i].model = gpt::make_model(c, seed).value();  // same init for both
        }
        for (int i = 0; i < 2; ++i)
            if (trains(i)) arms_[(size_t)i].trainer.emplace(gpt::Trainer::make(arms_[(size_t)i].model, o).value());
    }

    Status evaluate_seed() {
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
                        const float* att = acts.attention(l, b, h, H);
                        for (int t = 1; t < T; ++t) prev += att[(size_t)t * T + t - 1] / ((double)n * (T - 1));
                    }
                    best = std::max(best, prev);
                }
            prev_[i].push_back(best);
            icl_[i].push_back(few);
            zero_[i].push_back(acc.value()[0].accuracy());
        }
        if (seed_ == 0)
            for (int i = 0; i < 2; ++i)
                if (trains(i)) curves_[i] = {arms_[(size_t)i].steps, arms_[(size_t)i].loss};
        return Ok{};
    }

    DemoContext ctx_;
    gpt::Config cfg_;
    std::optional<Rng> rng_;
    std::vector<Arm> arms_;
    std::pair<std::vector<double>, std::vector<double>> curves_[2];  // seed 0's loss curves
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
    ScalarsPanel s{msg("means_over_the_seeds"), {}};
    s.items.push_back({"ppl_plain", metrics::mean(ppl_[0]), "", msg("validation_perplexity_over_answer")});
    s.items.push_back({"ppl_momentum", metrics::mean(ppl_[1]), "", msg("validation_perplexity_over_answer_2")});
    s.items.push_back({"icl_plain", metrics::mean(icl_[0]), "", msg("icl_accuracy_mean_over")});
    s.items.push_back({"icl_momentum", metrics::mean(icl_[1]), "", msg("icl_accuracy_momentum")});
    s.items.push_back({"prev_token_plain", metrics::mean(prev_[0]), "",
                       msg("strongest_previous_token_head")});
    s.items.push_back({"prev_token_momentum", metrics::mean(prev_[1]), "",
                       msg("strongest_previous_token_head_2")});
    s.items.push_back({"seeds_ppl_better", (double)better_ppl, "", msg("seeds_where_momentum_has")});
    s.items.push_back({"seeds_icl_better", (double)better_icl, "", msg("seeds_where_momentum_has_2")});
    s.items.push_back({"seeds_done", (double)ppl_[0].size(), "", msg("seeds_finished")});
    panels.push_back(s);

    LinesPanel loss{msg("training_loss_first_seed"), msg("step"), "nats", false, false, {}};
    const std::pair<std::vector<double>, std::vector<double>> curves[2] = {loss_curve(0), loss_curve(1)};
    loss.series.push_back({msg("plain_attention"), curves[0].first, curves[0].second, {}, false});
    loss.series.push_back({msg("momentum_attention"), curves[1].first, curves[1].second, {}, true});
    panels.push_back(loss);

    TablePanel t{msg("per_seed_beside_dai"),
                 {msg("run"), msg("perplexity_plain_momentum"),
                  msg("icl_accuracy_plain_momentum"), msg("zero_shot_plain_momentum")}, {}};
    for (size_t i = 0; i < ppl_[0].size(); ++i) {
        // "…": the momentum model's lane has not finished this seed yet
        auto pair = [&](const std::vector<double>* v, const char* f) {
            return format_number(v[0][i], f) + " → " + (i < v[1].size() ? format_number(v[1][i], f) : "…");
        };
        t.rows.push_back({"seed " + std::to_string(i), pair(ppl_, "%.2f"), pair(icl_, "%.3f"), pair(zero_, "%.3f")});
    }
    t.rows.push_back({"Dai et al. 2023, 350M", "15.14 → 15.02", "0.519 → 0.547", "—"});
    panels.push_back(t);

    panels.push_back(NotePanel{
        msg("what_to_see"),
        msg("every_head_s_output")});
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    gpt::Config c;
    c.vocab = tasks::suite().vocab();
    c.context = tasks::prompt_length(kPairs, false);
    c.width = ctx.params.i("width");
    c.layers = 2;
    c.heads = 2;
    if (c.width % c.heads != 0) return learner_error("error.width_even", {{"width", std::to_string(c.width)}});
    if (Status s = gpt::validate(c); !s) return s.error();
    return std::unique_ptr<Session>(new MomentumSession(ctx, c));
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
    d.start = start;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kMomentumAttention);

}  // namespace
}  // namespace icl

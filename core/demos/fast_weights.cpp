// fast_weights: three tiny GPTs that differ only in what their attention computes —
// softmax (GPT-2), linear (Katharopoulos et al. 2020) and the delta rule (Schlag, Irie,
// Schmidhuber 2021) — trained on the same task mixture with the same batches, steps and
// width, over seeds. Side by side: the training loss, the shots curve (0..16
// demonstrations), and, for the linear model, the update ΔW_ICL that the demonstrations
// write into each head's fast weights, exact, token by token (Dai et al. 2023's
// decomposition W_ZSL + ΔW_ICL, which in a linear model is an identity, not an
// approximation).
// Three lanes (Session::lanes), one model each: lane 1 the delta rule, lane 2 softmax,
// lane 0 the linear model (whose fast weights the panels read, so it stays with the
// session): where there is a core per worker, the page waits only for the slowest model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "icl/demo_panels.h"
#include "icl/format.h"
#include "icl/demo.h"
#include "icl/task_suite_lanes.h"
#include "icl/gpt_probe.h"
#include "icl/gpt_train.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

constexpr int kPairs = tasks::kMaxShots + 1;  // training documents as long as the 16-shot curve
constexpr int kArms = 3;
constexpr gpt::AttentionKind kKinds[kArms] = {gpt::AttentionKind::softmax, gpt::AttentionKind::linear,
                                               gpt::AttentionKind::delta};
constexpr int kSoftmaxArm = 0, kLinearArm = 1, kDeltaArm = 2;  // indices into kKinds

// The (v, mean, sd) form of metrics::mean_sd.
void mean_sd(const std::vector<double>& v, double& mean, double& sd) {
    const metrics::MeanSd s = metrics::mean_sd(v);
    mean = s.mean;
    sd = s.sd;
}

// What the first seed's linear model writes while it reads a 16-shot prompt.
struct FastWeightView {
    std::vector<std::string> heads;              // gpt::head_name: "L0H1"
    std::vector<std::vector<double>> growth;     // per head: ‖ΔW_t‖_F after each demonstration token
    std::vector<double> final_dw;                // (hs, heads*hs): each head's ΔW_ICL side by side
    int hs = 0;
    double identity_err = 0;                     // max |forward − (W_ZSL + ΔW_ICL) read| / max |forward|
    double demo_norm_ratio = 0;                  // mean ‖ΔW_ICL φ(q)‖ / ‖(W_ZSL + ΔW_ICL) φ(q)‖ over heads
    std::string prompt;
};

class FastWeightsSession : public TaskSuiteLanesSession {
public:
    FastWeightsSession(const DemoContext& ctx, gpt::Config cfg)
        : TaskSuiteLanesSession("fast_weights", ctx, std::move(cfg), kPairs, 61, {kDeltaArm, kSoftmaxArm}, kArms, 0.9, 0.1) {
        begin_seed();
    }
    std::vector<Panel> panels() const override;

private:
    gpt::Config arm_config(int arm) const override {
        gpt::Config c = cfg_;
        c.kinds.assign((size_t)c.layers, kKinds[arm]);
        return c;
    }

    // A lane model's fields: every seed's shots curve and final loss, and the delta rule's
    // step sizes β, listed once for both ways.
    struct LaneResults {
        std::vector<std::vector<double>> curves;  // [seed][k]
        std::vector<double> final_loss, betas;
    };
    void lane_fields(LaneState& io, int arm, LaneResults& r) const {
        io.rows("curves", r.curves, seeds_, true, "seeds", tasks::kMaxShots + 1);
        io.numbers("final_loss", r.final_loss, (long)r.curves.size());
        if (arm != kDeltaArm) return;
        io.numbers("betas", r.betas);
        if (io.reading() && !r.betas.empty() && (int)r.betas.size() != cfg_.layers)
            io.fail("'betas' has " + std::to_string(r.betas.size()) + " numbers, not 0 or " + std::to_string(cfg_.layers));
    }
    void write_lane(int arm, LaneState& out) const override {
        LaneResults r{curves_[arm], final_loss_[arm], arm == kDeltaArm ? betas_ : std::vector<double>{}};
        lane_fields(out, arm, r);
    }
    Status read_lane(int arm, LaneState& in) override {
        LaneResults r;
        lane_fields(in, arm, r);
        if (Status st = in.status(); !st) return st;
        curves_[arm] = std::move(r.curves);
        final_loss_[arm] = std::move(r.final_loss);
        if (arm == kDeltaArm) betas_ = std::move(r.betas);
        return Ok{};
    }

    Status evaluate_seed() override {
        const tasks::Suite& s = tasks::suite();
        Rng val(ctx_.seed, 62);  // the same held-out prompts for every model and seed
        std::vector<tasks::Sequence> curves;
        for (int task = 0; task < (int)s.tasks.size(); ++task)
            for (int i = 0; i < ctx_.params.i("sequences"); ++i) {
                auto c = tasks::make_curve_sequence(s, task, tasks::kMaxShots, val);
                if (!c) return c.error();
                curves.push_back(std::move(c.value()));
            }
        for (int i = 0; i < kArms; ++i) {
            if (!trains(i)) continue;
            auto acc = tasks::evaluate(recipe::logits_fn(arms_[(size_t)i].model), curves, s.vocab());
            if (!acc) return acc.error();
            std::vector<double> curve;
            for (int k = 0; k <= tasks::kMaxShots; ++k) curve.push_back(acc.value()[(size_t)k].accuracy());
            curves_[i].push_back(curve);
            final_loss_[i].push_back(trace(i).smooth);
        }
        if (seed_ == 0) {
            if (trains(kLinearArm))
                if (Status st = read_fast_weights(); !st) return st;
            if (trains(kDeltaArm))
                if (Status st = read_betas(); !st) return st;
        }
        return Ok{};
    }

    // The linear model reads one 16-shot prompt; its forward (the attention form) and
    // the fast-weight form of every head, split at the demonstrations.
    Status read_fast_weights() {
        const tasks::Suite& s = tasks::suite();
        const gpt::Model& m = arms_[kLinearArm].model;
        Rng rng(ctx_.seed, 63);
        const int task = s.find_task(ctx_.params.s("task"));
        tasks::PromptOptions po;
        po.shots = tasks::kMaxShots;
        auto prompt = tasks::make_prompt(s, task, po, rng);
        if (!prompt) return prompt.error();
        const std::vector<int>& tok = prompt.value().tokens;
        const int T = (int)tok.size();
        const int demo_end = prompt.value().demos_end();  // "<s>", 16 × "x → y ;", then the query "x →"
        view_.prompt = s.text(tok);
        gpt::Activations acts;
        if (Status st = gpt::forward(m, acts, tok.data(), nullptr, 1, T); !st) return st;
        const int H = cfg_.heads, hs = cfg_.width / H, rows = hs + 1;
        view_.hs = hs;
        view_.heads.clear();
        view_.growth.clear();
        view_.final_dw.assign((size_t)hs * cfg_.layers * H * hs, 0.0);
        auto final_dw = xt::adapt(view_.final_dw, std::array<size_t, 2>{(size_t)hs, (size_t)cfg_.layers * H * hs});
        double err = 0, scale = 0, ratio = 0;
        std::vector<float> O((size_t)T * hs), states((size_t)T * rows * hs), fq(hs);
        for (int l = 0; l < cfg_.layers; ++l)
            for (int h = 0; h < H; ++h) {
                // batch row 0's (T,hs) each, copied contiguous for the head's kernel
                const Matrix q = gpt::head_qkv(acts, l, 0, h, gpt::Qkv::q).value(),
                             k = gpt::head_qkv(acts, l, 0, h, gpt::Qkv::k).value(),
                             v = gpt::head_qkv(acts, l, 0, h, gpt::Qkv::v).value();
                gpt::fast_weight_head(gpt::AttentionKind::linear, O.data(), states.data(), q.data(), k.data(),
                                      v.data(), nullptr, T, hs);
                // S_t (rows,hs) after each token t as the kernel wrote them; rows [0, hs) are the
                // weights, row hs the normaliser z. S after "<s>" belongs to the zero-shot part;
                // the demonstrations (tokens 1..demo_end−1) write ΔW_ICL = Σ v_j ⊗ φ(k_j); the
                // query adds the rest.
                const auto S = xt::adapt(states.data(), states.size(), xt::no_ownership(),
                                         std::array<size_t, 3>{(size_t)T, (size_t)rows, (size_t)hs});
                const auto weights = [&](int t) { return xt::view(S, t, xt::range(0, hs)); };  // (hs,hs) of S_t
                std::vector<double> growth;  // ||S_t − S_0|| over the weights
                for (int t = 1; t < demo_end; ++t)
                    growth.push_back(std::sqrt(xt::sum(xt::square(xt::cast<double>(weights(t) - weights(0))))()));
                view_.growth.push_back(growth);
                view_.heads.push_back(gpt::head_name(l, h));
                const size_t col0 = ((size_t)l * H + h) * hs;
                xt::view(final_dw, xt::all(), xt::range(col0, col0 + hs)) = weights(demo_end - 1) - weights(0);
                // the last position: forward's head output vs (W_ZSL + ΔW_ICL) φ(q) / ((z_ZSL + Δz) · φ(q)),
                // W_ZSL = S_T − ΔW_ICL, summed back in that order
                feature_map_forward(fq.data(), q.data() + (size_t)(T - 1) * hs, (size_t)hs);
                const auto phi_q = xt::adapt(fq);
                const xt::xtensor<double, 2> dw = xt::cast<double>(xt::view(S, demo_end - 1)) - xt::cast<double>(xt::view(S, 0)),
                                             zsl = xt::cast<double>(xt::view(S, T - 1)) - dw;
                const xt::xtensor<double, 1> read = xt::sum((zsl + dw) * phi_q, {1}),  // (rows)
                    demo = xt::sum(dw * phi_q, {1});
                const gpt::View out = gpt::head_output(acts, l, 0, h).value();  // (T,hs)
                const auto fwd = xt::view(out, T - 1);                           // (hs): the last position
                const auto read_w = xt::view(read, xt::range(0, hs)), demo_w = xt::view(demo, xt::range(0, hs));
                err = std::max(err, (double)xt::amax(xt::abs(read_w / read(hs) - fwd))());
                scale = std::max(scale, (double)xt::amax(xt::abs(fwd))());
                ratio += std::sqrt(xt::sum(xt::square(demo_w))() / xt::sum(xt::square(read_w))()) / (cfg_.layers * H);
            }
        view_.identity_err = err / std::max(scale, 1e-30);
        view_.demo_norm_ratio = ratio;
        return Ok{};
    }

    // The delta model's step sizes β on the same kind of prompt, per layer.
    Status read_betas() {
        const tasks::Suite& s = tasks::suite();
        Rng rng(ctx_.seed, 63);
        tasks::PromptOptions po;
        po.shots = tasks::kMaxShots;
        auto prompt = tasks::make_prompt(s, s.find_task(ctx_.params.s("task")), po, rng);
        if (!prompt) return prompt.error();
        const std::vector<int>& tok = prompt.value().tokens;
        gpt::Activations acts;
        if (Status st = gpt::forward(arms_[kDeltaArm].model, acts, tok.data(), nullptr, 1, (int)tok.size()); !st) return st;
        betas_.clear();
        const size_t n = (size_t)cfg_.heads * tok.size();
        for (int l = 0; l < cfg_.layers; ++l) {
            const gpt::View b = gpt::delta_betas(arms_[kDeltaArm].model, acts, l, 0).value();  // (H,T)
            betas_.push_back(std::accumulate(b.begin(), b.end(), 0.0) / (double)n);
        }
        return Ok{};
    }

    std::vector<std::vector<double>> curves_[kArms];  // [arm][seed][k]
    std::vector<double> final_loss_[kArms];
    FastWeightView view_;
    std::vector<double> betas_;
};

std::vector<Panel> FastWeightsSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<std::string> names;  // the arms' labels
    for (const char* id : {"arm.softmax", "arm.linear", "arm.delta"}) names.push_back(msg(id));
    std::vector<Panel> panels;

    // mean over seeds of accuracy at k = 0, 1, 16 and the gain 16 − 0
    ScalarsPanel sc{msg("panel.summary.title"), {}};
    const char* ids[kArms] = {"softmax", "linear", "delta"};
    for (int i = 0; i < kArms; ++i) {
        std::vector<double> k0, k16, gain;
        for (const auto& c : curves_[i]) {
            k0.push_back(c[0]);
            k16.push_back(c[(size_t)tasks::kMaxShots]);
            gain.push_back(c[(size_t)tasks::kMaxShots] - c[0]);
        }
        double m, sd;
        mean_sd(k0, m, sd);
        sc.items.push_back({std::string(ids[i]) + "_k0", m, "", msg("scalar.arm_k0.help", {{"arm", names[i]}})});
        mean_sd(k16, m, sd);
        sc.items.push_back({std::string(ids[i]) + "_k16", m, "", msg("scalar.arm_k16.help", {{"arm", names[i]}})});
        sc.items.push_back({std::string(ids[i]) + "_k16_sd", sd, "", msg("scalar.spread.help")});
        // the smoothed training loss at the last step: how far each model has trained
        mean_sd(final_loss_[i], m, sd);
        sc.items.push_back({std::string(ids[i]) + "_final_loss", m, "nats", msg("scalar.arm_final_loss.help", {{"arm", names[i]}})});
        sc.items.push_back({std::string(ids[i]) + "_final_loss_sd", sd, "nats", msg("scalar.spread.help")});
        mean_sd(gain, m, sd);
        sc.items.push_back({std::string(ids[i]) + "_gain", m, "", msg("scalar.arm_gain.help", {{"arm", names[i]}})});
        sc.items.push_back({std::string(ids[i]) + "_gain_sd", sd, "", msg("scalar.spread.help")});
    }
    for (int i = 1; i < kArms; ++i) {  // paired by seed: same batches, same prompts
        std::vector<double> d;
        for (size_t sd = 0; sd < std::min(curves_[i].size(), curves_[0].size()); ++sd)  // a lane's seeds may lag
            d.push_back(curves_[i][sd][(size_t)tasks::kMaxShots] - curves_[0][sd][(size_t)tasks::kMaxShots]);
        double m, sd;
        mean_sd(d, m, sd);
        sc.items.push_back({std::string(ids[i]) + "_minus_softmax_k16", m, "",
                            msg("scalar.arm_minus_softmax_k16.help", {{"arm", names[i]}})});
    }
    sc.items.push_back({"identity_err", view_.identity_err, "", msg("scalar.identity_err.help")});
    sc.items.push_back({"demo_norm_ratio", view_.demo_norm_ratio, "", msg("scalar.demo_norm_ratio.help")});
    for (size_t l = 0; l < betas_.size(); ++l)
        sc.items.push_back({"delta_beta_L" + std::to_string(l), betas_[l], "", msg("scalar.delta_beta.help", {{"layer", (int)l}})});
    size_t seeds_all = curves_[0].size(), seeds_any = 0;  // every model has finished; some model has
    for (int i = 0; i < kArms; ++i) {
        seeds_all = std::min(seeds_all, curves_[i].size());
        seeds_any = std::max(seeds_any, curves_[i].size());
    }
    sc.items.push_back({"seeds_done", (double)seeds_all, "", msg("scalar.seeds_done.help")});
    panels.push_back(sc);

    LinesPanel loss{msg("panel.loss.title"), "step", "nats", false, false, {}};
    for (int i = 0; i < kArms; ++i) {
        loss.series.push_back({names[i], trace(i).steps, trace(i).loss, {}, i == 2});
    }

    LinesPanel shots{msg("panel.shots.title"),
                     msg("panel.shots.x"), msg("panel.shots.y"), false, false, {}};
    for (int i = 0; i < kArms; ++i) {
        if (curves_[i].empty()) continue;
        Series se{names[i], {}, {}, {}, i == 2};
        for (int k = 0; k <= tasks::kMaxShots; ++k) {
            std::vector<double> v;
            for (const auto& c : curves_[i]) v.push_back(c[(size_t)k]);
            double m, sd;
            mean_sd(v, m, sd);
            se.x.push_back(k);
            se.y.push_back(m);
            se.y_err.push_back(sd);
        }
        shots.series.push_back(se);
    }
    panels.push_back(shots);
    panels.push_back(loss);  // after the shots curve, the main chart ("What to see" starts there)

    if (!view_.growth.empty()) {
        LinesPanel g{msg("panel.growth.title"),
                     msg("panel.growth.x"), "‖ΔW‖_F", false, false, {}};
        for (size_t h = 0; h < view_.growth.size(); ++h) {
            Series se{view_.heads[h], {}, view_.growth[h], {}, false};
            for (size_t t = 0; t < view_.growth[h].size(); ++t) se.x.push_back((double)t + 1);
            g.series.push_back(se);
        }
        panels.push_back(g);
        HeatmapPanel hm{msg("panel.delta.title"),
                        msg("panel.delta.x"), msg("panel.delta.y"),
                        view_.hs, (int)view_.growth.size() * view_.hs, view_.final_dw, {}, {}, true};
        for (size_t h = 0; h < view_.growth.size(); ++h)
            for (int c = 0; c < view_.hs; ++c) hm.col_labels.push_back(c == 0 ? view_.heads[h] : "");
        panels.push_back(hm);
    }

    TablePanel t{msg("panel.seeds.title"),
                 {msg("panel.seeds.col.seed"), "softmax", "linear", "delta rule"}, {}};
    for (size_t sd = 0; sd < seeds_any; ++sd) {
        std::vector<std::string> row{std::to_string(sd)};
        for (int i = 0; i < kArms; ++i) {
            if (sd >= curves_[i].size()) {  // this model's lane has not finished this seed yet
                row.push_back("…");
                continue;
            }
            const auto& c = curves_[i][sd];
            row.push_back(format_number(c[0], "%.2f") + " → " + format_number(c[1], "%.2f") + " → " + format_number(c[4], "%.2f") + " → " +
                          format_number(c[(size_t)tasks::kMaxShots], "%.2f"));
        }
        t.rows.push_back(row);
    }
    panels.push_back(t);

    panels.push_back(guide_note(msg));
    return panels;
}

const DemoDef kFastWeights = [] {
    DemoDef d;
    d.id = "fast_weights";
    d.paper = "Katharopoulos et al. 2020; Schlag, Irie, Schmidhuber 2021; Dai et al. 2023";
    d.params = {
        ParamSpec::integer("steps", 20, 2000, 500, 10),
        ParamSpec::integer("seeds", 1, 8, 2, 1),
        ParamSpec::integer("width", 16, 64, 32, 2),
        ParamSpec::real("lr", 1e-4, 3e-2, 1e-2, 1e-4),
        ParamSpec::integer("sequences", 1, 32, 6, 1),
        ParamSpec::choice("task", tasks::task_ids(), "antonym"),
    };
    d.start = start_task_suite<FastWeightsSession, kPairs>;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kFastWeights);

}  // namespace
}  // namespace icl

// induction_heads (Olsson et al. 2022): an attention-only tiny GPT trained live on
// repeated random blocks. Streams the loss, the ICL score and every head's
// prefix-matching score over training (the phase change), beside a 1-layer control
// trained identically; at the end, each head's attention map, and the ICL score with
// each head ablated.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "icl/demo.h"
#include "icl/demo_memory.h"
#include "icl/demo_panels.h"
#include "icl/demo_seeded_lanes.h"
#include "icl/gpt_probe.h"
#include "icl/gpt_train.h"
#include "icl/induction.h"
#include "icl/profile.h"

namespace icl {
namespace {

using gpt::head_name;

// A head "is" an induction head once its prefix-matching score passes this (uniform
// causal attention over 48 positions gives about 0.03).
constexpr double kPhaseThreshold = 0.3;

// What a model's evaluations recorded over training: what a lane's state carries.
struct History {
    std::vector<double> eval_steps, eval_loss, icl_score, best_prefix;
    std::vector<std::vector<double>> prefix_by_head;  // [head][eval]
    induction::Eval last;
    double phase_step = -1;  // first eval step where the best prefix-matching score passes kPhaseThreshold
};

// One model being trained and its history.
struct Run {
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;  // empty: another worker trains it (a lane)
    History history;
    std::vector<float> probe_attention;  // (L,H,T,T): attention on the probe sequence at the last evaluation
};

// A history's fields, for a run of `heads` heads (L*H) at sequence length T, listed once
// for both ways (icl/lane_state.h).
void history_fields(LaneState& io, History& h, int heads, int T) {
    io.numbers("eval_steps", h.eval_steps);
    const long n = (long)h.eval_steps.size();
    io.numbers("eval_loss", h.eval_loss, n);
    io.numbers("icl_score", h.icl_score, n);
    io.numbers("best_prefix", h.best_prefix, n);
    io.rows("prefix_by_head", h.prefix_by_head, heads, false, "heads", n);
    io.number("phase_step", h.phase_step);
    if (std::isnan(h.phase_step)) h.phase_step = -1;  // none yet
    io.object("last", [&](LaneState& last) {
        last.number("loss", h.last.loss);
        last.numbers("loss_by_position", h.last.loss_by_position, T);
        last.number("icl_score", h.last.icl_score);
        last.numbers("prefix_matching", h.last.prefix_matching, heads);
        last.numbers("previous_token", h.last.previous_token, heads);
    });
}

// Lane 0 is the model; lane 1, the 1-layer control, if any. One seed.
class InductionSession : public TrainedLanesSession {
public:
    InductionSession(const DemoContext& ctx, induction::Data data, gpt::Config main_cfg)
        : TrainedLanesSession("induction_heads", ctx.params.i("steps"), 1, ctx.lane, has_control(ctx.params, main_cfg) ? std::vector<int>{1} : std::vector<int>{},
                             has_control(ctx.params, main_cfg) ? 2 : 1, 0.9, 0.1),
          ctx_(ctx), data_(data), rng_(ctx.seed, 11) {
        const Params& p = ctx.params;
        batch_ = p.i("batch");
        eval_every_ = std::max(1, steps_ / 40);
        OptimizerConfig opt;
        opt.lr = p.f("lr");
        opt.clip_norm = 1.0f;
        std::vector<gpt::Config> configs = {main_cfg};
        if (has_control(p, main_cfg)) {
            configs.push_back(main_cfg);
            configs.back().layers = 1;
        }
        for (size_t k = 0; k < configs.size(); ++k) {
            runs_.push_back(std::make_unique<Run>());
            Run& r = *runs_.back();
            r.model = gpt::make_model(configs[k], ctx.seed).value();  // its layout: the panels' head count
            if (!trains((int)k)) continue;  // a lane session trains its lane only
            // GPT-2's init (std 0.02) leaves every attention pattern uniform and the
            // plateau before the phase change long; a larger init shortens it.
            const float scale = p.f("init_std") / 0.02f;
            for (const gpt::TensorInfo& t : r.model.layout.tensors)
                if (t.shape.size() == 2)
                    for (size_t i = 0; i < t.size; ++i) r.model.params[t.offset + i] *= scale;
            r.trainer.emplace(gpt::Trainer::make(r.model, opt).value());
        }
        Rng eval_rng(ctx.seed, 12);
        induction::make_batch(data_, kEvalBatch, eval_rng, eval_tokens_, eval_targets_);
        induction::make_repeat_probe(data_, kEvalBatch, eval_rng, probe_);
        if (Status st = evaluate_all(); !st) error_ = st.error().message;
    }
    std::vector<Panel> panels() const override;

private:
    static constexpr int kEvalBatch = 32;

    static bool has_control(const Params& p, const gpt::Config& main_cfg) { return p.b("control") && main_cfg.layers != 1; }

    // One unit = one AdamW step of every model this session trains.
    void draw_batch() override {
        ICL_PROFILE_SCOPE("demo batch");
        induction::make_batch(data_, batch_, rng_, tokens_, targets_);
    }
    std::optional<double> train_step(int arm) override {
        return loss_of(runs_[(size_t)arm]->trainer->step(tokens_.data(), targets_.data(), batch_, data_.length));
    }
    Status after_step() override { return step_ % eval_every_ == 0 && step_ != steps_ ? evaluate_all() : Ok{}; }
    // The last evaluation, and the main model's heads ablated one at a time.
    Status evaluate_seed() override {
        if (Status st = evaluate_all(); !st) return st;
        return runs_[0]->trainer ? ablate() : Ok{};
    }
    void drop_model(int arm) override { runs_[(size_t)arm]->trainer.reset(); }
    int heads(int arm) const { return runs_[(size_t)arm]->model.config.layers * runs_[(size_t)arm]->model.config.heads; }
    void write_lane(int arm, LaneState& out) const override {
        History h = runs_[(size_t)arm]->history;
        history_fields(out, h, heads(arm), data_.length);
    }
    Status read_lane(int arm, LaneState& in) override {
        History h;
        history_fields(in, h, heads(arm), data_.length);
        if (Status st = in.status(); !st) return st;
        runs_[(size_t)arm]->history = std::move(h);
        return Ok{};
    }

    Status evaluate_all() {
        ICL_PROFILE_SCOPE("demo evaluate");
        for (auto& r : runs_) {
            if (!r->trainer) continue;
            auto e = induction::evaluate(r->model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch);
            if (!e) return e.error();
            History& h = r->history;
            h.last = e.value();
            h.eval_steps.push_back(step_);
            h.eval_loss.push_back(e.value().loss);
            h.icl_score.push_back(e.value().icl_score);
            const auto& pm = e.value().prefix_matching;
            h.prefix_by_head.resize(pm.size());
            for (size_t i = 0; i < pm.size(); ++i) h.prefix_by_head[i].push_back(pm[i]);
            const double best = *std::max_element(pm.begin(), pm.end());
            h.best_prefix.push_back(best);
            if (h.phase_step < 0 && best >= kPhaseThreshold) h.phase_step = step_;
        }
        // The main model's attention maps on the probe, for result() to copy from.
        if (!runs_[0]->trainer) return Ok{};  // a lane session: not its model
        Run& m = *runs_[0];
        const int L = m.model.config.layers, H = m.model.config.heads, T = data_.length;
        gpt::Activations acts;
        if (Status s = gpt::forward(m.model, acts, probe_.data(), nullptr, 1, T); !s) return s;
        m.probe_attention.resize(static_cast<size_t>(L) * H * T * T);
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                const gpt::View a = gpt::attention_map(acts, l, 0, h).value();  // (T,T)
                std::copy(a.begin(), a.end(), m.probe_attention.begin() + (static_cast<size_t>(l) * H + h) * T * T);
            }
        return Ok{};
    }

    // ICL score with each head of the main model zeroed, one at a time.
    Status ablate() {
        const Run& r = *runs_[0];
        const int L = r.model.config.layers, H = r.model.config.heads;
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                gpt::Hooks hooks;
                hooks.ablations = {{l, h}};
                auto e = induction::evaluate(r.model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch, &hooks);
                if (!e) return e.error();
                ablated_icl_.push_back(e.value().icl_score);
            }
        return Ok{};
    }

    DemoContext ctx_;
    induction::Data data_;
    Rng rng_;
    int batch_ = 0, eval_every_ = 1;
    std::vector<std::unique_ptr<Run>> runs_;  // [0] the model, [1] the 1-layer control if any
    std::vector<int> tokens_, targets_, eval_tokens_, eval_targets_, probe_;
    std::vector<double> ablated_icl_;  // (L*H), after training
};

std::vector<Panel> InductionSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    if (lane() != 0) return panels;  // a lane session reports its lane_state() instead
    const Run& run = *runs_[0];
    const History& m = run.history;
    // the control, once it has been evaluated (an offloaded one: once its first state is in)
    const History* ctl = runs_.size() > 1 && !runs_[1]->history.eval_steps.empty() ? &runs_[1]->history : nullptr;
    const int L = run.model.config.layers, H = run.model.config.heads;
    const auto& pm = m.last.prefix_matching;
    const int best = (int)(std::max_element(pm.begin(), pm.end()) - pm.begin());
    const auto& prev = m.last.previous_token;
    const int best_prev = (int)(std::max_element(prev.begin(), prev.end()) - prev.begin());

    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"steps", (double)units_done(), "", msg("scalar.steps.help")});
    s.items.push_back({"loss", m.last.loss, "nats", msg("scalar.loss.help")});
    s.items.push_back({"icl_score", m.last.icl_score, "nats",
                       msg("scalar.icl_score.help")});
    s.items.push_back({"prefix_matching", pm[(size_t)best], "",
                       msg("scalar.prefix_matching.help")});
    s.items.push_back({"previous_token", prev[(size_t)best_prev], "",
                       msg("scalar.previous_token.help")});
    s.items.push_back({"phase_step", m.phase_step, "",
                       msg("scalar.phase_step.help")});
    s.items.push_back({"control_icl_score", ctl ? ctl->last.icl_score : NAN, "nats",
                       msg("scalar.control_icl_score.help")});
    s.items.push_back({"control_prefix_matching", ctl ? *std::max_element(ctl->last.prefix_matching.begin(), ctl->last.prefix_matching.end()) : NAN, "",
                       msg("scalar.control_prefix_matching.help")});
    s.items.push_back({"icl_score_ablated", ablated_icl_.empty() ? NAN : ablated_icl_[(size_t)best], "nats",
                       msg("scalar.icl_score_ablated.help")});
    panels.push_back(std::move(s));

    const std::string ind = head_name(best / H, best % H), pr = head_name(best_prev / H, best_prev % H);
    panels.push_back(NotePanel{
        msg("note.guide.title"),
        msg("note.guide.text", {{"prev_head", pr},
                     {"induction_head", ind},
                     {"this_run", m.phase_step >= 0 ? msg("note.guide.jump", {{"step", (int)m.phase_step}}) : msg("note.guide.no_jump")}})});
    // The head the attention maps below show, named as an induction head once its
    // prefix-matching score passes the threshold.
    panels.push_back(NotePanel{msg("note.induction.title"),
                               msg(pm[(size_t)best] >= kPhaseThreshold ? "note.induction.found" : "note.induction.none",
                                   {{"head", ind}, {"score", pm[(size_t)best]}, {"threshold", kPhaseThreshold}})});

    LinesPanel loss{msg("panel.loss.title"), msg("axis.step"), "nats", false, false, {}};
    LinesPanel icl{msg("panel.icl.title"),
                   msg("axis.step"), "nats", false, false, {}};
    LinesPanel prefix{msg("panel.prefix.title"),
                      msg("axis.step"), msg("panel.prefix.y"), false, false, {}};
    const std::string two = msg("series.model", {{"L", L}});
    loss.series.push_back({two, m.eval_steps, m.eval_loss, {}, false});
    icl.series.push_back({two, m.eval_steps, m.icl_score, {}, false});
    for (size_t h = 0; h < m.prefix_by_head.size(); ++h)
        prefix.series.push_back({head_name((int)h / H, (int)h % H), m.eval_steps, m.prefix_by_head[h], {}, false});
    if (ctl) {
        const std::string one = msg("series.control");
        loss.series.push_back({one, ctl->eval_steps, ctl->eval_loss, {}, true});
        icl.series.push_back({one, ctl->eval_steps, ctl->icl_score, {}, true});
        prefix.series.push_back({msg("series.best_head", {{"model", one}}), ctl->eval_steps, ctl->best_prefix, {}, true});
    }
    panels.push_back(std::move(loss));
    panels.push_back(std::move(icl));
    panels.push_back(std::move(prefix));

    LinesPanel by_pos{msg("panel.by_pos.title"),
                      msg("panel.by_pos.x"), "nats", false, false, {}};
    std::vector<double> xs;
    for (int t = 0; t + 1 < data_.length; ++t) xs.push_back(t);
    auto trimmed = [](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.end() - 1); };
    by_pos.series.push_back({two, xs, trimmed(m.last.loss_by_position), {}, false});
    if (ctl) by_pos.series.push_back({msg("series.control"), xs, trimmed(ctl->last.loss_by_position), {}, true});
    panels.push_back(std::move(by_pos));

    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    HeatmapPanel pmap{msg("panel.pmap.title"), msg("axis.head"),
                      msg("axis.layer"), L, H, pm, rows, cols, false};
    HeatmapPanel pvmap{msg("panel.pvmap.title"), msg("axis.head"),
                       msg("axis.layer"), L, H, prev, rows, cols, false};
    panels.push_back(std::move(pmap));
    panels.push_back(std::move(pvmap));

    if (!ablated_icl_.empty()) {
        BarsPanel bars{msg("panel.bars.title"),
                       "nats", {msg("panel.bars.bar.none")}, {m.last.icl_score}, {}};
        for (size_t h = 0; h < ablated_icl_.size(); ++h) {
            bars.labels.push_back(head_name((int)h / H, (int)h % H));
            bars.values.push_back(ablated_icl_[h]);
        }
        panels.push_back(std::move(bars));
    }

    // attention maps of the probe sequence at the last evaluation (evaluate_all computed
    // them), previous-token head and induction head
    const int T = data_.length;
    if (run.probe_attention.size() == static_cast<size_t>(L) * H * T * T) {
        std::vector<std::string> labels;
        for (int t = 0; t < T; ++t) labels.push_back(std::to_string(probe_[(size_t)t]));
        for (int idx : {best_prev, best}) {
            const float* a = run.probe_attention.data() + static_cast<size_t>(idx) * T * T;  // idx = l * H + h
            HeatmapPanel hm{msg("panel.hm.title", {{"head", head_name(idx / H, idx % H)},
                                                   {"which", msg(idx == best ? "note.guide.which_prefix" : "note.guide.which_previous")}}),
                            msg("panel.hm.x"), msg("panel.hm.y"),
                            T, T, std::vector<double>(a, a + (size_t)T * T), labels, labels, false};
            panels.push_back(std::move(hm));
            if (best == best_prev) break;
        }
    }
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    induction::Data d;
    d.vocab = p.i("vocab");
    d.length = p.i("length");
    d.copy_prob = p.f("copy_prob");
    if (Status s = induction::validate(d); !s) return s.error();
    gpt::Config c;
    c.vocab = d.vocab;
    c.context = d.length;
    c.width = p.i("width");
    c.layers = p.i("layers");
    c.heads = p.i("heads");
    c.attention_only = true;
    if (c.width % c.heads != 0)
        return learner_error("error.heads_divide_width", {{"heads", std::to_string(c.heads)}, {"width", std::to_string(c.width)}});
    if (Status s = gpt::validate(c); !s) return s.error();
    return std::unique_ptr<Session>(new InductionSession(ctx, d, c));
}

// Per model trained (the chosen depth, and the 1-layer control): its parameters, gradients
// and AdamW moments, a training batch's activations twice (forward and their gradients)
// and the evaluation batch's (32 sequences). The sizes stay the same at every step, so
// the bound holds for the whole run (tests/unit/test_bounds.cpp measures it).
size_t peak_bytes(const Params& p) {
    gpt::Config c;
    c.vocab = p.i("vocab");
    c.context = p.i("length");
    c.width = p.i("width");
    c.heads = p.i("heads");
    c.attention_only = true;
    size_t floats = 0;
    for (int layers : {p.i("layers"), p.b("control") && p.i("layers") > 1 ? 1 : 0}) {
        if (layers == 0) continue;
        c.layers = layers;
        floats += 4 * gpt::parameter_count(c) + 2 * gpt::activation_count(c, p.i("batch"), c.context) +
                  gpt::activation_count(c, 32, c.context);
    }
    return floats * sizeof(float) + (4u << 20);
}

const DemoDef kInductionHeads = [] {
    DemoDef d;
    d.id = "induction_heads";
    d.paper = "Olsson et al. 2022";
    d.params = {
        // Every size at its max (two models, batch 64 x 96 tokens, width 128) is over
        // kDemoMemoryBudget, so peak_bytes refuses it at start.
        ParamSpec::integer("layers", 1, 3, 2, 1),
        ParamSpec::integer("heads", 1, 8, 2, 1),
        ParamSpec::integer("width", 16, 128, 32, 16),
        ParamSpec::integer("vocab", 16, 256, 32, 1),
        ParamSpec::integer("length", 16, 96, 48, 1),
        ParamSpec::real("copy_prob", 0, 1, 0.7, 0.05),
        ParamSpec::integer("steps", 10, 5000, 1500, 10),
        ParamSpec::integer("batch", 1, 64, 32, 1),
        ParamSpec::real("lr", 1e-4, 1e-2, 5e-3, 1e-4),
        ParamSpec::real("init_std", 0.01, 0.5, 0.2, 0.01),
        ParamSpec::boolean("control", true),
    };
    d.start = start;
    d.peak_bytes = peak_bytes;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kInductionHeads);

}  // namespace
}  // namespace icl

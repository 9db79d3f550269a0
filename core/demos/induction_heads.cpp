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
#include "icl/gpt_train.h"
#include "icl/induction.h"
#include "icl/profile.h"

namespace icl {
namespace {

std::string head_name(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h); }

// One model being trained, its fixed evaluation batch and its history.
struct Run {
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;  // empty: another worker trains it (a lane)
    std::vector<double> eval_steps, eval_loss, icl_score, best_prefix;
    std::vector<std::vector<double>> prefix_by_head;  // [head][eval]
    induction::Eval last;
    std::vector<float> probe_attention;  // (L,H,T,T): attention on the probe sequence at the last evaluation
    double phase_step = -1;  // first eval step where the best prefix-matching score passes kPhaseThreshold
    int lane_steps = 0;      // trained elsewhere: the steps its last state had done
};

// A run's history as a lane's state (Session::lane_state); numbers survive the trip
// exactly (nlohmann writes the shortest text that reads back as the same double), and
// a non-finite one travels as null.
nlohmann::json history_json(const Run& r) {
    nlohmann::json by_head = nlohmann::json::array();
    for (const auto& h : r.prefix_by_head) by_head.push_back(json_numbers(h));
    const nlohmann::json last = {{"loss", json_number(r.last.loss)},
                                 {"loss_by_position", json_numbers(r.last.loss_by_position)},
                                 {"icl_score", json_number(r.last.icl_score)},
                                 {"prefix_matching", json_numbers(r.last.prefix_matching)},
                                 {"previous_token", json_numbers(r.last.previous_token)}};
    return {{"eval_steps", json_numbers(r.eval_steps)}, {"eval_loss", json_numbers(r.eval_loss)},
            {"icl_score", json_numbers(r.icl_score)},   {"best_prefix", json_numbers(r.best_prefix)},
            {"prefix_by_head", by_head},                {"phase_step", json_number(r.phase_step)},
            {"last", last}};
}

// The inverse of history_json for a run of `heads` heads (L*H) at sequence length T.
Status read_history(const nlohmann::json& j, int heads, int T, Run& r) {
    Run got;
    auto steps = read_json_numbers(j, "eval_steps", -1);
    if (!steps) return steps.error();
    const long n = (long)steps.value().size();
    got.eval_steps = steps.value();
    for (auto [key, out] : {std::pair{"eval_loss", &got.eval_loss}, {"icl_score", &got.icl_score}, {"best_prefix", &got.best_prefix}}) {
        auto v = read_json_numbers(j, key, n);
        if (!v) return v.error();
        *out = v.value();
    }
    if (!j.contains("prefix_by_head") || !j["prefix_by_head"].is_array() || (int)j["prefix_by_head"].size() != heads)
        return make_error("'prefix_by_head' is not a list of " + std::to_string(heads) + " heads");
    for (const auto& h : j["prefix_by_head"]) {
        auto v = read_json_numbers(nlohmann::json{{"head", h}}, "head", n);
        if (!v) return make_error("'prefix_by_head': " + v.error().message);
        got.prefix_by_head.push_back(v.value());
    }
    auto phase = read_json_number(j, "phase_step");
    if (!phase) return phase.error();
    got.phase_step = std::isnan(phase.value()) ? -1 : phase.value();
    if (!j.contains("last") || !j["last"].is_object()) return make_error("'last' is not an object");
    const nlohmann::json& last = j["last"];
    auto loss = read_json_number(last, "loss"), icl = read_json_number(last, "icl_score");
    if (!loss) return loss.error();
    if (!icl) return icl.error();
    auto by_pos = read_json_numbers(last, "loss_by_position", T), pm = read_json_numbers(last, "prefix_matching", heads),
         prev = read_json_numbers(last, "previous_token", heads);
    for (const auto* v : {&by_pos, &pm, &prev})
        if (!*v) return v->error();
    got.last = {loss.value(), by_pos.value(), icl.value(), pm.value(), prev.value()};
    r.eval_steps = std::move(got.eval_steps);
    r.eval_loss = std::move(got.eval_loss);
    r.icl_score = std::move(got.icl_score);
    r.best_prefix = std::move(got.best_prefix);
    r.prefix_by_head = std::move(got.prefix_by_head);
    r.phase_step = got.phase_step;
    r.last = std::move(got.last);
    return Ok{};
}

// A head "is" an induction head once its prefix-matching score passes this (uniform
// causal attention over 48 positions gives about 0.03).
constexpr double kPhaseThreshold = 0.3;

class InductionSession : public Session {
public:
    InductionSession(const DemoContext& ctx, induction::Data data, gpt::Config main_cfg)
        : ctx_(ctx), data_(data), rng_(ctx.seed, 11) {
        const Params& p = ctx.params;
        steps_ = p.i("steps");
        batch_ = p.i("batch");
        eval_every_ = std::max(1, steps_ / 40);
        OptimizerConfig opt;
        opt.lr = p.f("lr");
        opt.clip_norm = 1.0f;
        std::vector<gpt::Config> configs = {main_cfg};  // lane 0: the model; lane 1: the 1-layer control
        if (p.b("control") && main_cfg.layers != 1) {
            configs.push_back(main_cfg);
            configs.back().layers = 1;
        }
        for (size_t k = 0; k < configs.size(); ++k) {
            runs_.push_back(std::make_unique<Run>());
            Run& r = *runs_.back();
            r.model = gpt::make_model(configs[k], ctx.seed).value();  // its layout: the panels' head count
            if (ctx.lane > 0 && (int)k != ctx.lane) continue;  // a lane session trains its lane only
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
        evaluate_all();
    }

    // One unit = one AdamW step of every model this session trains. Every session draws
    // every batch, so a lane trains on the very batches the whole session would.
    void step(int budget) override {
        for (int u = 0; u < budget && done_steps_ < steps_ && error_.empty(); ++u) {
            { ICL_PROFILE_SCOPE("demo batch"); induction::make_batch(data_, batch_, rng_, tokens_, targets_); }
            for (auto& r : runs_) {
                if (!r->trainer) continue;
                auto loss = r->trainer->step(tokens_.data(), targets_.data(), batch_, data_.length);
                if (!loss) { error_ = loss.error().message; return; }
            }
            ++done_steps_;
            if (done_steps_ % eval_every_ == 0 || done_steps_ == steps_) evaluate_all();
            if (!error_.empty()) return;
            if (done_steps_ == steps_ && runs_[0]->trainer) ablate();
        }
    }
    // Done when its own steps are, and every lane trained elsewhere has sent its last state.
    bool done() const override { return !error_.empty() || (done_steps_ >= steps_ && !waiting()); }
    bool waiting() const override {
        if (!error_.empty() || done_steps_ < steps_) return false;
        for (const auto& r : runs_)
            if (offloaded(*r) && r->lane_steps < steps_) return true;
        return false;
    }
    // The slowest of its own steps and each offloaded lane's (as its last state had them):
    // the bar reaches 1 when the run is done, not while it waits for the control.
    double progress() const override {
        if (!steps_) return 1.0;
        int slowest = done_steps_;
        for (const auto& r : runs_)
            if (offloaded(*r)) slowest = std::min(slowest, r->lane_steps);
        return (double)slowest / steps_;
    }
    int lanes() const override { return (int)runs_.size(); }
    Status offload(int k) override {
        if (lane() != 0 || k < 1 || k >= lanes()) return Session::offload(k);
        if (done_steps_ > 0) return make_error("induction_heads: lane " + std::to_string(k) + " can only be offloaded before the first step");
        runs_[(size_t)k]->trainer.reset();
        return Ok{};
    }
    nlohmann::json lane_state() const override {
        if (lane() == 0) return nullptr;
        nlohmann::json state = history_json(*runs_[(size_t)lane()]);
        state["steps"] = done_steps_;
        state["error"] = error_;
        return state;
    }
    Status take_lane(int k, const nlohmann::json& state) override {
        if (lane() != 0 || k < 1 || k >= lanes() || !offloaded(*runs_[(size_t)k]))
            return Session::take_lane(k, state);
        Run& r = *runs_[(size_t)k];
        const std::string what = "induction_heads: lane " + std::to_string(k) + "'s state: ";
        long long steps = 0;
        std::string error;
        if (Status s = read_lane_header(state, steps_, steps, error); !s) return make_error(what + s.error().message);
        const int heads = r.model.config.layers * r.model.config.heads;
        if (Status s = read_history(state, heads, data_.length, r); !s) return make_error(what + s.error().message);
        r.lane_steps = (int)steps;
        // The lane stopped on a problem (its training diverged): so does the session, in its words.
        if (!error.empty() && error_.empty()) error_ = error;
        return Ok{};
    }
    std::vector<Panel> panels() const override;

private:
    static constexpr int kEvalBatch = 32;

    // Trained by another worker: this session neither trains nor evaluates it.
    bool offloaded(const Run& r) const { return lane() == 0 && !r.trainer; }

    void evaluate_all() {
        ICL_PROFILE_SCOPE("demo evaluate");
        for (auto& r : runs_) {
            if (!r->trainer) continue;
            auto e = induction::evaluate(r->model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch);
            if (!e) { error_ = e.error().message; return; }
            r->last = e.value();
            r->eval_steps.push_back(done_steps_);
            r->eval_loss.push_back(e.value().loss);
            r->icl_score.push_back(e.value().icl_score);
            const auto& pm = e.value().prefix_matching;
            r->prefix_by_head.resize(pm.size());
            for (size_t h = 0; h < pm.size(); ++h) r->prefix_by_head[h].push_back(pm[h]);
            const double best = *std::max_element(pm.begin(), pm.end());
            r->best_prefix.push_back(best);
            if (r->phase_step < 0 && best >= kPhaseThreshold) r->phase_step = done_steps_;
        }
        // The main model's attention maps on the probe, for result() to copy from.
        if (!runs_[0]->trainer) return;  // a lane session: not its model
        Run& m = *runs_[0];
        const int L = m.model.config.layers, H = m.model.config.heads, T = data_.length;
        gpt::Activations acts;
        if (Status s = gpt::forward(m.model, acts, probe_.data(), nullptr, 1, T); !s) {
            error_ = s.error().message;
            return;
        }
        m.probe_attention.resize(static_cast<size_t>(L) * H * T * T);
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                const float* a = acts.attention(l, 0, h, H);
                std::copy(a, a + static_cast<size_t>(T) * T, m.probe_attention.begin() + (static_cast<size_t>(l) * H + h) * T * T);
            }
    }

    // ICL score with each head of the main model zeroed, one at a time.
    void ablate() {
        const Run& r = *runs_[0];
        const int L = r.model.config.layers, H = r.model.config.heads;
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                gpt::Hooks hooks;
                hooks.ablations = {{l, h}};
                auto e = induction::evaluate(r.model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch, &hooks);
                if (!e) { error_ = e.error().message; return; }
                ablated_icl_.push_back(e.value().icl_score);
            }
    }

    DemoContext ctx_;
    induction::Data data_;
    Rng rng_;
    int steps_ = 0, batch_ = 0, eval_every_ = 1, done_steps_ = 0;
    std::vector<std::unique_ptr<Run>> runs_;  // [0] the model, [1] the 1-layer control if any
    std::vector<int> tokens_, targets_, eval_tokens_, eval_targets_, probe_;
    std::vector<double> ablated_icl_;  // (L*H), after training
};

std::vector<Panel> InductionSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    if (lane() != 0) return panels;  // a lane session reports its lane_state() instead
    const Run& m = *runs_[0];
    // the control, once it has been evaluated (an offloaded one: once its first state is in)
    const Run* ctl = runs_.size() > 1 && !runs_[1]->eval_steps.empty() ? runs_[1].get() : nullptr;
    const int L = m.model.config.layers, H = m.model.config.heads;
    const auto& pm = m.last.prefix_matching;
    const int best = (int)(std::max_element(pm.begin(), pm.end()) - pm.begin());
    const auto& prev = m.last.previous_token;
    const int best_prev = (int)(std::max_element(prev.begin(), prev.end()) - prev.begin());

    ScalarsPanel s{msg("after_the_steps_so"), {}};
    s.items.push_back({"steps", (double)done_steps_, "", msg("optimizer_steps_done")});
    s.items.push_back({"loss", m.last.loss, "nats", msg("mean_next_token_loss")});
    s.items.push_back({"icl_score", m.last.icl_score, "nats",
                       msg("icl_score_loss_at")});
    s.items.push_back({"prefix_matching", pm[(size_t)best], "",
                       msg("prefix_matching_score_of")});
    s.items.push_back({"previous_token", prev[(size_t)best_prev], "",
                       msg("mean_attention_to_the")});
    s.items.push_back({"phase_step", m.phase_step, "",
                       msg("first_evaluated_step_where")});
    s.items.push_back({"control_icl_score", ctl ? ctl->last.icl_score : NAN, "nats",
                       msg("icl_score_of_the")});
    s.items.push_back({"control_prefix_matching", ctl ? *std::max_element(ctl->last.prefix_matching.begin(), ctl->last.prefix_matching.end()) : NAN, "",
                       msg("best_prefix_matching_score")});
    s.items.push_back({"icl_score_ablated", ablated_icl_.empty() ? NAN : ablated_icl_[(size_t)best], "nats",
                       msg("icl_score_with_the")});
    panels.push_back(std::move(s));

    const std::string ind = head_name(best / H, best % H), pr = head_name(best_prev / H, best_prev % H);
    panels.push_back(NotePanel{
        msg("what_to_see"),
        msg("note", {{"prev_head", pr},
                     {"induction_head", ind},
                     {"this_run", m.phase_step >= 0 ? msg("jump_at", {{"step", (int)m.phase_step}}) : msg("in_this_run_no")}})});

    LinesPanel loss{msg("loss_over_training"), msg("step"), "nats", false, false, {}};
    LinesPanel icl{msg("icl_score_over_training"),
                   msg("step"), "nats", false, false, {}};
    LinesPanel prefix{msg("prefix_matching_score_per"),
                      msg("step"), msg("score"), false, false, {}};
    const std::string two = msg("layer_model", {{"L", L}});
    loss.series.push_back({two, m.eval_steps, m.eval_loss, {}, false});
    icl.series.push_back({two, m.eval_steps, m.icl_score, {}, false});
    for (size_t h = 0; h < m.prefix_by_head.size(); ++h)
        prefix.series.push_back({head_name((int)h / H, (int)h % H), m.eval_steps, m.prefix_by_head[h], {}, false});
    if (ctl) {
        const std::string one = msg("1_layer_control");
        loss.series.push_back({one, ctl->eval_steps, ctl->eval_loss, {}, true});
        icl.series.push_back({one, ctl->eval_steps, ctl->icl_score, {}, true});
        prefix.series.push_back({msg("best_head", {{"model", one}}), ctl->eval_steps, ctl->best_prefix, {}, true});
    }
    panels.push_back(std::move(loss));
    panels.push_back(std::move(icl));
    panels.push_back(std::move(prefix));

    LinesPanel by_pos{msg("loss_by_position_after"),
                      msg("position_t"), "nats", false, false, {}};
    std::vector<double> xs;
    for (int t = 0; t + 1 < data_.length; ++t) xs.push_back(t);
    auto trimmed = [](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.end() - 1); };
    by_pos.series.push_back({two, xs, trimmed(m.last.loss_by_position), {}, false});
    if (ctl) by_pos.series.push_back({msg("1_layer_control"), xs, trimmed(ctl->last.loss_by_position), {}, true});
    panels.push_back(std::move(by_pos));

    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    HeatmapPanel pmap{msg("prefix_matching_score_per_2"), msg("head"),
                      msg("layer"), L, H, pm, rows, cols, false};
    HeatmapPanel pvmap{msg("previous_token_score_per"), msg("head"),
                       msg("layer"), L, H, prev, rows, cols, false};
    panels.push_back(std::move(pmap));
    panels.push_back(std::move(pvmap));

    if (!ablated_icl_.empty()) {
        BarsPanel bars{msg("icl_score_with_one"),
                       "nats", {msg("none")}, {m.last.icl_score}, {}};
        for (size_t h = 0; h < ablated_icl_.size(); ++h) {
            bars.labels.push_back(head_name((int)h / H, (int)h % H));
            bars.values.push_back(ablated_icl_[h]);
        }
        panels.push_back(std::move(bars));
    }

    // attention maps of the probe sequence at the last evaluation (evaluate_all computed
    // them), previous-token head and induction head
    const int T = data_.length;
    if (m.probe_attention.size() == static_cast<size_t>(L) * H * T * T) {
        std::vector<std::string> labels;
        for (int t = 0; t < T; ++t) labels.push_back(std::to_string(probe_[(size_t)t]));
        for (int idx : {best_prev, best}) {
            const float* a = m.probe_attention.data() + static_cast<size_t>(idx) * T * T;  // idx = l * H + h
            HeatmapPanel hm{msg("attention_of", {{"head", head_name(idx / H, idx % H)},
                                                   {"which", msg(idx == best ? "best_prefix_matching" : "best_previous_token")}}),
                            msg("key_position_token_id"), msg("query_position_token_id"),
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
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kInductionHeads);
ICL_REGISTER_PEAK_BYTES("induction_heads", peak_bytes);

}  // namespace
}  // namespace icl

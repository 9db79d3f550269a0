// emergence_lab: where in-context learning comes from (Chan et al. 2022; Reddy 2024).
// The learner designs the training data — K classes, L labels, N context pairs,
// burstiness B, Zipf exponent α, within-class noise ε (icl/fewshot.h) — and the model — an
// attention-only transformer of 1 or 2 layers, or a GRU over the same inputs — and trains
// one model per seed. Every `eval_every` steps each model is scored on two held-out sets
// that each leave one route to the answer: ICL (novel classes, only the context knows their
// labels) and IWL (the query's class and label absent from the context, only the weights
// know it). The induction-head score (Reddy's measure) is the last attention layer's
// weight from the query to the label tokens that follow the context items of the query's
// class, summed over those items and averaged over heads and the ICL set.
// Lane k (Session::lanes) is seed k: each seed's model trains on its own world and
// batches, so a lane trained in another worker is the very model the whole session trains.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/demo_grid.h"
#include "icl/demo_seeded_lanes.h"
#include "icl/fewshot.h"
#include "icl/fewshot_eval.h"
#include "icl/format.h"
#include "icl/gpt_train.h"
#include "icl/metrics.h"
#include "icl/model_checkpoint.h"

namespace icl {
namespace {

constexpr int kEvalSequences = 128;
constexpr int kBatch = 32;

// The (v, mean, sd) form of metrics::mean_sd.
void mean_sd(const std::vector<double>& v, double& mean, double& sd) {
    const metrics::MeanSd s = metrics::mean_sd(v);
    mean = s.mean;
    sd = s.sd;
}

// One held-out set in the model's form.
struct EvalSet {
    fewshot::Batch batch;
    std::vector<float> vectors;  // count × (2N+1) × D
};

// One seed's run: its world, model and curves (its training loss is the session's trace).
struct Run {
    std::optional<fewshot::World> world;
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;  // empty: another worker trains it (a lane)
    EvalSet icl, iwl;
    std::vector<double> eval_steps, icl_acc, iwl_acc, ih;
};

// The seeds are the models TrainedLanesSession trains side by side, within its one "seed"
// of `steps` units; each draws its own batch from its own world.
class EmergenceSession : public TrainedLanesSession {
public:
    EmergenceSession(const DemoContext& ctx, gpt::Config cfg, fewshot::Knobs train, fewshot::Knobs eval, int seeds,
                     std::optional<grid::Grid> background)
        : TrainedLanesSession("emergence_lab", ctx.params.i("steps"), 1, ctx.lane, seed_lanes(seeds), seeds, 0.9, 0.1),
          ctx_(ctx), cfg_(std::move(cfg)), train_(train), eval_(eval), runs_((size_t)seeds),
          background_(std::move(background)) {
        keep_checkpoints(ctx);
        for (int i = 0; i < seeds && error_.empty(); ++i)
            if (trains(i))
                if (Status st = begin(i); !st) error_ = st.error().message;
    }
    std::vector<Panel> panels() const override;
    // The sentence the result opens with, from the scalars panels() wrote.
    std::string headline(const std::vector<Panel>& panels) const override;

protected:
    // Each seed's curves so far, and the models this session trains with their trainers.
    // The batches and evaluation sets are functions of the seed and step: nothing to keep.
    void checkpoint_fields(LaneState& io) override {
        const long evals = steps_ / ctx_.params.i("eval_every") + 2;
        for (size_t i = 0; i < runs_.size(); ++i) {
            Run& r = runs_[i];
            const std::string key = "seed" + std::to_string(i);
            io.object(key.c_str(), [&](LaneState& f) {
                checkpoint_trace(f, (int)i);
                f.numbers_at_most("eval_steps", r.eval_steps, evals, "points");
                f.numbers("icl", r.icl_acc, (long)r.eval_steps.size());
                f.numbers("iwl", r.iwl_acc, (long)r.eval_steps.size());
                f.numbers("ih", r.ih, (long)r.eval_steps.size());
                if (r.trainer) checkpoint_model(f, "model", r.model, *r.trainer);
            });
        }
    }

private:
    void drop_model(int arm) override { runs_[(size_t)arm].trainer.reset(); }
    uint64_t model_seed(int i) const { return ctx_.seed * 1000 + (uint64_t)i; }

    // A lane's fields: its evaluations, listed once for both ways.
    struct LaneResults {
        std::vector<double> eval_steps, icl, iwl, ih;
    };
    void lane_fields(LaneState& io, LaneResults& r) const {
        io.numbers_at_most("eval_steps", r.eval_steps, steps_ / ctx_.params.i("eval_every") + 2, "numbers");
        const long n = (long)r.eval_steps.size();
        io.numbers("icl", r.icl, n);
        io.numbers("iwl", r.iwl, n);
        io.numbers("ih", r.ih, n);
    }
    void write_lane(int arm, LaneState& out) const override {
        const Run& run = runs_[(size_t)arm];
        LaneResults r{run.eval_steps, run.icl_acc, run.iwl_acc, run.ih};
        lane_fields(out, r);
    }
    Status read_lane(int arm, LaneState& in) override {
        LaneResults r;
        lane_fields(in, r);
        if (Status st = in.status(); !st) return st;
        Run& run = runs_[(size_t)arm];
        run.eval_steps = std::move(r.eval_steps);
        run.icl_acc = std::move(r.icl);
        run.iwl_acc = std::move(r.iwl);
        run.ih = std::move(r.ih);
        return Ok{};
    }

    Status begin(int i) {
        Run& r = runs_[(size_t)i];
        const uint64_t seed = model_seed(i);
        auto w = fewshot::make_world(train_, seed);
        if (!w) return w.error();
        r.world = std::move(w.value());
        auto ew = fewshot::make_world(eval_, seed);  // the same classes and labels: only the burst shape differs
        if (!ew) return ew.error();
        r.icl.batch = fewshot::sample(ew.value(), fewshot::Split::icl_novel, kEvalSequences, seed * 7 + 1);
        r.icl.vectors = fewshot::vectors(ew.value(), r.icl.batch);
        r.iwl.batch = fewshot::sample(ew.value(), fewshot::Split::iwl, kEvalSequences, seed * 7 + 2);
        r.iwl.vectors = fewshot::vectors(ew.value(), r.iwl.batch);
        auto m = gpt::make_model(cfg_, seed);
        if (!m) return m.error();
        r.model = std::move(m.value());
        OptimizerConfig o;
        o.lr = ctx_.params.f("lr");
        o.weight_decay = ctx_.params.f("weight_decay");  // AdamW's decoupled decay
        o.clip_norm = 1.0f;
        // on every matrix and embedding, or on the attention matrices only (Nguyen & Reddy)
        std::optional<std::vector<std::string>> decaying;
        if (ctx_.params.s("decay_on") == "attention") decaying = gpt::attention_matrices(r.model);
        auto t = gpt::Trainer::make(r.model, o, {}, decaying);
        if (!t) return t.error();
        r.trainer.emplace(std::move(t.value()));
        return evaluate(r, 0);
    }

    void draw_batch() override {}  // each seed draws its own, from its own world (train_step)
    std::optional<double> train_step(int arm) override {
        Run& r = runs_[(size_t)arm];
        const fewshot::Batch b =
            fewshot::sample(*r.world, fewshot::Split::train, kBatch, model_seed(arm) * 1000003 + (uint64_t)step_);
        const std::vector<float> v = fewshot::vectors(*r.world, b);
        const int T = 2 * b.pairs + 1;
        std::vector<int> targets((size_t)kBatch * T, -1);
        for (int q = 0; q < kBatch; ++q) targets[(size_t)q * T + (size_t)(T - 1)] = b.answer(q);
        gpt::Batch in;
        in.B = kBatch;
        in.T = T;
        in.vectors = v.data();
        in.targets = targets.data();
        return loss_of(r.trainer->step(in));
    }
    // Every `eval_every` steps and at the last, each seed this session trains.
    Status after_step() override {
        if (step_ % ctx_.params.i("eval_every") != 0 && step_ != steps_) return Ok{};
        for (size_t i = 0; i < runs_.size(); ++i)
            if (trains((int)i))
                if (Status st = evaluate(runs_[i], step_); !st) return st;
        return Ok{};
    }
    Status evaluate_seed() override { return Ok{}; }  // after_step has evaluated the last step

    Status evaluate(Run& r, int at) {
        auto icl = fewshot::score(r.model, r.icl.batch, r.icl.vectors);
        if (!icl) return icl.error();
        auto iwl = fewshot::score(r.model, r.iwl.batch, r.iwl.vectors);
        if (!iwl) return iwl.error();
        r.eval_steps.push_back(at);
        r.icl_acc.push_back(icl.value().accuracy);
        r.iwl_acc.push_back(iwl.value().accuracy);
        r.ih.push_back(icl.value().induction);
        return Ok{};
    }

    void phase_panels(std::vector<Panel>& panels, bool done, double icl, double iwl) const;

    DemoContext ctx_;
    gpt::Config cfg_;
    fewshot::Knobs train_, eval_;
    std::vector<Run> runs_;
    std::optional<grid::Grid> background_;  // the shipped phase diagram (lessons/checkpoints/emergence_grid.json)
};

// A grid axis's name in words (the knobs a phase diagram of this lab is drawn over).
std::string axis_label(const Texts& msg, const std::string& param) {
    static const char* const keys[][2] = {
        {"burstiness", "phase.axis.burstiness"}, {"zipf", "phase.axis.zipf"}, {"classes", "phase.axis.classes"}};
    for (const auto& k : keys)
        if (param == k[0]) return msg(k[1]);
    return param;
}

// The phase diagram: ICL and IWL accuracy at the end of training over the shipped grid,
// this run's cell marked on both axes, empty while it trains and then filled with this
// run's own figures (the background's are in the note beside it).
void EmergenceSession::phase_panels(std::vector<Panel>& panels, bool done, double icl, double iwl) const {
    if (!background_ || background_->cells.empty()) return;
    const grid::Grid& g = *background_;
    const Texts& msg = ctx_.text;
    const grid::CellIndex at = grid::cell_of(g, ctx_.params);
    auto label = [&](const nlohmann::json& v, bool mark) {
        const std::string text = format_number(v.get<double>(), "%g");
        return mark ? msg("phase.mark", {{"v", text}}) : text;
    };
    const char* keys[2] = {"icl_acc", "iwl_acc"};
    const char* titles[2] = {"panel.phase_icl", "panel.phase_iwl"};
    const double mine[2] = {icl, iwl};
    for (int k = 0; k < 2; ++k) {
        HeatmapPanel h;
        h.title = msg(titles[k]);
        h.x_label = axis_label(msg, g.cols.param);
        h.y_label = axis_label(msg, g.rows.param);
        h.rows = g.row_count();
        h.cols = g.col_count();
        for (int r = 0; r < h.rows; ++r) h.row_labels.push_back(label(g.rows.values[(size_t)r], r == at.row));
        for (int c = 0; c < h.cols; ++c) h.col_labels.push_back(label(g.cols.values[(size_t)c], c == at.col));
        for (const auto& cell : g.cells) h.values.push_back(cell.at(keys[k]));
        if (at.row >= 0) h.values[(size_t)(at.row * h.cols + at.col)] = done ? mine[k] : std::nan("");
        panels.push_back(h);
    }
    std::string note;
    if (at.row < 0) {
        note = msg("phase.off_grid", {{"rows", g.rows.param}, {"cols", g.cols.param}});
    } else if (done) {
        const auto& cell = g.cells[(size_t)(at.row * g.col_count() + at.col)];
        note = msg("phase.mine", {{"icl", format_number(icl, "%.2f")},
                                  {"iwl", format_number(iwl, "%.2f")},
                                  {"bicl", format_number(cell.at("icl_acc"), "%.2f")},
                                  {"biwl", format_number(cell.at("iwl_acc"), "%.2f")}});
    } else {
        note = msg("phase.pending");
    }
    std::vector<std::string> differ;
    for (const std::string& name : grid::differences(g, ctx_.params))
        if (name != "seeds" && name != "eval_every") differ.push_back(name);
    if (!differ.empty()) {
        std::string names;
        for (const std::string& n : differ) names += (names.empty() ? "" : ", ") + n;
        note += " " + msg("phase.differs", {{"names", names}});
    }
    note += " " + msg("phase.background", {{"seeds", (int)g.set.value("seeds", 3)}, {"steps", (int)g.set.value("steps", 2000)}});
    panels.push_back(NotePanel{msg("phase.title"), note});
}

std::string EmergenceSession::headline(const std::vector<Panel>& panels) const {
    const Texts& msg = ctx_.text;
    double icl = NAN, iwl = NAN, finished = 0;
    for (const Panel& p : panels)
        if (const auto* sc = std::get_if<ScalarsPanel>(&p))
            for (const Scalar& it : sc->items) {
                if (it.name == "icl_acc") icl = it.value;
                if (it.name == "iwl_acc") iwl = it.value;
                if (it.name == "seeds_done") finished = it.value;
            }
    const double floor = 1.0 / eval_.ways_used(), bar = floor + 0.5 * (1 - floor);  // as in panels()
    const char* key = finished < (double)runs_.size() ? "headline.running"
                      : icl >= bar && icl >= iwl     ? "headline.icl"
                      : iwl >= bar                   ? "headline.iwl"
                                                     : "headline.neither";
    return msg(key, {{"icl", format_number(icl, "%.2f")}, {"iwl", format_number(iwl, "%.2f")}, {"seeds", (int)finished}});
}

std::vector<Panel> EmergenceSession::panels() const {
    const Texts& msg = ctx_.text;
    const double chance = 1.0 / train_.labels;
    const bool gru = cfg_.arch == gpt::Arch::gru;
    const double floor = 1.0 / eval_.ways_used();  // icl/fewshot_eval.h: crossings
    // the finished seeds' last evaluation, and each seed's crossings
    std::vector<double> icl_end, iwl_end, ih_end, icl_steps, overtakes;
    int finished = 0, with_icl = 0;
    std::vector<fewshot::Crossings> cross;
    for (const Run& r : runs_) {
        const fewshot::Crossings e = fewshot::crossings(r.eval_steps, r.icl_acc, r.iwl_acc, floor);
        cross.push_back(e);
        if (r.eval_steps.empty() || r.eval_steps.back() < steps_) continue;
        ++finished;
        icl_end.push_back(r.icl_acc.back());
        iwl_end.push_back(r.iwl_acc.back());
        if (!gru) ih_end.push_back(r.ih.back());
        if (!std::isnan(e.icl_step)) {
            ++with_icl;
            icl_steps.push_back(e.icl_step);
        }
        if (!std::isnan(e.overtake_step)) overtakes.push_back(e.overtake_step);
    }
    double icl_m, icl_s, iwl_m, iwl_s, ih_m, ih_s, st_m, st_s, ov_m, ov_s;
    mean_sd(icl_end, icl_m, icl_s);
    mean_sd(iwl_end, iwl_m, iwl_s);
    mean_sd(ih_end, ih_m, ih_s);
    mean_sd(icl_steps, st_m, st_s);
    mean_sd(overtakes, ov_m, ov_s);

    std::vector<Panel> panels;

    ScalarsPanel sc{msg("panel.summary.title"), {}};
    sc.items.push_back({"icl_acc", icl_m, "", msg("scalar.icl_acc")});
    sc.items.push_back({"icl_acc_sd", icl_s, "", msg("scalar.spread")});
    sc.items.push_back({"iwl_acc", iwl_m, "", msg("scalar.iwl_acc")});
    sc.items.push_back({"iwl_acc_sd", iwl_s, "", msg("scalar.spread")});
    if (!gru) {
        sc.items.push_back({"ih_score", ih_m, "", msg("scalar.ih_score")});
        sc.items.push_back({"ih_score_sd", ih_s, "", msg("scalar.spread")});
    }
    sc.items.push_back({"seeds_with_icl", (double)with_icl, "", msg("scalar.seeds_with_icl")});
    sc.items.push_back({"icl_step", st_m, "", msg("scalar.icl_step")});
    sc.items.push_back({"icl_step_sd", st_s, "", msg("scalar.spread")});
    sc.items.push_back({"iwl_overtook_step", ov_m, "", msg("scalar.iwl_overtook_step")});
    sc.items.push_back({"chance", chance, "", msg("scalar.chance")});
    sc.items.push_back({"seeds_done", (double)finished, "", msg("scalar.seeds_done")});
    panels.push_back(sc);

    auto curves = [&](const char* title, const char* y_label, auto pick, double baseline, const char* baseline_name) {
        LinesPanel p{msg(title), msg("axis.step"), msg(y_label), false, false, {}};
        double last = 0;
        for (size_t i = 0; i < runs_.size(); ++i) {
            std::pair<const std::vector<double>*, const std::vector<double>*> xy = pick(i);
            p.series.push_back({msg("series.seed", {{"seed", (int)i}}), *xy.first, *xy.second, {}, false});
            if (!xy.first->empty()) last = std::max(last, xy.first->back());
        }
        if (baseline_name && last > 0) p.series.push_back({msg(baseline_name), {0.0, last}, {baseline, baseline}, {}, true});
        return p;
    };
    panels.push_back(curves("panel.icl", "axis.accuracy", [&](size_t i) { return std::make_pair(&runs_[i].eval_steps, &runs_[i].icl_acc); },
                            chance, "series.chance"));
    panels.push_back(curves("panel.iwl", "axis.accuracy", [&](size_t i) { return std::make_pair(&runs_[i].eval_steps, &runs_[i].iwl_acc); },
                            chance, "series.chance"));
    // The loss has its first point after ten training steps; before that the panel is left out.
    bool any_loss = false;
    for (size_t i = 0; i < runs_.size(); ++i) any_loss = any_loss || !trace((int)i).loss.empty();
    if (any_loss)
        panels.push_back(curves("panel.loss", "axis.nats", [&](size_t i) { return std::make_pair(&trace((int)i).steps, &trace((int)i).loss); },
                                std::log((double)train_.labels), "series.chance_loss"));
    if (!gru) {
        // uniform attention over the 2N + 1 positions puts B/(2N+1) on the B matching labels
        const double uniform = (double)eval_.burstiness / (2.0 * eval_.pairs + 1.0);
        panels.push_back(curves("panel.ih", "axis.attention", [&](size_t i) { return std::make_pair(&runs_[i].eval_steps, &runs_[i].ih); },
                                uniform, "series.uniform"));
    }

    std::string changed;
    for (size_t i = 0; i < runs_.size(); ++i) {
        const fewshot::Crossings& e = cross[i];
        const std::string key = std::isnan(e.icl_step) ? "changed.no_icl" : std::isnan(e.overtake_step) ? "changed.icl" : "changed.icl_then_iwl";
        changed += (changed.empty() ? "" : " ") + msg(key, {{"seed", (int)i},
                                                           {"s", format_number(e.icl_step, "%.0f")},
                                                           {"t", format_number(e.overtake_step, "%.0f")}});
        const fewshot::Lead lead = fewshot::iwl_lead(runs_[i].eval_steps, runs_[i].icl_acc, runs_[i].iwl_acc, e.icl_step, chance);
        if (!std::isnan(e.icl_step) && !std::isnan(lead.value) && runs_[i].iwl_acc.back() < 0.5 * lead.value)
            changed += " " + msg("changed.iwl_first", {{"w", format_number(lead.value, "%.2f")},
                                                       {"x", format_number(lead.step, "%.0f")},
                                                       {"end", format_number(runs_[i].iwl_acc.back(), "%.2f")}});
        if (!std::isnan(e.fade_step))  // transience (Singh et al. 2023)
            changed += " " + msg("changed.faded", {{"peak", format_number(e.peak, "%.2f")},
                                                   {"p", format_number(e.peak_step, "%.0f")},
                                                   {"f", format_number(e.fade_step, "%.0f")},
                                                   {"end", format_number(runs_[i].icl_acc.back(), "%.2f")}});
    }
    if (finished == (int)runs_.size()) panels.push_back(NotePanel{msg("note.changed.title"), changed});
    phase_panels(panels, finished == (int)runs_.size(), icl_m, iwl_m);
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    fewshot::Knobs train;
    train.classes = p.i("classes");
    train.labels = p.i("labels");
    train.pairs = p.i("pairs");
    train.zipf = p.f("zipf");
    train.noise = p.f("noise");
    train.dim = p.i("dim");
    const int B = p.i("burstiness");
    // B = 0: no bursty training sequence (the query's class only by chance in the context);
    // the generator's burst shape is then unused, so one that every N and L accept
    train.burstiness = B > 0 ? B : train.pairs;
    train.p_bursty = B > 0 ? 1.0 : 0.0;
    fewshot::Knobs eval = train;  // ICL is scored 2-way, N/2 places each (Chan's holdout shape), whatever B is
    eval.burstiness = std::max(1, train.pairs / 2);
    eval.ways = std::min(2, train.pairs / eval.burstiness);
    if (Status s = fewshot::validate(train); !s) return s.error();
    if (Status s = fewshot::validate(eval); !s) return s.error();
    gpt::Config c;
    c.vocab = train.labels;
    c.context = 2 * train.pairs + 1;
    c.width = p.i("width");
    c.token_input = false;
    c.input_dim = train.dim;
    const std::string model = p.s("model");
    if (model == "gru") {
        c.arch = gpt::Arch::gru;
        c.layers = 1;
    } else {
        c.layers = model == "attention_1" ? 1 : 2;
        c.heads = 1;
        c.attention_only = true;
    }
    if (Status s = gpt::validate(c); !s) return s.error();
    if (model == "gru" && p.s("decay_on") == "attention" && p.f("weight_decay") > 0)
        return make_error(ctx.text("run_error.decay_on_gru"));
    // the shipped phase diagram; without it (a build without the file) the run has no such panel
    std::optional<grid::Grid> background;
    if (auto g = grid::load_shipped("emergence_grid"); g && g.value().demo == "emergence_lab") background = std::move(g.value());
    return std::unique_ptr<Session>(new EmergenceSession(ctx, c, train, eval, p.i("seeds"), std::move(background)));
}

const DemoDef kEmergenceLab = [] {
    DemoDef d;
    d.id = "emergence_lab";
    d.paper = "Chan et al. 2022; Reddy 2024";
    d.params = {
        ParamSpec::integer("steps", 20, 20000, 2000, 10),
        ParamSpec::integer("seeds", 1, 6, 3, 1),
        ParamSpec::choice("model", {"attention_2", "attention_1", "gru"}, "attention_2"),
        ParamSpec::integer("classes", 16, 2048, 256, 1),
        ParamSpec::integer("labels", 2, 64, 16, 1),
        ParamSpec::integer("pairs", 4, 16, 8, 1),
        ParamSpec::integer("burstiness", 0, 8, 4, 1),
        ParamSpec::real("zipf", 0, 3, 0, 0.05),
        ParamSpec::real("noise", 0, 2, 0.1, 0.01),
        ParamSpec::integer("dim", 4, 64, 16, 1),
        ParamSpec::integer("width", 8, 64, 32, 8),
        ParamSpec::real("lr", 1e-4, 3e-2, 2e-3, 1e-4),
        ParamSpec::real("weight_decay", 0, 1, 0, 0.001),
        ParamSpec::choice("decay_on", {"all", "attention"}, "all"),
        ParamSpec::integer("eval_every", 10, 1000, 50, 10),
    };
    d.start = start;
    d.assets = {"checkpoints/emergence_grid.json"};
    return d;
}();
ICL_REGISTER_DEMO(kEmergenceLab);

}  // namespace
}  // namespace icl

// task_diversity_lab (Raventós, Paul, Chen, Ganguli 2023): a tiny vector-input GPT trained
// live on in-context linear regression whose tasks come from a pool of M = 2^k vectors
// (icl/task_pool.h). After training, its in-context error at each context length, on fresh
// tasks from the Gaussian prior and on the pool's own tasks, beside the two Bayes-optimal
// predictors computed exactly (icl/regression_baselines.h): dMMSE, optimal for the pool's
// discrete prior, and ridge with λ = σ², optimal for the Gaussian prior. Which of the two
// the model is nearer is told by the paper's distance
//     Δ(f, g) = mean over sequences and context lengths k of (f_k − g_k)² / D.
// The sequence is Garg et al.'s encoding, the one Raventós et al. use: 2K vectors of D + 1,
// x_k as (x_k, 0) then y_k as (0, …, 0, y_k); the prediction of y_k is read at x_k's
// position, from the pairs before it and x_k. The seeds train side by side, each with its
// own pool, model, batches and evaluation sequences; seed k may train in a worker of its
// own (lane k). The evaluation (dMMSE over up to 2^16 tasks is slow) runs in parts, one
// unit each, after the training steps.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "icl/demo.h"
#include "icl/demo_seeded_lanes.h"
#include "icl/format.h"
#include "icl/gpt_train.h"
#include "icl/metrics.h"
#include "icl/model_checkpoint.h"
#include "icl/regression_baselines.h"
#include "icl/task_pool.h"

namespace icl {
namespace {

// The (v, mean, sd) form of metrics::mean_sd.
void mean_sd(const std::vector<double>& v, double& mean, double& sd) {
    const metrics::MeanSd s = metrics::mean_sd(v);
    mean = s.mean;
    sd = s.sd;
}

// What one seed's evaluation found on one set of sequences (fresh or pool tasks):
// the squared errors / D at each context length k (mean over sequences), for the model,
// dMMSE and ridge, and the two distances.
struct TaskDiversityEval {
    std::vector<double> model, dmmse, ridge;  // K
    double to_dmmse = 0, to_ridge = 0;        // Δ(model, dMMSE), Δ(model, ridge)
};

// The evaluation the demo runs, exposed for its unit test: the model's predictions come
// from one forward pass over the sequences (Garg's encoding), the baselines from
// icl/regression_baselines.h with λ = σ².
Expected<TaskDiversityEval> task_diversity_evaluate(const gpt::Model& model, const task_pool::Knobs& k,
                                                    const Matrix& pool, const std::vector<task_pool::Sequence>& seqs) {
    const int K = k.context, D = k.dim, T = 2 * K, N = (int)seqs.size();
    std::vector<float> vectors((size_t)N * T * (D + 1));
    for (int b = 0; b < N; ++b) {
        const Matrix v = task_pool::vectors(seqs[(size_t)b]);
        std::copy(v.storage().begin(), v.storage().end(), vectors.begin() + (size_t)b * T * (D + 1));
    }
    gpt::Activations acts;
    if (Status s = gpt::forward(model, acts, vectors.data(), N, T); !s) return s.error();
    const float* yhat = acts.predictions();
    TaskDiversityEval e;
    e.model.assign((size_t)K, 0.0);
    e.dmmse.assign((size_t)K, 0.0);
    e.ridge.assign((size_t)K, 0.0);
    const double scale = 1.0 / ((double)N * D);
    for (int b = 0; b < N; ++b) {
        const task_pool::Sequence& s = seqs[(size_t)b];
        const std::vector<double> dm = dmmse_predictions(pool, s.x, s.y.data(), k.noise_var);
        auto rg = ridge_predictions(s.x, s.y.data(), k.noise_var);
        if (!rg) return rg.error();
        for (int i = 0; i < K; ++i) {
            const double y = s.y[(size_t)i], f = yhat[(size_t)b * T + 2 * i];
            const double r = rg.value()[(size_t)i], d = dm[(size_t)i];
            e.model[(size_t)i] += (f - y) * (f - y) * scale;
            e.dmmse[(size_t)i] += (d - y) * (d - y) * scale;
            e.ridge[(size_t)i] += (r - y) * (r - y) * scale;
            e.to_dmmse += (f - d) * (f - d) * scale / K;
            e.to_ridge += (f - r) * (f - r) * scale / K;
        }
    }
    return e;
}

// The model the demo trains for these knobs: vectors in, one regression output, 2K positions.
gpt::Config task_diversity_config(const Params& p) {
    gpt::Config c;
    c.token_input = false;
    c.token_output = false;
    c.input_dim = p.i("dim") + 1;
    c.output_dim = 1;
    c.context = 2 * p.i("context");
    c.width = p.i("width");
    c.layers = p.i("layers");
    c.heads = p.i("heads");
    c.vocab = 2;  // unread: no token input or softmax head
    return c;
}

constexpr uint64_t kEvalSeedOffset = 7919;  // evaluation sequences: a seed the batches never use
constexpr int kEvalChunk = 16;              // evaluation sequences per unit (dMMSE over 2^16 tasks is slow)

int eval_chunks(const Params& p) { return (p.i("eval_sequences") + kEvalChunk - 1) / kEvalChunk; }

// One seed's run: its pool, model, evaluation sets and the evaluation's partial means (its
// training loss is the session's trace).
struct SeedRun {
    Matrix pool;
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;             // empty: another worker trains it (a lane)
    std::vector<task_pool::Sequence> eval_seqs[2];  // fresh and pool evaluation sets
    TaskDiversityEval partial[2];                    // their means over the chunks done
    double final_loss = NAN;
    bool finished = false;
};

// An evaluation's fields, both ways (a checkpoint's and a finished lane's): its curves have
// at most `most` numbers (none before its first chunk), exactly `exact` when exact >= 0.
void eval_fields(LaneState& io, TaskDiversityEval& a, long most, long exact) {
    if (exact >= 0) io.numbers("model", a.model, exact);
    else io.numbers_at_most("model", a.model, most, "numbers");
    io.numbers("dmmse", a.dmmse, (long)a.model.size());
    io.numbers("ridge", a.ridge, (long)a.model.size());
    io.number("to_dmmse", a.to_dmmse);
    io.number("to_ridge", a.to_ridge);
}

// The seeds are the models TrainedLanesSession trains side by side, within its one "seed"
// of `steps` training units and then 2 × eval_chunks evaluation units. Lane k
// (Session::lanes) is seed k: each seed draws its own pool, model, batches and evaluation
// sequences, so a lane trained in another worker is the very model the whole session trains.
class TaskDiversitySession : public TrainedLanesSession {
public:
    TaskDiversitySession(const DemoContext& ctx, task_pool::Knobs knobs, gpt::Config cfg)
        : TrainedLanesSession("task_diversity_lab", ctx.params.i("steps"), 1, ctx.lane, seed_lanes(ctx.params.i("seeds")),
                              ctx.params.i("seeds"), 0.9, 0.1),
          ctx_(ctx), knobs_(knobs), cfg_(std::move(cfg)), runs_((size_t)ctx.params.i("seeds")) {
        evaluate_in_units(2 * eval_chunks(ctx.params));
        keep_checkpoints(ctx);
        batch_ = ctx.params.i("batch");
        eval_n_ = ctx.params.i("eval_sequences");
        const int T = 2 * knobs_.context;
        vectors_.assign((size_t)batch_ * T * (knobs_.dim + 1), 0.0f);
        targets_.assign((size_t)batch_ * T, 0.0f);
        mask_.assign((size_t)batch_ * T, 0);
        for (int b = 0; b < batch_; ++b)
            for (int i = 0; i < knobs_.context; ++i) mask_[(size_t)b * T + 2 * i] = 1;
        for (int i = 0; i < (int)runs_.size() && error_.empty(); ++i)
            if (trains(i)) begin(i);
    }
    std::vector<Panel> panels() const override;
    // The sentence the result opens with: the verdict that titles the scalars.
    std::string headline(const std::vector<Panel>& panels) const override {
        for (const Panel& p : panels)
            if (const auto* sc = std::get_if<ScalarsPanel>(&p)) return sc->title;
        return "";
    }

protected:
    // Each seed's loss curve, its evaluation's partial means, and the models this session
    // trains with their trainers. The pool, batches and evaluation sequences are functions
    // of the seed and step: nothing to keep.
    void checkpoint_fields(LaneState& io) override {
        for (size_t i = 0; i < runs_.size(); ++i) {
            SeedRun& r = runs_[i];
            const std::string key = "seed" + std::to_string(i);
            io.object(key.c_str(), [&](LaneState& f) {
                checkpoint_trace(f, (int)i);
                f.number("final_loss", r.final_loss);
                double finished = r.finished ? 1 : 0;
                f.number("finished", finished);
                r.finished = finished == 1;
                const char* sets[2] = {"fresh", "pool"};
                for (int s = 0; s < 2; ++s)
                    f.object(sets[s], [&](LaneState& e) { eval_fields(e, r.partial[s], knobs_.context, -1); });
                if (r.trainer) checkpoint_model(f, "model", r.model, *r.trainer);
            });
        }
    }

private:
    void drop_model(int arm) override { runs_[(size_t)arm].trainer.reset(); }
    uint64_t model_seed(int i) const { return ctx_.seed * 1000 + (uint64_t)i; }

    // A lane's fields beyond its loss: once it is finished, its evaluations and final loss.
    struct LaneResults {
        double finished = 0, final_loss = NAN;
        TaskDiversityEval sets[2];
    };
    void lane_fields(LaneState& io, LaneResults& r) const {
        io.number("finished", r.finished);
        if (r.finished != 1) return;
        io.object("fresh", [&](LaneState& e) { eval_fields(e, r.sets[0], knobs_.context, knobs_.context); });
        io.object("pool", [&](LaneState& e) { eval_fields(e, r.sets[1], knobs_.context, knobs_.context); });
        io.number("final_loss", r.final_loss);
    }
    void write_lane(int arm, LaneState& out) const override {
        const SeedRun& run = runs_[(size_t)arm];
        LaneResults r{run.finished ? 1.0 : 0.0, run.final_loss, {run.partial[0], run.partial[1]}};
        lane_fields(out, r);
    }
    Status read_lane(int arm, LaneState& in) override {
        LaneResults r;
        lane_fields(in, r);
        if (Status st = in.status(); !st) return st;
        if (r.finished != 1) return Ok{};
        SeedRun& run = runs_[(size_t)arm];
        run.partial[0] = r.sets[0];
        run.partial[1] = r.sets[1];
        run.final_loss = r.final_loss;
        run.finished = true;
        return Ok{};
    }

    void begin(int i) {
        SeedRun& r = runs_[(size_t)i];
        const uint64_t seed = model_seed(i);
        auto pool = task_pool::make_pool(knobs_, seed);
        if (!pool) { error_ = pool.error().message; return; }
        r.pool = std::move(pool.value());
        r.model = gpt::make_model(cfg_, seed).value();
        // GPT-2's init (std 0.02) leaves every attention pattern uniform and the model on
        // the plateau where it predicts y = 0 for as long as a page can train; weight
        // matrices drawn larger leave it within the run.
        const float scale = ctx_.params.f("init_std") / 0.02f;
        for (const gpt::TensorInfo& t : r.model.layout.tensors)
            if (t.shape.size() == 2)
                for (size_t q = 0; q < t.size; ++q) r.model.params[t.offset + q] *= scale;
        OptimizerConfig o;
        o.lr = ctx_.params.f("lr");
        o.clip_norm = 1.0f;
        r.trainer.emplace(gpt::Trainer::make(r.model, o).value());
        const uint64_t es = seed + kEvalSeedOffset;
        r.eval_seqs[0] = task_pool::sample(knobs_, r.pool, task_pool::Source::fresh, eval_n_, es);
        r.eval_seqs[1] = task_pool::sample(knobs_, r.pool, task_pool::Source::pool, eval_n_, es);
    }
    void draw_batch() override {}  // each seed draws its own, from its own pool (train_step)
    // An AdamW step of seed `arm`'s model on a fresh batch of its pool's sequences.
    std::optional<double> train_step(int arm) override {
        SeedRun& r = runs_[(size_t)arm];
        const auto seqs = task_pool::sample(knobs_, r.pool, task_pool::Source::pool, batch_,
                                            model_seed(arm) * 1000003ull + (uint64_t)step_ + 1);
        const int T = 2 * knobs_.context, D = knobs_.dim;
        for (int b = 0; b < batch_; ++b) {
            const Matrix v = task_pool::vectors(seqs[(size_t)b]);
            std::copy(v.storage().begin(), v.storage().end(), vectors_.begin() + (size_t)b * T * (D + 1));
            for (int i = 0; i < knobs_.context; ++i) targets_[(size_t)b * T + 2 * i] = seqs[(size_t)b].y[(size_t)i];
        }
        gpt::Batch batch;
        batch.B = batch_;
        batch.T = T;
        batch.vectors = vectors_.data();
        batch.target_vectors = targets_.data();
        batch.target_mask = mask_.data();
        return loss_of(r.trainer->step(batch));
    }
    // Chunk c of the evaluation: set c / chunks (0 fresh, 1 pool), its (c % chunks)-th
    // kEvalChunk sequences, added to the set's means with their share of the sequences.
    Status evaluate_unit(int arm, int c) override {
        SeedRun& r = runs_[(size_t)arm];
        const int chunks = eval_chunks(ctx_.params), set = c / chunks, first = (c % chunks) * kEvalChunk;
        const auto& all = r.eval_seqs[set];
        const int n = std::min(kEvalChunk, (int)all.size() - first);
        const std::vector<task_pool::Sequence> part(all.begin() + first, all.begin() + first + n);
        auto e = task_diversity_evaluate(r.model, knobs_, r.pool, part);
        if (!e) return e.error();
        const double w = (double)n / (double)all.size();
        TaskDiversityEval& acc = r.partial[set];
        if (acc.model.empty()) acc = {std::vector<double>(e.value().model.size(), 0.0), std::vector<double>(e.value().model.size(), 0.0),
                                      std::vector<double>(e.value().model.size(), 0.0), 0.0, 0.0};
        for (size_t i = 0; i < acc.model.size(); ++i) {
            acc.model[i] += w * e.value().model[i];
            acc.dmmse[i] += w * e.value().dmmse[i];
            acc.ridge[i] += w * e.value().ridge[i];
        }
        acc.to_dmmse += w * e.value().to_dmmse;
        acc.to_ridge += w * e.value().to_ridge;
        return Ok{};
    }
    // Every seed this session trains has its evaluation: it is finished.
    Status evaluate_seed() override {
        for (size_t i = 0; i < runs_.size(); ++i) {
            if (!trains((int)i)) continue;
            SeedRun& r = runs_[i];
            r.final_loss = train_steps() ? trace((int)i).smooth : NAN;
            r.finished = true;
            r.eval_seqs[0].clear();
            r.eval_seqs[1].clear();
        }
        return Ok{};
    }

    DemoContext ctx_;
    task_pool::Knobs knobs_;
    gpt::Config cfg_;
    int batch_ = 0, eval_n_ = 0;
    std::vector<SeedRun> runs_;
    std::vector<float> vectors_, targets_;  // one training batch, shared by the seeds in turn
    std::vector<uint8_t> mask_;
};

// Mean ± sd over seeds of one curve of the evaluations.
Series curve(const std::string& name, const std::vector<TaskDiversityEval>& evals,
             std::vector<double> TaskDiversityEval::*which, bool dashed) {
    Series s{name, {}, {}, {}, dashed};
    if (evals.empty()) return s;
    const size_t K = (evals[0].*which).size();
    for (size_t i = 0; i < K; ++i) {
        std::vector<double> v;
        for (const auto& e : evals) v.push_back((e.*which)[i]);
        double m, sd;
        mean_sd(v, m, sd);
        s.x.push_back((double)i);
        s.y.push_back(m);
        s.y_err.push_back(sd);
    }
    return s;
}

std::vector<Panel> TaskDiversitySession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    // The finished seeds (a lane's once its last state is in), in seed order.
    std::vector<TaskDiversityEval> fresh_, seen_;
    std::vector<double> final_loss_;
    std::vector<int> seed_of;
    for (size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].finished) {
            fresh_.push_back(runs_[i].partial[0]);
            seen_.push_back(runs_[i].partial[1]);
            final_loss_.push_back(runs_[i].final_loss);
            seed_of.push_back((int)i);
        }
    auto collect = [](const std::vector<TaskDiversityEval>& evals, double TaskDiversityEval::*f) {
        std::vector<double> v;
        for (const auto& e : evals) v.push_back(e.*f);
        return v;
    };
    auto mean_of = [](const std::vector<double>& v) {
        double m, sd;
        mean_sd(v, m, sd);
        return m;
    };
    auto sd_of = [](const std::vector<double>& v) {
        double m, sd;
        mean_sd(v, m, sd);
        return sd;
    };
    const auto dd = collect(fresh_, &TaskDiversityEval::to_dmmse), dr = collect(fresh_, &TaskDiversityEval::to_ridge);
    const auto pd = collect(seen_, &TaskDiversityEval::to_dmmse), pr = collect(seen_, &TaskDiversityEval::to_ridge);
    // Which baseline the model is nearer on fresh tasks: the log of Δ(ridge) / Δ(dMMSE),
    // mean over seeds (< 0: nearer ridge).
    std::vector<double> log_ratio;
    int nearer_ridge = 0;
    for (size_t s = 0; s < dd.size(); ++s) {
        log_ratio.push_back(std::log2(dr[s] / dd[s]));
        nearer_ridge += dr[s] < dd[s] ? 1 : 0;
    }
    auto mean_curve = [&](const std::vector<TaskDiversityEval>& evals, std::vector<double> TaskDiversityEval::*w) {
        std::vector<double> per_seed;
        for (const auto& e : evals) per_seed.push_back(mean_of(e.*w));
        return per_seed;
    };
    const int done = (int)fresh_.size();
    const double lr = mean_of(log_ratio);
    // Within 10% of each other, the two distances say nothing: where M is large dMMSE and
    // ridge nearly agree, and a model far from both is as far from one as from the other.
    const std::string verdict = done == 0 ? msg("headline.running")
                                : std::fabs(lr) < std::log2(1.1) ? msg("headline.tie", {{"n", done}})
                                : nearer_ridge == done ? msg("headline.ridge", {{"n", done}})
                                : nearer_ridge == 0    ? msg("headline.dmmse", {{"n", done}})
                                                       : msg("headline.split", {{"k", nearer_ridge}, {"n", done}});
    ScalarsPanel sc{verdict, {}};
    sc.items.push_back({"tasks", (double)knobs_.tasks, "", msg("scalar.tasks.label")});
    sc.items.push_back({"dist_dmmse", mean_of(dd), "", msg("scalar.dist_dmmse.label")});
    sc.items.push_back({"dist_dmmse_sd", sd_of(dd), "", msg("scalar.spread.label")});
    sc.items.push_back({"dist_ridge", mean_of(dr), "", msg("scalar.dist_ridge.label")});
    sc.items.push_back({"dist_ridge_sd", sd_of(dr), "", msg("scalar.spread.label")});
    sc.items.push_back({"log2_ridge_over_dmmse", lr, "", msg("scalar.log2_ridge_over_dmmse.label")});
    sc.items.push_back({"log2_ridge_over_dmmse_sd", sd_of(log_ratio), "", msg("scalar.spread.label")});
    sc.items.push_back({"seeds_nearer_ridge", (double)nearer_ridge, "", msg("scalar.seeds_nearer_ridge.label")});
    sc.items.push_back({"pool_dist_dmmse", mean_of(pd), "", msg("scalar.pool_dist_dmmse.label")});
    sc.items.push_back({"pool_dist_ridge", mean_of(pr), "", msg("scalar.pool_dist_ridge.label")});
    sc.items.push_back({"model_error", mean_of(mean_curve(fresh_, &TaskDiversityEval::model)), "", msg("scalar.model_error.label")});
    sc.items.push_back({"dmmse_error", mean_of(mean_curve(fresh_, &TaskDiversityEval::dmmse)), "", msg("scalar.dmmse_error.label")});
    sc.items.push_back({"ridge_error", mean_of(mean_curve(fresh_, &TaskDiversityEval::ridge)), "", msg("scalar.ridge_error.label")});
    sc.items.push_back({"pool_model_error", mean_of(mean_curve(seen_, &TaskDiversityEval::model)), "", msg("scalar.pool_model_error.label")});
    sc.items.push_back({"final_loss", mean_of(final_loss_), "", msg("scalar.final_loss.label")});
    sc.items.push_back({"seeds_done", (double)done, "", msg("scalar.seeds_done.label")});
    panels.push_back(std::move(sc));
    panels.push_back(NotePanel{msg("panel.note.title"), msg("panel.note.text", {{"M", knobs_.tasks}})});

    for (auto [evals, key] : {std::pair{&fresh_, "panel.fresh.title"}, {&seen_, "panel.pool.title"}}) {
        LinesPanel p{msg(key), msg("panel.context_axis"), msg("panel.error_axis"), false, true, {}};
        p.series.push_back(curve(msg("series.model"), *evals, &TaskDiversityEval::model, false));
        p.series.push_back(curve(msg("series.dmmse"), *evals, &TaskDiversityEval::dmmse, true));
        p.series.push_back(curve(msg("series.ridge"), *evals, &TaskDiversityEval::ridge, true));
        panels.push_back(std::move(p));
    }

    LinesPanel loss{msg("panel.loss.title"), msg("panel.step_axis"), msg("panel.loss_axis"), false, true, {}};
    for (size_t s = 0; s < runs_.size(); ++s)
        loss.series.push_back({msg("series.seed", {{"seed", (int)s}}), trace((int)s).steps, trace((int)s).loss, {}, false});
    panels.push_back(std::move(loss));

    TablePanel t{msg("panel.seeds.title"),
                 {msg("panel.seeds.seed"), msg("scalar.dist_dmmse.label"), msg("scalar.dist_ridge.label"),
                  msg("scalar.pool_dist_dmmse.label"), msg("scalar.pool_dist_ridge.label")},
                 {}};
    for (int s = 0; s < done; ++s)
        t.rows.push_back({std::to_string(seed_of[(size_t)s]), format_number(dd[(size_t)s]), format_number(dr[(size_t)s]),
                          format_number(pd[(size_t)s]), format_number(pr[(size_t)s])});
    panels.push_back(std::move(t));
    return panels;
}

task_pool::Knobs knobs_of(const Params& p) {
    task_pool::Knobs k;
    k.dim = p.i("dim");
    k.context = p.i("context");
    k.noise_var = p.f("noise_var");
    k.tasks = 1 << p.i("log2_tasks");
    return k;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    const task_pool::Knobs k = knobs_of(p);
    if (Status s = task_pool::validate(k); !s) return s.error();
    const gpt::Config c = task_diversity_config(p);
    if (c.width % c.heads != 0)
        return learner_error("error.heads_divide_width", {{"heads", std::to_string(c.heads)}, {"width", std::to_string(c.width)}});
    if (Status s = gpt::validate(c); !s) return s.error();
    return std::unique_ptr<Session>(new TaskDiversitySession(ctx, k, c));
}

// Each seed's model with its gradients and AdamW moments, its trainer's activations twice
// (forward and their gradients), its pool (M × D) and its evaluation sequences; once, an
// evaluation forward and the training batch. The sizes stay the same at every step.
size_t peak_bytes(const Params& p) {
    const gpt::Config c = task_diversity_config(p);
    const int T = c.context, D = p.i("dim");
    size_t per_seed = 4 * gpt::parameter_count(c) + 2 * gpt::activation_count(c, p.i("batch"), T);
    per_seed += ((size_t)1 << p.i("log2_tasks")) * D;
    per_seed += 2 * (size_t)p.i("eval_sequences") * T * (D + 2);
    size_t floats = (size_t)p.i("seeds") * per_seed + gpt::activation_count(c, p.i("eval_sequences"), T);
    floats += 3 * (size_t)std::max(p.i("batch"), p.i("eval_sequences")) * T * (D + 2);
    return floats * sizeof(float) + (4u << 20);
}

const DemoDef kTaskDiversity = [] {
    DemoDef d;
    d.id = "task_diversity_lab";
    d.paper = "Raventós et al. 2023";
    d.params = {
        ParamSpec::integer("log2_tasks", 0, 16, 2, 1),
        ParamSpec::integer("dim", 1, 16, 4, 1),
        ParamSpec::integer("context", 2, 32, 8, 1),
        ParamSpec::real("noise_var", 0, 1, 0.25, 0.05),
        ParamSpec::integer("steps", 0, 20000, 1500, 10),
        ParamSpec::integer("batch", 1, 128, 32, 1),
        ParamSpec::real("lr", 1e-4, 1e-2, 1e-3, 1e-4),
        ParamSpec::real("init_std", 0.01, 0.5, 0.2, 0.01),
        ParamSpec::integer("width", 16, 128, 32, 16),
        ParamSpec::integer("layers", 1, 4, 2, 1),
        ParamSpec::integer("heads", 1, 4, 2, 1),
        ParamSpec::integer("seeds", 1, 5, 3, 1),
        ParamSpec::integer("eval_sequences", 16, 512, 256, 16),
    };
    d.start = start;
    d.assets = {};
    d.peak_bytes = peak_bytes;
    return d;
}();
ICL_REGISTER_DEMO(kTaskDiversity);

}  // namespace
}  // namespace icl

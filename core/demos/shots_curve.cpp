// shots_curve: accuracy against the number of demonstrations k = 0..16 for every task
// of the suite (Brown et al. 2020's zero/one/few-shot), and beside it fine-tuning the
// same model on the same k examples: the context changes the answer without touching
// the weights, fine-tuning changes the weights.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/finetune.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

constexpr int kFtShots[] = {1, 2, 4, 8, 16};
constexpr int kFtPoints = 5;

// mean and standard deviation (over seeds) of per-seed values
void mean_std(const std::vector<double>& v, double& mean, double& sd) {
    mean = 0;
    for (double x : v) mean += x / (double)v.size();
    sd = 0;
    for (double x : v) sd += (x - mean) * (x - mean) / (double)v.size();
    sd = std::sqrt(sd);
}

class ShotsSession : public Session {
public:
    ShotsSession(const DemoContext& ctx, recipe::Recipe r, gpt::Model m)
        : ctx_(ctx), recipe_(std::move(r)), model_(std::move(m)), suite_(tasks::suite()) {
        seeds_ = ctx.params.i("seeds");
        sequences_ = ctx.params.i("sequences");
        ft_runs_ = std::min(ctx.params.i("ft_sequences"), sequences_);
        const size_t T = suite_.tasks.size();
        icl_.assign(T, std::vector<std::vector<double>>((size_t)tasks::kMaxShots + 1));
        ft_.assign(T, std::vector<std::vector<double>>(kFtPoints));
    }

    // A (task, seed) is 1 + kFtPoints · ft_runs units: its ICL curve, then one
    // fine-tuning run each (point p, sequence i). One unit was once the whole (task, seed):
    // 22 s in wasm at the largest parameters (16 sequences x 5 points x 100 steps), while
    // the worker could neither stop the run nor step the page's other demos.
    void step(int budget) override {
        for (int b = 0; b < budget && !done() && error_.empty(); ++b) {
            const int pair = unit_ / units_per_pair(), piece = unit_ % units_per_pair();
            const int task = pair / seeds_, seed = pair % seeds_;
            if (piece == 0) curve(task, seed);
            else fine_tune(task, (piece - 1) / ft_runs_, (piece - 1) % ft_runs_);
            ++unit_;
        }
    }
    bool done() const override { return unit_ >= units() || !error_.empty(); }

    double progress() const override { return (double)unit_ / units(); }
    std::vector<Panel> panels() const override;

private:
    int units_per_pair() const { return 1 + kFtPoints * ft_runs_; }
    int units() const { return (int)suite_.tasks.size() * seeds_ * units_per_pair(); }

    // The (task, seed)'s prompts, kept for its fine-tuning units, and its ICL curve.
    void curve(int task, int seed) {
        Rng rng(ctx_.seed * 1000003u + (uint64_t)seed, (uint64_t)task);
        seqs_.clear();
        for (int i = 0; i < sequences_; ++i) {
            auto s = tasks::make_curve_sequence(suite_, task, tasks::kMaxShots, rng);
            if (!s) { error_ = s.error().message; return; }
            seqs_.push_back(std::move(s.value()));
        }
        auto acc = tasks::evaluate(recipe::logits_fn(model_), seqs_, suite_.vocab());
        if (!acc) { error_ = acc.error().message; return; }
        for (int k = 0; k <= tasks::kMaxShots; ++k) icl_[(size_t)task][(size_t)k].push_back(acc.value()[(size_t)k].accuracy());
    }

    // Fine-tuning at point p on sequence i: its first k pairs are the training set and the
    // pairs after them are asked zero-shot, the same queries the curve asks at k. The
    // point's accuracy over its ft_runs sequences is stored with the last of them.
    void fine_tune(int task, int p, int i) {
        const int k = kFtShots[p];
        if (i == 0) ft_acc_ = tasks::Accuracy();
        finetune::Options fo;
        fo.steps = ctx_.params.i("ft_steps");
        fo.optimizer.lr = ctx_.params.f("ft_lr");
        const tasks::Sequence& seq = seqs_[(size_t)i];
        std::vector<finetune::Example> train;
        for (int j = 0; j < k; ++j) {
            const tasks::Slot& sl = seq.slots[(size_t)j];
            train.push_back({seq.tokens[(size_t)sl.x], sl.target});
        }
        gpt::Model tuned = model_;
        if (auto r = finetune::finetune(tuned, train, fo); !r) { error_ = r.error().message; return; }
        std::vector<int> tokens;
        std::vector<int> targets;
        for (int j = k; j <= tasks::kMaxShots; ++j) {
            const tasks::Slot& sl = seq.slots[(size_t)j];
            const std::vector<int> q = tasks::format_prompt({}, seq.tokens[(size_t)sl.x]).tokens;
            tokens.insert(tokens.end(), q.begin(), q.end());
            targets.push_back(sl.target);
        }
        std::vector<float> logits;
        const int B = (int)targets.size();
        if (Status st = recipe::logits_fn(tuned)(tokens, B, 3, logits); !st) { error_ = st.error().message; return; }
        const int V = suite_.vocab();
        for (int b = 0; b < B; ++b)
            ft_acc_.add(tasks::score_logits(logits.data() + ((size_t)b * 3 + 2) * (size_t)V, V, targets[(size_t)b]));
        if (i == ft_runs_ - 1) ft_[(size_t)task][(size_t)p].push_back(ft_acc_.accuracy());
    }

    DemoContext ctx_;
    recipe::Recipe recipe_;
    gpt::Model model_;
    const tasks::Suite& suite_;
    int seeds_ = 1, sequences_ = 8, ft_runs_ = 1, unit_ = 0;
    std::vector<tasks::Sequence> seqs_;  // the current (task, seed)'s prompts
    tasks::Accuracy ft_acc_;             // the current fine-tuning point's, so far
    // [task][k] -> accuracy per seed
    std::vector<std::vector<std::vector<double>>> icl_, ft_;
};

std::vector<Panel> ShotsSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    const int tasks_done = unit_ / (seeds_ * units_per_pair());  // tasks with every seed finished
    double k0 = 0, k1 = 0, k16 = 0, ft16 = 0, margin = 1e9;
    std::vector<std::string> dips;
    TablePanel table{msg("panel.table.title"),
                     {msg("panel.table.col.task"), msg("panel.table.col.chance"), "k=0", "k=1", "k=4", "k=16",
                      msg("panel.table.col.ft_k16")},
                     {}};
    LinesPanel curve{msg("panel.curve.title"),
                     msg("panel.curve.x"), msg("axis.accuracy"), false, false, {}};
    for (int t = 0; t < tasks_done; ++t) {
        const tasks::Task& task = suite_.tasks[(size_t)t];
        Series s{msg("task." + task.id), {}, {}, {}, false};
        std::vector<double> means;
        for (int k = 0; k <= tasks::kMaxShots; ++k) {
            double m, sd;
            mean_std(icl_[(size_t)t][(size_t)k], m, sd);
            s.x.push_back(k);
            s.y.push_back(m);
            s.y_err.push_back(sd);
            means.push_back(m);
        }
        double f16, fsd;
        mean_std(ft_[(size_t)t][kFtPoints - 1], f16, fsd);
        curve.series.push_back(s);
        k0 += means[0] / tasks_done;
        k1 += means[1] / tasks_done;
        k16 += means[16] / tasks_done;
        ft16 += f16 / tasks_done;
        margin = std::min(margin, means[16] - task.chance());
        if (means[1] < means[0]) dips.push_back(task.id + " (" + format_number(means[0], "%.2f") + " → " + format_number(means[1], "%.2f") + ")");
        table.rows.push_back({task.id, format_number(task.chance(), "%.2f"), format_number(means[0], "%.2f"), format_number(means[1], "%.2f"), format_number(means[4], "%.2f"), format_number(means[16], "%.2f"), format_number(f16, "%.2f")});
    }
    LinesPanel versus{msg("panel.versus.title"),
                      msg("panel.versus.x"), msg("axis.accuracy"), false, false, {}};
    if (tasks_done > 0) {
        Series icl{msg("series.icl"), {}, {}, {}, false};
        Series ft{msg("series.ft"), {}, {}, {}, true};
        for (int k = 0; k <= tasks::kMaxShots; ++k) {
            double m = 0;
            for (int t = 0; t < tasks_done; ++t) m += curve.series[(size_t)t].y[(size_t)k] / tasks_done;
            icl.x.push_back(k);
            icl.y.push_back(m);
        }
        ft.x.push_back(0);
        ft.y.push_back(icl.y[0]);
        for (int p = 0; p < kFtPoints; ++p) {
            double m = 0;
            for (int t = 0; t < tasks_done; ++t) {
                double mm, sd;
                mean_std(ft_[(size_t)t][(size_t)p], mm, sd);
                m += mm / tasks_done;
            }
            ft.x.push_back(kFtShots[p]);
            ft.y.push_back(m);
        }
        versus.series = {icl, ft};
    }
    ScalarsPanel head{msg("panel.head.title"), {}};
    head.items.push_back({"icl_k0", k0, "", msg("scalar.icl_k0.help")});
    head.items.push_back({"icl_k1", k1, "", msg("scalar.icl_k1.help")});
    head.items.push_back({"icl_k16", k16, "", msg("scalar.icl_k16.help")});
    head.items.push_back({"ft_k16", ft16, "", msg("scalar.ft_k16.help")});
    head.items.push_back({"min_margin_k16", tasks_done ? margin : 0, "",
                          msg("scalar.min_margin_k16.help")});
    head.items.push_back({"one_shot_dips", (double)dips.size(), "",
                          msg("scalar.one_shot_dips.help")});
    panels.push_back(head);
    std::string dip_text;
    for (const std::string& d : dips) dip_text += (dip_text.empty() ? "" : ", ") + d;
    const std::string note =
        msg("note.guide.text", {{"dips", dips.empty() ? msg("note.guide.no_dips") : msg("note.guide.dips", {{"tasks", dip_text}})}});
    panels.push_back(NotePanel{msg("note.guide.title"), note});
    panels.push_back(curve);  // the main chart: "What to see" follows it
    panels.push_back(versus);
    panels.push_back(table);
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto r = recipe::load_shipped("tasks");
    if (!r) return r.error();
    auto m = recipe::load_checkpoint(r.value());
    if (!m) return m.error();
    return std::unique_ptr<Session>(new ShotsSession(ctx, std::move(r.value()), std::move(m.value())));
}

const DemoDef kShotsCurve = [] {
    DemoDef d;
    d.id = "shots_curve";
    d.paper = "Brown et al. 2020 (GPT-3)";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("seeds", 1, 8, 3, 1),
        ParamSpec::integer("sequences", 2, 64, 8, 1),
        ParamSpec::integer("ft_sequences", 1, 16, 1, 1),
        ParamSpec::integer("ft_steps", 1, 100, 10, 1),
        ParamSpec::real("ft_lr", 1e-5, 0.05, 3e-4, 1e-5),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kShotsCurve);

}  // namespace
}  // namespace icl

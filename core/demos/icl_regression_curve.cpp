// Demo: the in-context linear-regression curve of Garg et al. 2022 — normalized error
// against the number of in-context examples k for classical learners and for a linear
// self-attention layer trained here (Akyürek et al. 2023 compare the same learners).
// One step() unit is one Adam step of the LSA's training, then one k of the evaluation.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "icl/demo.h"
#include "icl/demo_panels.h"
#include "icl/divergence.h"
#include "icl/linear_tasks.h"
#include "icl/lsa.h"
#include "icl/rng.h"

namespace icl {
namespace {

constexpr int kEtaFitTasks = 400;

enum Method { kLstsq, kRidge, kGd, kKnn, kAvg, kLsa, kMethods };
const char* const kScalarNames[kMethods] = {"lstsq_at_d", "ridge_at_d", "gd_at_d", "knn3_at_d", "avg_at_d", "lsa_at_d"};

// The first k context pairs of a task (Garg et al. evaluate prompt prefixes).
RegressionTask prefix(const RegressionTask& t, int k) {
    RegressionTask p;
    p.w = t.w;
    p.x = matrix(k, cols(t.x));
    std::copy(t.x.storage().begin(), t.x.storage().begin() + static_cast<long>(k) * cols(t.x), p.x.storage().begin());
    p.y.assign(t.y.begin(), t.y.begin() + k);
    p.x_query = t.x_query;
    p.y_query = t.y_query;
    return p;
}

// Mean y of the 3 context inputs nearest to the query (all of them if k < 3; 0 if k = 0).
float knn3_prediction(const RegressionTask& t) {
    const int k = rows(t.x), d = cols(t.x);
    std::vector<std::pair<float, int>> dist;
    for (int i = 0; i < k; ++i) {
        float s = 0;
        for (int c = 0; c < d; ++c) s += (t.x(i, c) - t.x_query[c]) * (t.x(i, c) - t.x_query[c]);
        dist.push_back({s, i});
    }
    const int m = std::min(3, k);
    if (m == 0) return 0.0f;
    std::partial_sort(dist.begin(), dist.begin() + m, dist.end());
    float sum = 0;
    for (int j = 0; j < m; ++j) sum += t.y[dist[j].second];
    return sum / float(m);
}

// ŵ = mean_i(y_i x_i), the averaging estimator, at the query.
float averaging_prediction(const RegressionTask& t) { return gd_one_step_prediction(t, 1.0f); }

class RegressionCurveSession : public Session {
public:
    RegressionCurveSession(const DemoContext& ctx, const LsaTrainConfig& cfg)
        : ctx_(ctx), cfg_(cfg), trainer_(cfg, ctx.seed), train_steps_(ctx.params.i("train_steps")) {}

    void step(int budget) override {
        for (int b = 0; b < budget && !done(); ++b) {
            if (trainer_.steps() < train_steps_) {
                const int n = trainer_.steps() + 1;
                error_ = watch_.check(n, trainer_.step(), cfg_.lr, &ctx_.text);
                continue;
            }
            if (tasks_.empty()) sample_eval_tasks();
            evaluate_k(static_cast<int>(curves_[0].x.size()));
        }
    }

    bool done() const override { return evaluated() || !error_.empty(); }

    double progress() const override { return double(trainer_.steps() + curves_[0].x.size()) / (train_steps_ + 2 * cfg_.task.d + 1); }
    std::vector<Panel> panels() const override {
        std::vector<Panel> panels;
        const Texts& msg = ctx_.text;
        const int d = cfg_.task.d;
        const char* const names[kMethods] = {"method.lstsq", "method.ridge", "method.gd", "method.knn", "method.avg", "method.lsa"};

        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"error_at_0", evaluated() ? curves_[kLstsq].y.front() : NAN, "",
                           msg("scalar.error_at_0.help")});
        for (int m = 0; m < kMethods; ++m)
            s.items.push_back({kScalarNames[m], evaluated() ? curves_[m].y[static_cast<size_t>(d)] : NAN, "",
                               msg("scalar.method_at_d.help", {{"method", msg(names[m])}})});
        s.items.push_back({"lstsq_at_d_median", evaluated() ? lstsq_median_.y[static_cast<size_t>(d)] : NAN, "",
                           msg("scalar.lstsq_at_d_median.help")});
        s.items.push_back({"lsa_steps", double(trainer_.steps()), "",
                           msg("scalar.lsa_steps.help")});
        panels.push_back(s);
        if (!evaluated()) return panels;

        LinesPanel lines;
        lines.title = msg("panel.lines.title");
        lines.x_label = msg("panel.lines.x");
        lines.y_label = msg("panel.lines.y");
        for (int m = 0; m < kMethods; ++m) {
            Series c = curves_[m];
            c.name = msg(names[m]);
            c.dashed = m == kLsa;
            lines.series.push_back(c);
        }
        Series med = lstsq_median_;
        med.name = msg("series.med");
        med.dashed = true;
        lines.series.push_back(med);
        lines.series.push_back({msg("series.zero"), {0.0, 2.0 * d}, {1.0, 1.0}, {}, true});
        panels.push_back(lines);

        BarsPanel bars{msg("panel.bars.title"), "(ŷ − y)²/d", {}, {}, {}};
        for (int m = 0; m < kMethods; ++m) {
            bars.labels.push_back(msg(names[m]));
            bars.values.push_back(curves_[m].y[static_cast<size_t>(d)]);
            bars.errors.push_back(curves_[m].y_err[static_cast<size_t>(d)]);
        }
        panels.push_back(bars);

        panels.push_back(guide_note(msg));
        return panels;
    }

private:
    bool evaluated() const { return static_cast<int>(curves_[0].x.size()) == 2 * cfg_.task.d + 1; }

    // The same tasks serve every k (each k sees the first k context pairs).
    void sample_eval_tasks() {
        Rng rng(ctx_.seed ^ 0x5851f42d4c957f2dull);
        tasks_ = sample_tasks(rng, cfg_.task, 2 * cfg_.task.d, ctx_.params.i("n_tasks"));
        fit_tasks_ = sample_tasks(rng, cfg_.task, 2 * cfg_.task.d, kEtaFitTasks);
    }

    // One point of every curve: the mean normalized error with k in-context examples.
    void evaluate_k(int k) {
        const Params& p = ctx_.params;
        const int d = cfg_.task.d;
        const double lambda = p.d("ridge_lambda");
        // Best GD step size for this k, fitted on separate tasks: GD at η predicts η s
        // with s = its prediction at η = 1, so η* = E[s y] / E[s²].
        float eta = p.f("gd_eta");
        if (p.s("gd_step") == "best_per_k") {
            double sy = 0, ss = 0;
            for (const auto& t : fit_tasks_) {
                const double s1 = gd_one_step_prediction(prefix(t, k), 1.0f);
                sy += s1 * t.y_query;
                ss += s1 * s1;
            }
            eta = ss > 0 ? float(sy / ss) : 0.0f;
        }
        double sum[kMethods] = {}, sum2[kMethods] = {};
        std::vector<double> lstsq_errors;  // per task, for the median
        for (const auto& full : tasks_) {
            const RegressionTask t = prefix(full, k);
            float pred[kMethods];
            for (int m : {kLstsq, kRidge}) {
                const auto w = least_squares(t.x, t.y.data(), m == kRidge ? lambda : 0.0);
                if (!w) {
                    error_ = ctx_.text("run_error.lstsq_failed", {{"k", k}, {"why", w.error().message}});
                    return;
                }
                double yq = 0;
                for (int c = 0; c < d; ++c) yq += w.value()[c] * t.x_query[c];
                pred[m] = float(yq);
            }
            pred[kGd] = gd_one_step_prediction(t, eta);
            pred[kKnn] = knn3_prediction(t);
            pred[kAvg] = averaging_prediction(t);
            pred[kLsa] = lsa_predict(trainer_.model(), t);
            for (int m = 0; m < kMethods; ++m) {
                const double e = double(pred[m] - t.y_query) * (pred[m] - t.y_query) / d;
                sum[m] += e;
                sum2[m] += e * e;
                if (m == kLstsq) lstsq_errors.push_back(e);
            }
        }
        std::sort(lstsq_errors.begin(), lstsq_errors.end());
        const size_t h = lstsq_errors.size() / 2;
        lstsq_median_.x.push_back(k);
        lstsq_median_.y.push_back(lstsq_errors.size() % 2 ? lstsq_errors[h] : 0.5 * (lstsq_errors[h - 1] + lstsq_errors[h]));
        const double n = double(tasks_.size());
        for (int m = 0; m < kMethods; ++m) {
            const double mean = sum[m] / n;
            curves_[m].x.push_back(k);
            curves_[m].y.push_back(mean);
            curves_[m].y_err.push_back(std::sqrt(std::max(0.0, sum2[m] / n - mean * mean) / n));
        }
    }

    DemoContext ctx_;
    LsaTrainConfig cfg_;
    LsaTrainer trainer_;
    DivergenceWatch watch_;
    int train_steps_;
    std::vector<RegressionTask> tasks_, fit_tasks_;
    Series curves_[kMethods];
    Series lstsq_median_;  // least squares' median error over the tasks, per k
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    LsaTrainConfig cfg;
    cfg.task.d = p.i("d");
    cfg.task.dist = InputDist::normal;  // Garg et al.: x, w ~ N(0, I)
    cfg.task.x_scale = 1.0f;
    cfg.task.noise = p.f("noise");
    cfg.n_min = 1;
    cfg.n_max = 2 * cfg.task.d;
    cfg.layers = 1;
    cfg.batch = 64;
    cfg.lr = 1e-3f;
    cfg.init_std = 0.01f;
    return std::unique_ptr<Session>(new RegressionCurveSession(ctx, cfg));
}

const DemoDef icl_regression_curve_def = [] {
    DemoDef d;
    d.id = "icl_regression_curve";
    d.paper = "Garg et al. 2022; Akyürek et al. 2023";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("d", 2, 20, 10, 1),
        ParamSpec::integer("n_tasks", 100, 4000, 1000, 100),
        ParamSpec::real("noise", 0, 2, 0, 0.05),
        ParamSpec::real("ridge_lambda", 0.001, 20, 0.5, 0.001),
        ParamSpec::choice("gd_step", {"best_per_k", "fixed"}, "best_per_k"),
        ParamSpec::real("gd_eta", 0, 2, 0.5, 0.01),
        ParamSpec::integer("train_steps", 0, 5000, 1500, 50),
    };
    d.start = start;
    return d;
}();
ICL_REGISTER_DEMO(icl_regression_curve_def);

}  // namespace
}  // namespace icl

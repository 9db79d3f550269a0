// Demo: on in-context regression prompts with inputs x ~ N(0, Σ) of a condition number the
// learner sets, the error of k steps of gradient descent against k iterations of Iterative
// Newton (the Newton–Schulz iteration Fu et al. 2024 compare transformer layers with) and
// least squares, and the readout "how many GD steps match Newton iteration j". Closed forms
// only (icl/regression_solvers.h): no model is trained here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "icl/demo.h"
#include "icl/demo_panels.h"
#include "icl/linear_tasks.h"
#include "icl/regression_solvers.h"
#include "icl/rng.h"

namespace icl {
namespace {

constexpr int kMaxGdSteps = 4096;

double query_error(const Weights& w, const RegressionTask& t) {
    double yhat = 0.0;
    for (size_t a = 0; a < w.size(); ++a) yhat += w[a] * t.x_query[a];
    return (yhat - t.y_query) * (yhat - t.y_query);
}

class NewtonVsGdSession : public Session {
public:
    explicit NewtonVsGdSession(const DemoContext& ctx) : ctx_(ctx) {}

    void step(int) override {
        if (done_) return;
        const Params& p = ctx_.params;
        TaskConfig task;
        task.d = p.i("d");
        task.dist = InputDist::normal;
        task.x_scale = 1.0f;
        task.noise = p.f("noise");
        task.x_factor = spectrum_factor(geometric_spectrum(task.d, p.f("condition")), p.b("rotate"));
        const int n = p.i("n_context"), iters = p.i("iterations"), prompts = p.i("prompts");
        Rng rng(ctx_.seed);
        gd_.assign(kMaxGdSteps + 1, 0.0);
        newton_.assign((size_t)iters + 1, 0.0);
        ls_ = 0.0;
        for (int t = 0; t < prompts; ++t) {
            const RegressionTask task_t = sample_task(rng, task, n);
            const double eta = 1.0 / std::max(gram_largest_eigenvalue(task_t.x, 100), 1e-12);
            const auto gd = gd_path(task_t.x, task_t.y.data(), eta, kMaxGdSteps);
            const auto nw = iterative_newton_path(task_t.x, task_t.y.data(), iters);
            auto ls = least_squares(task_t.x, task_t.y.data(), 0.0);
            if (!ls) {
                error_ = ls.error().message;
                done_ = true;
                return;
            }
            for (size_t k = 0; k < gd.size(); ++k) gd_[k] += query_error(gd[k], task_t) / prompts;
            for (size_t k = 0; k < nw.size(); ++k) newton_[k] += query_error(nw[k], task_t) / prompts;
            ls_ += query_error(ls.value(), task_t) / prompts;
        }
        // GD steps matching Newton iteration j: the fewest whose mean error is at most Newton's;
        // none once Newton sits at least squares' error (a rounding floor without noise).
        match_.assign((size_t)iters + 1, -1);
        for (int j = 0; j <= iters; ++j)
            for (int k = 0; k <= kMaxGdSteps && !at_ls(j); ++k)
                if (gd_[(size_t)k] <= newton_[(size_t)j]) {
                    match_[(size_t)j] = k;
                    break;
                }
        done_ = true;
    }

    bool done() const override { return done_; }
    double progress() const override { return done_ ? 1.0 : 0.0; }

    std::vector<Panel> panels() const override {
        const Texts& msg = ctx_.text;
        std::vector<Panel> panels;
        if (newton_.empty()) return panels;
        const int iters = (int)newton_.size() - 1;
        auto match_at = [&](int j) { return j <= iters ? double(match_[(size_t)j]) : -1.0; };
        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"err_ls", ls_, "", msg("scalar.err_ls.help")});
        s.items.push_back({"err_newton", newton_.back(), "", msg("scalar.err_newton.help")});
        s.items.push_back({"err_gd_same", gd_[(size_t)iters], "", msg("scalar.err_gd_same.help")});
        s.items.push_back({"err_gd_max", gd_.back(), "", msg("scalar.err_gd_max.help")});
        s.items.push_back({"gd_match_2", match_at(2), "", msg("scalar.gd_match_2.help")});
        s.items.push_back({"gd_match_3", match_at(3), "", msg("scalar.gd_match_3.help")});
        s.items.push_back({"gd_match_4", match_at(4), "", msg("scalar.gd_match_4.help")});
        s.items.push_back({"gd_match_last", match_at(iters), "", msg("scalar.gd_match_last.help")});
        panels.push_back(s);

        LinesPanel lines;
        lines.title = msg("panel.lines.title");
        lines.x_label = msg("panel.lines.x");
        lines.y_label = msg("panel.lines.y");
        lines.log_x = lines.log_y = true;
        Series gd{msg("series.gd"), {}, {}, {}, false}, nw{msg("series.newton"), {}, {}, {}, false};
        for (int k = 1; k <= kMaxGdSteps; k = k < 16 ? k + 1 : k * 2) {
            gd.x.push_back(k);
            gd.y.push_back(gd_[(size_t)k]);
        }
        for (int j = 1; j <= iters; ++j) {
            nw.x.push_back(j);
            nw.y.push_back(newton_[(size_t)j]);
        }
        Series ls{msg("series.ls"), {1.0, double(kMaxGdSteps)}, {ls_, ls_}, {}, true};
        lines.series = {gd, nw, ls};
        panels.push_back(lines);

        TablePanel table{msg("panel.match.title"), {msg("panel.match.col.newton"), msg("panel.match.col.error"), msg("panel.match.col.gd")}, {}};
        for (int j = 1; j <= iters; ++j) {
            char err[32];
            std::snprintf(err, sizeof err, "%.3g", newton_[(size_t)j]);
            table.rows.push_back({std::to_string(j), err,
                                  at_ls(j) ? msg("panel.match.row.at_ls")
                                  : match_[(size_t)j] < 0 ? msg("panel.match.row.more_than_max") : std::to_string(match_[(size_t)j])});
        }
        panels.push_back(table);
        panels.push_back(guide_note(msg));
        return panels;
    }

private:
    bool at_ls(int j) const { return newton_[(size_t)j] <= 1.001 * ls_ + 1e-12; }

    DemoContext ctx_;
    bool done_ = false;
    std::vector<double> gd_, newton_;  // mean (ŷ − y_q)² after k GD steps / j Newton iterations
    std::vector<int> match_;           // GD steps matching Newton iteration j (−1: more than kMaxGdSteps, or at ls_)
    double ls_ = 0.0;
};

const DemoDef newton_vs_gd_def = [] {
    DemoDef d;
    d.id = "newton_vs_gd";
    d.paper = "Fu et al. 2024";
    d.params = {
        ParamSpec::integer("d", 2, 16, 8, 1),
        ParamSpec::integer("n_context", 1, 64, 24, 1),
        // the eigenvalues of Σ run from 1 down to 1 / condition
        ParamSpec::real("condition", 1, 1000, 100, 1),
        ParamSpec::boolean("rotate", true),
        ParamSpec::real("noise", 0, 1, 0, 0.05),
        ParamSpec::integer("iterations", 1, 24, 16, 1),
        ParamSpec::integer("prompts", 1, 32, 16, 1),
    };
    d.start = start_session<NewtonVsGdSession>;
    return d;
}();
ICL_REGISTER_DEMO(newton_vs_gd_def);

}  // namespace
}  // namespace icl

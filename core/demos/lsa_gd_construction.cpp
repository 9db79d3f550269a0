// Demo: one linear self-attention layer with von Oswald et al.'s (2023) explicit
// weights computes exactly one gradient-descent step on the in-context examples.
// Shows the four matrices, checks the identity on many random tasks, and plots the
// one-step GD loss against the step size η.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/linear_tasks.h"
#include "icl/lsa.h"
#include "icl/rng.h"

namespace icl {
namespace {

constexpr double kEtaMax = 20.0, kEtaStep = 0.25;

class LsaGdConstructionSession : public AnalyticSession {
public:
    explicit LsaGdConstructionSession(const DemoContext& ctx) : ctx_(ctx) {}

    void compute() override {
        const Params& p = ctx_.params;
        d_ = p.i("d");
        n_ = p.i("n_context");
        eta_ = p.f("eta");
        TaskConfig cfg;
        cfg.d = d_;
        cfg.dist = InputDist::uniform;
        cfg.x_scale = p.f("x_range");
        Rng rng(ctx_.seed);
        const auto tasks = sample_tasks(rng, cfg, n_, p.i("n_tasks"));
        weights_ = gd_construction(d_, eta_, n_);
        const LsaModel model{combine(weights_)};
        // Per task: the LSA prediction vs GD's, and s = GD's prediction at η = 1, so that
        // GD at any η predicts η s and the loss curve costs nothing more to draw.
        std::vector<double> s(tasks.size()), y(tasks.size());
        double lsa_loss = 0.0;
        for (size_t k = 0; k < tasks.size(); ++k) {
            const float lsa = lsa_predict(model, tasks[k]);
            const float gd = gd_one_step_prediction(tasks[k], eta_);
            max_abs_diff_ = std::max(max_abs_diff_, double(std::fabs(lsa - gd)));
            lsa_loss += 0.5 * double(lsa - tasks[k].y_query) * (lsa - tasks[k].y_query);
            s[k] = gd_one_step_prediction(tasks[k], 1.0f);
            y[k] = tasks[k].y_query;
        }
        lsa_loss_ = lsa_loss / double(tasks.size());
        best_loss_ = 1e300;
        for (double eta = 0.0; eta <= kEtaMax + 1e-9; eta += kEtaStep) {
            double sum = 0.0, sum2 = 0.0;
            for (size_t k = 0; k < tasks.size(); ++k) {
                const double l = 0.5 * (eta * s[k] - y[k]) * (eta * s[k] - y[k]);
                sum += l;
                sum2 += l * l;
            }
            const double n = double(tasks.size()), mean = sum / n;
            curve_.x.push_back(eta);
            curve_.y.push_back(mean);
            curve_.y_err.push_back(std::sqrt(std::max(0.0, sum2 / n - mean * mean) / n));
            if (mean < best_loss_) { best_loss_ = mean; best_eta_ = eta; }
        }
        zero_loss_ = curve_.y.front();
    }


    std::vector<Panel> draw() const override {
        std::vector<Panel> panels;
        const Texts& msg = ctx_.text;
        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"max_abs_diff", max_abs_diff_, "",
                           msg("scalar.max_abs_diff.help")});
        s.items.push_back({"loss_at_eta", lsa_loss_, "",
                           msg("scalar.loss_at_eta.help")});
        s.items.push_back({"gd_loss_min", best_loss_, "",
                           msg("scalar.gd_loss_min.help")});
        s.items.push_back({"eta_best", best_eta_, "",
                           msg("scalar.eta_best.help")});
        s.items.push_back({"zero_loss", zero_loss_, "",
                           msg("scalar.zero_loss.help")});
        panels.push_back(s);

        LinesPanel lines;
        lines.title = msg("panel.lines.title");
        lines.x_label = "η";
        lines.y_label = msg("panel.lines.y");
        Series curve = curve_;
        curve.name = msg("series.curve");
        Series chosen{msg("series.chosen"), {eta_, eta_}, {0.0, zero_loss_}, {}, true};
        lines.series = {curve, chosen};
        panels.push_back(lines);

        const auto labels = numbered_labels("x", d_);
        std::vector<std::string> tok = labels;
        tok.push_back("y");
        panels.push_back(heatmap_of(weights_.w_k, msg("panel.wk.title"),
                                      msg("axis.token"), msg("axis.key"), true, tok, tok));
        panels.push_back(heatmap_of(weights_.w_q, "W_Q = [[I, 0], [0, 0]]", msg("axis.token"),
                                      msg("axis.query"), true, tok, tok));
        panels.push_back(heatmap_of(weights_.w_v, "W_V = [[0, 0], [W0 = 0, −1]]", msg("axis.token"),
                                      msg("axis.value"), true, tok, tok));
        panels.push_back(heatmap_of(weights_.p, "P = (η/N) I", msg("axis.value"),
                                      msg("axis.update"), true, tok, tok));

        panels.push_back(guide_note(msg));
        return panels;
    }

private:
    DemoContext ctx_;
    int d_ = 0, n_ = 0;
    float eta_ = 0;
    LsaWeights weights_;
    Series curve_;
    double max_abs_diff_ = 0.0, lsa_loss_ = 0.0, best_loss_ = 0.0, best_eta_ = 0.0, zero_loss_ = 0.0;
};

const DemoDef lsa_gd_construction_def = [] {
    DemoDef d;
    d.id = "lsa_gd_construction";
    d.paper = "von Oswald et al. 2023";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("d", 1, 20, 10, 1),
        ParamSpec::integer("n_context", 1, 40, 10, 1),
        ParamSpec::real("eta", 0, 20, 6, 0.1),
        ParamSpec::real("x_range", 0.1, 2, 0.5, 0.05),
        ParamSpec::integer("n_tasks", 100, 10000, 2000, 100),
    };
    d.start = start_session<LsaGdConstructionSession>;
    return d;
}();
ICL_REGISTER_DEMO(lsa_gd_construction_def);

}  // namespace
}  // namespace icl

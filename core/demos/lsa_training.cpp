// Demo: train one (or a few) linear self-attention layers with Adam on fresh random
// regression tasks and watch them reach — and take the shape of — gradient descent
// (von Oswald et al. 2023). One step() unit is one Adam step.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "icl/lsa_session.h"
#include "icl/linear_tasks.h"
#include "icl/lsa.h"
#include "icl/rng.h"
#include "icl/metrics.h"

namespace icl {
namespace {

constexpr int kEvalTasks = 500;

// K steps of GD with step size eta, evaluated at the query.
float gd_predict(const RegressionTask& t, float eta, int steps) {
    const std::vector<float> w = gd_weights(t, eta, steps);
    return dot(w.data(), t.x_query.data(), cols(t.x));
}

class LsaTrainingSession : public LsaSession {
public:
    LsaTrainingSession(const DemoContext& ctx, const LsaTrainConfig& cfg)
        : LsaSession(ctx, cfg) {
        Rng eval_rng(ctx.seed ^ 0x9e3779b97f4a7c15ull);
        eval_ = sample_tasks(eval_rng, cfg.task, cfg.n_min, kEvalTasks);
        fit_gd();
        record_eval();
    }

    std::vector<Panel> panels() const override {
        std::vector<Panel> panels;
        const Texts& msg = ctx_.text;
        const LsaModel& model = shown();
        const int d = cfg_.task.d;
        const double lsa_loss = curve_.y.back();
        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"lsa_loss", lsa_loss, "", msg("scalar.lsa_loss.help")});
        s.items.push_back({"gd_loss", gd_loss_, "",
                           msg("scalar.gd_loss.help")});
        s.items.push_back({"loss_ratio", lsa_loss / gd_loss_, "", msg("scalar.loss_ratio.help")});
        s.items.push_back({"pred_diff", pred_diff_, "",
                           msg("scalar.pred_diff.help")});
        s.items.push_back({"sens_cos", sens_cos_, "",
                           msg("scalar.sens_cos.help")});
        s.items.push_back({"gd_eta", gd_eta_, "", msg("scalar.gd_eta.help")});
        s.items.push_back({"steps", double(error_.empty() ? trainer_.steps() : good_steps_), "",
                           msg("scalar.steps.help")});
        panels.push_back(s);

        LinesPanel lines;
        lines.title = msg("panel.lines.title");
        lines.x_label = msg("panel.lines.x");
        lines.y_label = msg("panel.lines.y");
        lines.log_y = true;
        Series lsa = curve_;
        lsa.name = msg("series.lsa");
        Series gd{msg("series.gd"), {0.0, double(total_steps_)}, {gd_loss_, gd_loss_}, {}, true};
        lines.series = {lsa, gd};
        panels.push_back(lines);

        std::vector<std::string> tok = numbered_labels("x", d);
        tok.push_back("y");
        const LsaLayer& first = model.front();
        panels.push_back(heatmap_of(first.w_kq, msg("panel.w_kq.title"),
                                      msg("axis.query"), msg("axis.key"),
                                      true, tok, tok));
        panels.push_back(heatmap_of(first.w_pv, msg("panel.w_pv.title"),
                                      msg("axis.value"), msg("axis.update"), true,
                                      tok, tok));

        NotePanel note{msg("note.guide.title"), ""};
        note.text = cfg_.layers == 1
            ? msg("note.guide.one_layer")
            : msg("note.guide.layers");
        panels.push_back(note);
        return panels;
    }

private:
    // Compare the shown model with GD on the held-out tasks: prediction gap and
    // sensitivity ∂ŷ/∂x_q (both analytic: backprop through the LSA; for GD ∂ŷ/∂x_q is
    // the learned weight w). With each point of the loss curve (and for good_ after a
    // divergence), so the scalars describe one model and result() only copies.
    void measure() override {
        double sq = 0.0, cos_sum = 0.0;
        for (const auto& t : eval_) {
            const double gap = double(lsa_predict(shown(), t)) - gd_predict(t, gd_eta_, cfg_.layers);
            sq += gap * gap;
            cos_sum += metrics::cosine(lsa_query_sensitivity(shown(), t), gd_weights(t, gd_eta_, cfg_.layers));
        }
        pred_diff_ = std::sqrt(sq / eval_.size());
        sens_cos_ = cos_sum / eval_.size();
    }

    // The GD reference: K steps (K = layers) at the η with the lowest loss on the eval tasks.
    void fit_gd() {
        gd_loss_ = 1e300;
        for (float eta = 0.25f; eta <= 20.0f; eta += 0.25f) {
            double sum = 0.0;
            for (const auto& t : eval_) {
                const double r = double(gd_predict(t, eta, cfg_.layers)) - t.y_query;
                sum += 0.5 * r * r;
            }
            if (sum / eval_.size() < gd_loss_) { gd_loss_ = sum / eval_.size(); gd_eta_ = eta; }
        }
    }

    double gd_loss_ = 0.0;
    float gd_eta_ = 0.0f;
    double pred_diff_ = 0.0, sens_cos_ = 0.0;  // measure()'s, for the shown model
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    LsaTrainConfig cfg;
    cfg.task.d = p.i("d");
    cfg.task.dist = InputDist::uniform;
    cfg.task.x_scale = 0.5f;
    cfg.n_min = cfg.n_max = p.i("n_context");
    cfg.layers = p.i("layers");
    cfg.batch = p.i("batch");
    cfg.lr = p.f("lr");
    return std::unique_ptr<Session>(new LsaTrainingSession(ctx, cfg));
}

const DemoDef lsa_training_def = [] {
    DemoDef d;
    d.id = "lsa_training";
    d.paper = "von Oswald et al. 2023";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("d", 1, 16, 10, 1),
        ParamSpec::integer("n_context", 1, 32, 10, 1),
        ParamSpec::integer("layers", 1, 4, 1, 1),
        ParamSpec::integer("batch", 8, 512, 128, 8),
        // lr up to 1 so a learner can watch training diverge: with 2+ layers the loss
        // explodes from about lr 0.02 (0.05: at step 55); one layer stays finite even at 1.
        ParamSpec::real("lr", 0.0001, 1, 0.001, 0.0001),
        ParamSpec::integer("steps", 10, 20000, 2000, 10),
    };
    d.start = start;
    return d;
}();
ICL_REGISTER_DEMO(lsa_training_def);

}  // namespace
}  // namespace icl

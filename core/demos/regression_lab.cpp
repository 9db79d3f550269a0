// Demo (a lab): the learner's own in-context points, 1-D input with an optional bias
// feature, and what each learner of the lessons predicts from them across x: one GD step
// from W0 = 0 and von Oswald et al.'s (2023) constructed LSA layer (the same curve), k GD
// steps, an LSA layer trained on the task prior, least squares and ridge. The fast
// weight ΔW is shown as GD writes it and as it is read off the LSA layer.
//
// Analytic: the first step() draws every closed-form curve. The trained layer is trained
// once per (bias, number of points, seed) and kept for the process (shared by all
// sessions, so moving a point never restarts it); step() advances it with progress.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <string>
#include <utility>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/demo_panels.h"
#include "icl/linalg.h"
#include "icl/linear_tasks.h"
#include "icl/lsa.h"

namespace icl {
namespace {

constexpr double kXMin = -2, kXMax = 2, kYMin = -4, kYMax = 4;
constexpr int kMaxPoints = 20, kGrid = 81, kTrainSteps = 600;

// The prior the trained layer sees: x ~ U(−2, 2) (the editor's range), slope and bias
// ~ N(0, 1), no noise, as many context points as the learner placed.
LsaTrainConfig train_config(bool bias, int n) {
    LsaTrainConfig cfg;
    cfg.task.d = bias ? 2 : 1;
    cfg.task.dist = InputDist::uniform;
    cfg.task.x_scale = static_cast<float>(kXMax);
    cfg.task.bias_feature = bias;
    cfg.n_min = cfg.n_max = std::max(1, n);
    cfg.batch = 64;
    cfg.lr = 0.01f;
    cfg.init_std = 0.01f;
    return cfg;
}

// One trainer per (bias, n, seed) for the whole process, advanced by whichever session
// steps; the model after kTrainSteps is the same whoever did the steps.
struct SharedTraining {
    std::mutex mutex;
    LsaTrainer trainer;
    double last_loss = 0;
    SharedTraining(bool bias, int n, uint64_t seed) : trainer(train_config(bias, n), seed) {}
};

std::shared_ptr<SharedTraining> shared_training(bool bias, int n, uint64_t seed) {
    using Key = std::tuple<bool, int, uint64_t>;
    static std::mutex registry_mutex;
    static std::map<Key, std::shared_ptr<SharedTraining>> registry;
    std::lock_guard<std::mutex> lock(registry_mutex);
    const Key key{bias, n, seed};
    const auto it = registry.find(key);
    if (it != registry.end()) return it->second;
    if (registry.size() >= 4 * (kMaxPoints + 1)) registry.clear();  // a bound, for pages that try many seeds
    return registry[key] = std::make_shared<SharedTraining>(bias, n, seed);
}

// ΔW read off one LSA layer: the query (x_q, 0) leaves it as (x_q, 0) + (x_q, 0) M with
// M = W_KQᵀ C W_PVᵀ (C the context's Σ e_i e_iᵀ), and ŷ = −(y entry), so
// ŷ = Σ_c x_q,c · (−M(c, y)): the layer's fast weight is the column −M(:d, y).
std::vector<double> layer_fast_weight(const LsaLayer& layer, const Matrix& context_tokens, int n) {
    const int dim = cols(context_tokens), d = dim - 1;
    Matrix c = matrix(dim, dim);
    for (int i = 0; i < n; ++i) add_outer(c, 1.0f, row(context_tokens, i), row(context_tokens, i));
    const Matrix m = matmul(matmul(transpose(layer.w_kq), c), transpose(layer.w_pv));
    std::vector<double> w(static_cast<size_t>(d));
    for (int k = 0; k < d; ++k) w[k] = -m(k, d);
    return w;
}

class RegressionLabSession : public Session {
public:
    explicit RegressionLabSession(const DemoContext& ctx)
        : ctx_(ctx), bias_(ctx.params.b("bias")),
          training_(shared_training(bias_, static_cast<int>(ctx.params.pts("points").size()), ctx.seed)) {}

    void step(int budget) override {
        if (!analytic_done_) {
            compute_analytic();
            analytic_done_ = true;
            --budget;
        }
        std::lock_guard<std::mutex> lock(training_->mutex);
        for (int b = 0; b < budget && training_->trainer.steps() < kTrainSteps; ++b) {
            const double loss = training_->trainer.step();
            if (!std::isfinite(loss)) break;  // cannot happen at these sizes; the curve would stop
            training_->last_loss = loss;
        }
        trained_ = training_->trainer.model();
        trained_steps_ = training_->trainer.steps();
        trained_loss_ = training_->last_loss;
    }

    bool done() const override { return analytic_done_ && trained_steps_ >= kTrainSteps; }

    double progress() const override { return analytic_done_ ? 0.05 + 0.95 * double(trained_steps_) / kTrainSteps : 0.0; }
    std::vector<Panel> panels() const override;

private:
    // φ(x) = (x) or (x, 1).
    std::vector<float> features(double x) const {
        return bias_ ? std::vector<float>{float(x), 1.0f} : std::vector<float>{float(x)};
    }
    double apply(const std::vector<double>& w, double x) const {
        return w[0] * x + (bias_ ? w[1] : 0.0);
    }

    void compute_analytic();

    DemoContext ctx_;
    bool bias_;
    std::shared_ptr<SharedTraining> training_;
    bool analytic_done_ = false;
    RegressionTask task_;   // the learner's points as a task (x_query is set per grid point)
    Matrix context_tokens_;    // n × D, the context rows of the LSA's input
    std::vector<double> grid_, gd1_, lsa_, gdk_, ls_, ridge_;
    std::vector<double> dw_gd_, dw_lsa_, w_k_, w_ls_, w_ridge_;
    double max_gap_ = 0, eta_stable_ = 0;
    bool ls_ok_ = true, ridge_ok_ = true;
    LsaModel trained_;
    int trained_steps_ = 0;
    double trained_loss_ = 0;
};

void RegressionLabSession::compute_analytic() {
    const Params& p = ctx_.params;
    const auto& pts = p.pts("points");
    const int n = static_cast<int>(pts.size()), d = bias_ ? 2 : 1;
    const float eta = p.f("eta");
    task_.x = matrix(n, d);
    task_.y.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const auto phi = features(pts[i][0]);
        for (int c = 0; c < d; ++c) task_.x(i, c) = phi[c];
        task_.y[i] = float(pts[i][1]);
    }
    task_.x_query = features(0.0);
    task_.w.assign(static_cast<size_t>(d), 0.0f);
    const Matrix all_tokens = regression_tokens(task_);  // the n context rows, then the query's
    context_tokens_ = matrix(n, d + 1);
    std::copy_n(all_tokens.data(), context_tokens_.size(), context_tokens_.data());

    // GD: ΔW = (η/n) Σ y_i φ(x_i) from W0 = 0, and k steps.
    const std::vector<float> w1 = gd_weights(task_, eta, 1), wk = gd_weights(task_, eta, p.i("k_steps"));
    dw_gd_.assign(w1.begin(), w1.end());
    w_k_.assign(wk.begin(), wk.end());
    // The stable step sizes of GD on this loss: η < 2 / λ_max((1/n) Σ φ φᵀ).
    double a = 0, b = 0, c = 0;
    for (int i = 0; i < n; ++i) {
        a += double(task_.x(i, 0)) * task_.x(i, 0);
        if (bias_) { b += task_.x(i, 0); c += 1.0; }
    }
    if (n > 0) { a /= n; b /= n; c /= n; }
    const double lmax = 0.5 * (a + c) + std::sqrt(0.25 * (a - c) * (a - c) + b * b);
    eta_stable_ = lmax > 0 ? 2.0 / lmax : 0.0;

    // The constructed layer, every grid point as a query row after the context (query
    // rows take no part in the keys and values, so one forward serves them all).
    const LsaModel constructed{combine(gd_construction(d, eta, n))};
    Matrix tokens = matrix(n + kGrid, d + 1);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k <= d; ++k) tokens(i, k) = context_tokens_(i, k);
    grid_.resize(kGrid);
    for (int g = 0; g < kGrid; ++g) {
        grid_[g] = kXMin + (kXMax - kXMin) * g / (kGrid - 1);
        const auto phi = features(grid_[g]);
        for (int k = 0; k < d; ++k) tokens(n + g, k) = phi[k];
    }
    const Matrix out = lsa_forward(constructed, tokens, n).output;
    dw_lsa_ = layer_fast_weight(constructed[0], context_tokens_, n);

    auto ls = least_squares(task_.x, task_.y.data(), 0.0);
    auto ridge = least_squares(task_.x, task_.y.data(), p.d("lambda"));
    ls_ok_ = bool(ls);
    ridge_ok_ = bool(ridge);
    if (ls_ok_) w_ls_ = ls.value();
    if (ridge_ok_) w_ridge_ = ridge.value();
    const double nan = std::nan("");
    for (int g = 0; g < kGrid; ++g) {
        const double x = grid_[g];
        gd1_.push_back(apply(dw_gd_, x));
        lsa_.push_back(-double(out(n + g, d)));
        max_gap_ = std::max(max_gap_, std::fabs(lsa_.back() - gd1_.back()));
        gdk_.push_back(apply(w_k_, x));
        ls_.push_back(ls_ok_ ? apply(w_ls_, x) : nan);
        ridge_.push_back(ridge_ok_ ? apply(w_ridge_, x) : nan);
    }
}

std::vector<Panel> RegressionLabSession::panels() const {
    std::vector<Panel> panels;
    if (!analytic_done_) return panels;
    const Texts& msg = ctx_.text;
    const Params& p = ctx_.params;
    const auto& pts = p.pts("points");
    const int n = static_cast<int>(pts.size()), d = bias_ ? 2 : 1;
    const double xq = p.d("query_x");

    // The trained layer across the grid (cheap: D ≤ 3).
    std::vector<double> trained(kGrid);
    std::vector<double> dw_trained;
    if (!trained_.empty()) {
        Matrix tokens = matrix(n + kGrid, d + 1);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k <= d; ++k) tokens(i, k) = context_tokens_(i, k);
        for (int g = 0; g < kGrid; ++g) {
            const auto phi = features(grid_[g]);
            for (int k = 0; k < d; ++k) tokens(n + g, k) = phi[k];
        }
        const Matrix out = lsa_forward(trained_, tokens, n).output;
        for (int g = 0; g < kGrid; ++g) trained[g] = -double(out(n + g, d));
        dw_trained = layer_fast_weight(trained_[0], context_tokens_, n);
    }

    // Far outside the editor's y range a curve only flattens the others: drawn as a gap.
    const double clip = 4 * (kYMax - kYMin);
    auto shown = [&](std::vector<double> v) {
        for (double& y : v)
            if (!(std::fabs(y) <= clip)) y = std::nan("");
        return v;
    };
    const std::string eta = format_number(p.d("eta")), k = std::to_string(p.i("k_steps"));
    LinesPanel lines;
    lines.title = msg("panel.lines.title");
    lines.x_label = "x";
    lines.y_label = msg("panel.lines.y");
    lines.beside = "points";  // the lines the point editor moves, next to it
    Series points{msg("series.points"), {}, {}, {}, false, true};
    for (const auto& xy : pts) { points.x.push_back(xy[0]); points.y.push_back(xy[1]); }
    lines.series.push_back(points);
    lines.series.push_back({msg("series.gd1", {{"eta", eta}}), grid_, shown(gd1_), {}, false});
    lines.series.push_back({msg("series.lsa"), grid_, shown(lsa_), {}, true});
    lines.series.push_back({msg("series.gd_k", {{"k", k}}), grid_, shown(gdk_), {}, false});
    if (!trained_.empty())
        lines.series.push_back({trained_steps_ < kTrainSteps
                                    ? msg("series.trained_partial", {{"done", trained_steps_}, {"total", kTrainSteps}})
                                    : msg("series.trained"),
                                grid_, shown(trained), {}, false});
    if (ls_ok_) lines.series.push_back({msg("series.ls"), grid_, shown(ls_), {}, false});
    if (ridge_ok_)
        lines.series.push_back({msg("series.ridge", {{"lambda", format_number(p.d("lambda"))}}), grid_,
                                shown(ridge_), {}, true});
    lines.series.push_back({msg("series.query"), {xq, xq}, {kYMin, kYMax}, {}, true});

    auto at_query = [&](const std::vector<double>& w) { return w.empty() ? std::nan("") : apply(w, xq); };
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"n_points", double(n), "", msg("scalar.n_points.help")});
    s.items.push_back({"gd_one_step", at_query(dw_gd_), "", msg("scalar.gd_one_step.help")});
    s.items.push_back({"lsa_constructed", at_query(dw_lsa_), "",
                       msg("scalar.lsa_constructed.help")});
    s.items.push_back({"max_abs_diff", max_gap_, "",
                       msg("scalar.max_abs_diff.help")});
    s.items.push_back({"gd_k_steps", at_query(w_k_), "", msg("series.gd_k", {{"k", k}})});
    s.items.push_back({"lsa_trained", at_query(dw_trained), "",
                       msg("scalar.lsa_trained.help")});
    s.items.push_back({"least_squares", ls_ok_ ? apply(w_ls_, xq) : std::nan(""), "",
                       msg("scalar.least_squares.help")});
    s.items.push_back({"ridge", ridge_ok_ ? apply(w_ridge_, xq) : std::nan(""), "", msg("scalar.ridge.help")});
    s.items.push_back({"gd_over_ls", ls_ok_ && apply(w_ls_, xq) != 0 ? at_query(dw_gd_) / apply(w_ls_, xq) : std::nan(""), "",
                       msg("scalar.gd_over_ls.help")});
    s.items.push_back({"eta_stable", eta_stable_, "",
                       msg("scalar.eta_stable.help")});
    s.items.push_back({"train_step", double(trained_steps_), "",
                       msg("scalar.train_step.help")});
    s.items.push_back({"train_loss", trained_loss_, "",
                       msg("scalar.train_loss.help")});
    panels.push_back(s);
    panels.push_back(lines);

    TablePanel t{msg("panel.dw.title"),
                 {msg("panel.dw.col.by"), msg("panel.dw.col.slope")}, {}};
    if (bias_) t.columns.push_back(msg("panel.dw.col.bias"));
    auto row = [&](const std::string& name, const std::vector<double>& w) {
        std::vector<std::string> cells{name};
        for (int c = 0; c < d; ++c) cells.push_back(c < int(w.size()) ? format_number(w[c]) : "—");
        t.rows.push_back(cells);
    };
    row(msg("panel.dw.row.gd"), dw_gd_);
    row(msg("panel.dw.row.lsa"), dw_lsa_);
    if (!dw_trained.empty()) row(msg("panel.dw.row.trained"), dw_trained);
    // Past the stable step size k steps grow without bound: beyond a float's range they
    // are left out of the table and the curve, and a note says why (never a "nan" cell).
    const bool k_diverged = std::any_of(w_k_.begin(), w_k_.end(), [](double w) { return !std::isfinite(w); });
    if (!k_diverged) row(msg("panel.dw.row.gd_k", {{"k", k}}), w_k_);
    if (ls_ok_) row(msg("series.ls"), w_ls_);
    if (ridge_ok_) row(msg("scalar.ridge.help"), w_ridge_);
    panels.push_back(t);

    if (k_diverged)
        panels.push_back(NotePanel{msg("note.gd_diverged.title"),
                                   msg("note.gd_diverged.text", {{"k", k}, {"eta", eta}, {"stable", format_number(eta_stable_)}})});
    panels.push_back(NotePanel{
        msg("note.guide.title"),
        msg("note.guide.text")});
    return panels;
}

ParamSpec points_spec() {
    return ParamSpec::points("points", {kXMin, kXMax}, {kYMin, kYMax}, 0, kMaxPoints, 0.05,
                             {{-1.5, -0.8}, {-0.8, -0.1}, {0.0, 0.7}, {0.6, 0.8}, {1.3, 1.9}});
}

const DemoDef regression_lab_def = [] {
    DemoDef d;
    d.id = "regression_lab";
    d.paper = "von Oswald et al. 2023";
    d.analytic = true;
    d.params = {
        points_spec(),
        ParamSpec::real("query_x", kXMin, kXMax, 1.0, 0.05),
        ParamSpec::boolean("bias", true),
        ParamSpec::real("eta", 0, 2, 0.3, 0.01),
        ParamSpec::integer("k_steps", 1, 200, 20, 1),
        ParamSpec::real("lambda", 0, 10, 0.5, 0.01),
    };
    d.start = start_session<RegressionLabSession>;
    return d;
}();
ICL_REGISTER_DEMO(regression_lab_def);

}  // namespace
}  // namespace icl

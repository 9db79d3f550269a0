// algorithm_probe (Akyürek et al. 2023; Fu et al. 2024): which quantities of least squares
// a trained vector-input GPT holds, layer by layer. The shipped checkpoint "regression"
// (lessons/checkpoints/regression.json) reads in-context regression prompts in Garg et
// al.'s encoding. At one position (the last context target y_{K−1}, where Akyürek et al.
// read their probes, or the query x_K that follows it) the residual stream after each
// layer ℓ (0 = the embedding) is the feature vector of a linear probe (icl/linear_probe.h,
// ridge in closed form) for
//     w_OLS = least squares on the K − 1 pairs,  w_ridge = the same with λ,  Xᵀy,
// and, at the query, for the query's target y_q. Each probe is fitted on a random 3/4 of the prompts and
// scored on the rest (R², mean over the target's components); the splits repeat, and
// the spread is over them. The same probes on the checkpoint's untrained initialisation
// (the recipe's seed: the very weights training started from) are the baseline.
// The y_q probe's held-out error after layer ℓ is set beside k steps of gradient descent
// and k iterations of Iterative Newton on the same prompts (icl/regression_solvers.h):
// "layer ℓ ≈ k steps" is the fewest k whose mean query error is at most the layer's.
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/format.h"
#include "icl/linear_probe.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/regression_solvers.h"

namespace icl {
namespace {

constexpr int kMaxGd = 256, kMaxNewton = 12;
enum Target { kOls = 0, kRidge = 1, kXty = 2, kYq = 3, kTargets = 4 };
const char* const kTargetIds[kTargets] = {"ols", "ridge", "xty", "yq"};


// The residual stream after each layer at the positions `pos` of every prompt, from one
// forward pass: [position][layer] matrices of prompts × C (layers + 1 of them); into
// yhat, the model's own prediction at the last position given.
std::vector<std::vector<Matrix>> layer_features(const gpt::Model& model, const std::vector<float>& vectors, int n,
                                                int T, const std::vector<int>& pos, std::vector<double>& yhat,
                                                Status& status) {
    gpt::Activations acts;
    std::vector<std::vector<Matrix>> out(pos.size());
    status = gpt::forward(model, acts, vectors.data(), n, T);
    if (!status) return out;
    const int C = model.config.width;
    yhat.assign((size_t)n, 0.0);
    for (int i = 0; i < n; ++i) yhat[(size_t)i] = acts.predictions()[(size_t)i * T + pos.back()];
    for (size_t k = 0; k < pos.size(); ++k)
        for (int l = 0; l <= model.config.layers; ++l) {
            Matrix f = matrix(n, C);
            const float* r = acts.residual(l);
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < C; ++c) f(i, c) = r[((size_t)i * T + pos[k]) * C + c];
            out[k].push_back(std::move(f));
        }
    return out;
}

// The forward passes are the costly part, and an edit of the probes' λ, the splits, the
// ridge target or the position does not change them: the last prompts' residual streams
// (both models, both positions) and predictions are kept for the process, keyed by
// what they depend on (the prompts drawn and the checkpoint's weights).
struct FeatureCache {
    std::mutex lock;
    int n = -1, T = -1;
    uint64_t seed = 0;
    double weights_sum = 0;
    std::vector<std::vector<Matrix>> feats[2];  // [trained, untrained][position][layer]
    std::vector<double> yhat;                   // the trained model's prediction at the query
};
FeatureCache& feature_cache() {
    static FeatureCache cache;
    return cache;
}

class AlgorithmProbeSession : public AnalyticSession {
public:
    AlgorithmProbeSession(const DemoContext& ctx, recipe::Recipe r, gpt::Model trained, gpt::Model untrained)
        : ctx_(ctx), recipe_(std::move(r)), trained_(std::move(trained)), untrained_(std::move(untrained)) {}

private:
    void compute() override {
        const Params& p = ctx_.params;
        const recipe::RegressionSpec& spec = recipe_.regression;
        const int n = p.i("prompts"), K = spec.pairs, D = spec.dim, T = 2 * K, ctxn = K - 1, q = 2 * ctxn;
        const int at = p.s("position") == "query" ? q : q - 1;  // x_K, or y_{K−1} just before it
        std::vector<float> vectors, y_unused;
        std::vector<uint8_t> mask;
        const auto seqs = recipe::regression_batch(spec, n, ctx_.seed, vectors, y_unused, mask);
        Matrix targets[kTargets] = {matrix(n, D), matrix(n, D), matrix(n, D), matrix(n, 1)};
        gd_.assign(kMaxGd + 1, 0.0);
        newton_.assign(kMaxNewton + 1, 0.0);
        ols_error_ = 0;
        for (int i = 0; i < n; ++i) {
            const task_pool::Sequence& s = seqs[(size_t)i];
            Matrix x = matrix(ctxn, D);
            for (int a = 0; a < ctxn; ++a)
                for (int c = 0; c < D; ++c) x(a, c) = s.x(a, c);
            auto ols = least_squares(x, s.y.data(), 0.0);
            auto ridge = least_squares(x, s.y.data(), p.f("ridge_lambda"));
            if (!ols || !ridge) return fail((ols ? ridge : ols).error().message);
            for (int c = 0; c < D; ++c) {
                targets[kOls](i, c) = (float)ols.value()[(size_t)c];
                targets[kRidge](i, c) = (float)ridge.value()[(size_t)c];
                double xty = 0;
                for (int a = 0; a < ctxn; ++a) xty += (double)x(a, c) * s.y[(size_t)a];
                targets[kXty](i, c) = (float)xty;
            }
            const float yq = s.y[(size_t)ctxn];
            targets[kYq](i, 0) = yq;
            auto err = [&](const std::vector<double>& w) {
                double f = 0;
                for (int c = 0; c < D; ++c) f += w[(size_t)c] * s.x(ctxn, c);
                return (f - yq) * (f - yq) / n;
            };
            ols_error_ += err(ols.value());
            const auto gd = gd_path(x, s.y.data(), 1.0 / std::max(gram_largest_eigenvalue(x, 60), 1e-12), kMaxGd);
            const auto nw = iterative_newton_path(x, s.y.data(), kMaxNewton);
            for (size_t k = 0; k < gd.size(); ++k) gd_[k] += err(gd[k]);
            for (size_t k = 0; k < nw.size(); ++k) newton_[k] += err(nw[k]);
        }
        const int L = trained_.config.layers;
        FeatureCache& cache = feature_cache();
        std::lock_guard<std::mutex> guard(cache.lock);
        double weights_sum = 0;
        for (float v : trained_.params) weights_sum += v;
        if (cache.n != n || cache.T != T || cache.seed != ctx_.seed || cache.weights_sum != weights_sum) {
            cache.n = -1;
            for (int m = 0; m < 2; ++m) {
                Status st = Ok{};
                std::vector<double> yhat;
                cache.feats[m] = layer_features(m == 0 ? trained_ : untrained_, vectors, n, T, {q - 1, q}, yhat, st);
                if (!st) return fail(st.error().message);
                if (m == 0) cache.yhat = yhat;
            }
            cache.n = n, cache.T = T, cache.seed = ctx_.seed, cache.weights_sum = weights_sum;
        }
        model_error_ = 0;
        for (int i = 0; i < n; ++i) model_error_ += std::pow(cache.yhat[(size_t)i] - targets[kYq](i, 0), 2) / n;
        for (int m = 0; m < 2; ++m) {
            const auto& feats = cache.feats[m];
            for (int t = 0; t < kTargets; ++t) {
                stats_[m][t].clear();
                for (int l = 0; l <= L; ++l) {
                    auto s = probe_over_splits(feats[t == kYq || at == q ? 1 : 0][(size_t)l], targets[t], p.f("probe_lambda"), p.i("splits"), ctx_.seed);
                    if (!s) return fail(s.error().message);
                    stats_[m][t].push_back(s.value());
                }
            }
        }
    }

    void fail(const std::string& message) { error_ = message; }

    // The fewest steps (of a path of mean errors) whose error is at most `e`; −1 if none.
    static int match(const std::vector<double>& path, double e) {
        for (size_t k = 0; k < path.size(); ++k)
            if (path[k] <= e) return (int)k;
        return -1;
    }

    std::vector<Panel> draw() const override {
        const Texts& msg = ctx_.text;
        const int L = trained_.config.layers;
        std::vector<Panel> panels;
        ScalarsPanel sc{msg("panel.scalars.title"), {}};
        for (int t : {kOls, kXty, kRidge})
            for (int m = 0; m < 2; ++m) {
                const std::string id = std::string(m == 0 ? "" : "untrained_") + "r2_" + kTargetIds[t] + "_last";
                sc.items.push_back({id, stats_[m][t][(size_t)L].r2.mean, "", msg(std::string("scalar.") + id + ".label")});
            }
        sc.items.push_back({"r2_spread_max", max_spread(), "", msg("scalar.r2_spread_max.label")});
        sc.items.push_back({"model_error", model_error_, "", msg("scalar.model_error.label")});
        sc.items.push_back({"ols_error", ols_error_, "", msg("scalar.ols_error.label")});
        for (int l = 1; l <= L; ++l) {
            const double e = stats_[0][kYq][(size_t)l].mse.mean;
            const std::string sl = std::to_string(l);
            sc.items.push_back({"probe_error_layer" + sl, e, "", msg("scalar.probe_error_layer.label", {{"layer", l}})});
            sc.items.push_back({"gd_match_layer" + sl, (double)match(gd_, e), "", msg("scalar.gd_match_layer.label", {{"layer", l}})});
            sc.items.push_back(
                {"newton_match_layer" + sl, (double)match(newton_, e), "", msg("scalar.newton_match_layer.label", {{"layer", l}})});
        }
        panels.push_back(sc);

        LinesPanel r2{msg("panel.r2.title"), msg("panel.r2.x"), msg("panel.r2.y"), false, false, {}, ""};
        for (int m = 0; m < 2; ++m)
            for (int t : {kOls, kRidge, kXty}) {
                Series s{msg(std::string("series.") + (m == 0 ? "" : "untrained_") + kTargetIds[t]), {}, {}, {}, m == 1};
                for (int l = 0; l <= L; ++l) {
                    s.x.push_back(l);
                    s.y.push_back(stats_[m][t][(size_t)l].r2.mean);
                    s.y_err.push_back(stats_[m][t][(size_t)l].r2.sd);
                }
                r2.series.push_back(s);
            }
        panels.push_back(r2);

        TablePanel table{msg("panel.table.title"),
                         {msg("panel.table.layer"), msg("series.ols"), msg("series.ridge"), msg("series.xty"),
                          msg("series.untrained_ols"), msg("series.untrained_xty")},
                         {}};
        auto pm = [](const ProbeSplits& s) { return format_number(s.r2.mean, "%.2f") + " ± " + format_number(s.r2.sd, "%.2f"); };
        for (int l = 0; l <= L; ++l)
            table.rows.push_back({std::to_string(l), pm(stats_[0][kOls][(size_t)l]), pm(stats_[0][kRidge][(size_t)l]),
                                  pm(stats_[0][kXty][(size_t)l]), pm(stats_[1][kOls][(size_t)l]),
                                  pm(stats_[1][kXty][(size_t)l])});
        panels.push_back(table);

        LinesPanel err{msg("panel.error.title"), msg("panel.error.x"), msg("panel.error.y"), true, true, {}, ""};
        Series gd{msg("series.gd"), {}, {}, {}, false}, nw{msg("series.newton"), {}, {}, {}, false};
        for (int k = 1; k <= kMaxGd; k = k < 16 ? k + 1 : k * 2) gd.x.push_back(k), gd.y.push_back(gd_[(size_t)k]);
        for (int k = 1; k <= kMaxNewton; ++k) nw.x.push_back(k), nw.y.push_back(newton_[(size_t)k]);
        Series layers{msg("series.layers"), {}, {}, {}, false, true};
        for (int l = 1; l <= L; ++l) {
            layers.x.push_back(l);
            layers.y.push_back(stats_[0][kYq][(size_t)l].mse.mean);
            layers.y_err.push_back(stats_[0][kYq][(size_t)l].mse.sd);
        }
        Series ls{msg("series.ls"), {1.0, (double)kMaxGd}, {ols_error_, ols_error_}, {}, true};
        err.series = {gd, nw, layers, ls};
        panels.push_back(err);

        TablePanel mt{msg("panel.match.title"),
                      {msg("panel.table.layer"), msg("panel.match.error"), msg("panel.match.gd"), msg("panel.match.newton")},
                      {}};
        for (int l = 0; l <= L; ++l) {
            const double e = stats_[0][kYq][(size_t)l].mse.mean;
            auto steps = [&](int k, int max) { return k < 0 ? msg("panel.match.more", {{"max", max}}) : std::to_string(k); };
            mt.rows.push_back({std::to_string(l), format_number(e, "%.3g"), steps(match(gd_, e), kMaxGd),
                               steps(match(newton_, e), kMaxNewton)});
        }
        panels.push_back(mt);
        panels.push_back(NotePanel{msg("note.see.title"), msg("note.see.text")});
        return panels;
    }

    double max_spread() const {
        double s = 0;
        for (int m = 0; m < 2; ++m)
            for (int t : {kOls, kRidge, kXty})
                for (const ProbeSplits& p : stats_[m][t]) s = std::max(s, p.r2.sd);
        return s;
    }

    DemoContext ctx_;
    recipe::Recipe recipe_;
    gpt::Model trained_, untrained_;
    std::vector<ProbeSplits> stats_[2][kTargets];  // [trained, untrained][target][layer]
    std::vector<double> gd_, newton_;             // mean query error after k GD steps / k Newton iterations
    double model_error_ = 0, ols_error_ = 0;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto r = recipe::load_shipped("regression");
    if (!r) return r.error();
    auto m = recipe::load_checkpoint(r.value());
    if (!m) return m.error();
    auto init = recipe::initial_model(r.value());
    if (!init) return init.error();
    return std::unique_ptr<Session>(
        new AlgorithmProbeSession(ctx, std::move(r.value()), std::move(m.value()), std::move(init.value())));
}

const DemoDef kAlgorithmProbe = [] {
    DemoDef d;
    d.id = "algorithm_probe";
    d.paper = "Akyürek et al. 2023; Fu et al. 2024";
    d.analytic = true;
    d.params = {
        ParamSpec::integer("prompts", 64, 256, 256, 32),
        ParamSpec::real("probe_lambda", 0, 10, 1, 0.1),
        ParamSpec::real("ridge_lambda", 0.01, 10, 1, 0.01),
        ParamSpec::integer("splits", 2, 5, 5, 1),
        ParamSpec::choice("position", {"last_y", "query"}, "last_y"),
    };
    d.start = start;
    d.assets = {"checkpoints/regression.json", "checkpoints/regression.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kAlgorithmProbe);

}  // namespace
}  // namespace icl

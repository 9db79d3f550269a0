// Demo: causal linear attention over demonstrations then a query, computed in its
// attention form and its fast-weight form (they agree to float rounding), the fast
// weights split into W_ZSL + ΔW_ICL as Dai et al. 2023 do, and how far this linear
// form is from the softmax attention it stands in for.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "icl/attention_dual.h"
#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/rng.h"

namespace icl {
namespace {

// ||a − b|| / ||b|| and cos(a, b) over two vectors of length n.
void compare(const float* a, const float* b, int n, double& rel_err, double& cos) {
    double diff = 0, aa = 0, bb = 0, ab = 0;
    for (int i = 0; i < n; ++i) {
        diff += double(a[i] - b[i]) * (a[i] - b[i]);
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
        ab += double(a[i]) * b[i];
    }
    rel_err = bb > 0 ? std::sqrt(diff / bb) : 0.0;
    cos = aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

// The last position of causal attention over rows 0..T−1 of k, v for the query q_last,
// three ways: linear Σ_i v_i (k_i·q); softmax Σ_i softmax(k_i·q/√d)_i v_i; and the
// softmax's first-order expansion at small scores, (1/T) Σ_i v_i (1 + z_i − z̄) with
// z_i = k_i·q/√d — the linear form normalised and centred.
struct LastOutputs {
    std::vector<double> linear, softmax, centred;
};
LastOutputs last_outputs(const Matrix& k, const Matrix& v, const float* q_last, float scale) {
    const int T = rows(k), dk = cols(k), dv = cols(v);
    // k, v and q are linear in the embeddings, so scaling the embeddings by s scales each by s.
    std::vector<double> z(T);
    double zmax = -1e300, zmean = 0;
    for (int i = 0; i < T; ++i) {
        double s = 0;
        for (int c = 0; c < dk; ++c) s += double(k(i, c)) * q_last[c];
        z[i] = s * scale * scale;
        zmax = std::max(zmax, z[i] / std::sqrt(double(dk)));
        zmean += z[i] / std::sqrt(double(dk)) / T;
    }
    LastOutputs o{std::vector<double>(dv, 0.0), std::vector<double>(dv, 0.0), std::vector<double>(dv, 0.0)};
    double norm = 0;
    for (int i = 0; i < T; ++i) norm += std::exp(z[i] / std::sqrt(double(dk)) - zmax);
    for (int i = 0; i < T; ++i) {
        const double zi = z[i] / std::sqrt(double(dk));
        const double w = std::exp(zi - zmax) / norm, c = (1.0 + zi - zmean) / T;
        for (int r = 0; r < dv; ++r) {
            const double vi = double(v(i, r)) * scale;
            o.linear[r] += z[i] * vi;
            o.softmax[r] += w * vi;
            o.centred[r] += c * vi;
        }
    }
    return o;
}

// ||a − b|| / ||b|| and cos(a, b) in double.
void compare_d(const std::vector<double>& a, const std::vector<double>& b, double& rel_err, double& cos) {
    double diff = 0, aa = 0, bb = 0, ab = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += (a[i] - b[i]) * (a[i] - b[i]);
        aa += a[i] * a[i];
        bb += b[i] * b[i];
        ab += a[i] * b[i];
    }
    rel_err = bb > 0 ? std::sqrt(diff / bb) : 0.0;
    cos = aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

// The p-quantile (0..1) of v by linear interpolation between order statistics.
double quantile(std::vector<double> v, double p) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const size_t lo = size_t(at);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
}

class AttentionDualSession : public AnalyticSession {
public:
    explicit AttentionDualSession(const DemoContext& ctx) : ctx_(ctx) {}

    void compute() override {
        const Params& p = ctx_.params;
        const int d_model = p.i("d_model"), d_head = p.i("d_head");
        n_demos_ = p.i("n_demos");
        const int n_query = p.i("n_query_tokens"), T = n_demos_ + n_query;
        Rng rng(ctx_.seed);
        // Token embeddings with entries ~ N(0, 1) and projections ~ N(0, 1/d_model); the
        // scale parameter multiplies the embeddings, so scores grow with its square.
        const Matrix tokens = random_normal(rng, T, d_model, 1.0f);
        const float proj_std = 1.0f / std::sqrt(float(d_model));
        const Matrix w_q = random_normal(rng, d_model, d_head, proj_std), w_k = random_normal(rng, d_model, d_head, proj_std),
                  w_v = random_normal(rng, d_model, d_head, proj_std);
        auto project = [&](float scale, Matrix& q, Matrix& k, Matrix& v) {
            Matrix x = tokens;
            for (float& e : x.storage()) e *= scale;
            q = matmul(x, w_q);
            k = matmul(x, w_k);
            v = matmul(x, w_v);
        };
        Matrix q, k, v;
        project(p.f("input_scale"), q, k, v);

        const Matrix attn = linear_attention_causal(q, k, v);
        fast_ = fast_weight_causal(q, k, v, &history_);
        for (size_t i = 0; i < attn.size(); ++i)
            max_abs_diff_ = std::max(max_abs_diff_, double(std::fabs(attn.storage()[i] - fast_.storage()[i])));
        double largest = 0;
        for (float y : attn.storage()) largest = std::max(largest, double(std::fabs(y)));
        rel_diff_ = largest > 0 ? max_abs_diff_ / largest : 0.0;

        // Dai et al.'s split at the last position: demonstrations [0, n_demos), query tokens after.
        delta_icl_ = outer_product_sum(v, k, 0, n_demos_);
        w_zsl_ = outer_product_sum(v, k, n_demos_, T);
        const float* q_last = row(q, T - 1);
        const std::vector<float> a = matvec(delta_icl_, q_last), b = matvec(w_zsl_, q_last);
        for (int c = 0; c < d_head; ++c)
            split_diff_ = std::max(split_diff_, double(std::fabs(a[c] + b[c] - attn(T - 1, c))));

        const Matrix soft = softmax_attention_causal(q, k, v);
        compare(row(attn, T - 1), row(soft, T - 1), d_head, softmax_rel_err_, softmax_cos_);

        // The gap over many draws of tokens and projections from the same distributions
        // (draw 0 is the one above), at the chosen scale and along a geometric grid of
        // scales 0.05 .. 3. The projections are linear, so one projection at scale 1 per
        // draw serves every scale.
        const int draws = p.i("draws");
        const float scale = p.f("input_scale");
        constexpr int kGrid = 25;
        std::vector<double> cos_d, rel_d, scaled_d, centred_d;
        std::vector<std::vector<double>> grid_rel(kGrid), grid_cos(kGrid), grid_centred(kGrid);
        for (int dr = 0; dr < draws; ++dr) {
            Rng g(ctx_.seed, 1000 + uint64_t(dr));  // draw 0 reuses the tokens and projections above
            Matrix tk = dr == 0 ? tokens : random_normal(g, T, d_model, 1.0f);
            Matrix wq = dr == 0 ? w_q : random_normal(g, d_model, d_head, proj_std);
            Matrix wk = dr == 0 ? w_k : random_normal(g, d_model, d_head, proj_std);
            Matrix wv = dr == 0 ? w_v : random_normal(g, d_model, d_head, proj_std);
            const Matrix q1 = matmul(tk, wq), k1 = matmul(tk, wk), v1 = matmul(tk, wv);
            const float* ql = row(q1, T - 1);
            auto add = [&](float s, std::vector<double>& rel_out, std::vector<double>& cos_out, std::vector<double>& cen_out) {
                const LastOutputs o = last_outputs(k1, v1, ql, s);
                double rel, cos, cen, cen_cos;
                compare_d(o.linear, o.softmax, rel, cos);
                compare_d(o.centred, o.softmax, cen, cen_cos);
                rel_out.push_back(rel);
                cos_out.push_back(cos);
                cen_out.push_back(cen);
            };
            add(scale, rel_d, cos_d, centred_d);
            scaled_d.push_back(std::sqrt(std::max(0.0, 1.0 - cos_d.back() * cos_d.back())));
            for (int gi = 0; gi < kGrid; ++gi)
                add(0.05f * std::pow(60.0f, gi / float(kGrid - 1)), grid_rel[gi], grid_cos[gi], grid_centred[gi]);
        }
        draw_cos_ = {quantile(cos_d, 0.25), quantile(cos_d, 0.5), quantile(cos_d, 0.75)};
        draw_scaled_ = {quantile(scaled_d, 0.25), quantile(scaled_d, 0.5), quantile(scaled_d, 0.75)};
        draw_rel_ = {quantile(rel_d, 0.25), quantile(rel_d, 0.5), quantile(rel_d, 0.75)};
        centred_median_ = quantile(centred_d, 0.5);
        int below = 0;
        for (double c : cos_d) below += c < cos_d[0];
        seed_cos_rank_ = double(below) / draws;
        for (int gi = 0; gi < kGrid; ++gi) {
            const double x = 0.05 * std::pow(60.0, gi / double(kGrid - 1));
            sweep_rel_.x.push_back(x);
            sweep_rel_.y.push_back(quantile(grid_rel[gi], 0.5));
            sweep_cos_.x.push_back(x);
            sweep_cos_.y.push_back(quantile(grid_cos[gi], 0.5));
            sweep_cos_.y_err.push_back(0.5 * (quantile(grid_cos[gi], 0.75) - quantile(grid_cos[gi], 0.25)));
            sweep_centred_.x.push_back(x);
            sweep_centred_.y.push_back(quantile(grid_centred[gi], 0.5));
        }
    }


    std::vector<Panel> draw() const override {
        std::vector<Panel> panels;
        const Texts& msg = ctx_.text;
        const int T = rows(fast_), shown = std::min(ctx_.params.i("show_after"), n_demos_);

        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"max_abs_diff", max_abs_diff_, "",
                           msg("scalar.max_abs_diff.help")});
        s.items.push_back({"rel_diff", rel_diff_, "",
                           msg("scalar.rel_diff.help")});
        s.items.push_back({"split_diff", split_diff_, "",
                           msg("scalar.split_diff.help")});
        s.items.push_back({"softmax_rel_err", softmax_rel_err_, "",
                           msg("scalar.softmax_rel_err.help")});
        s.items.push_back({"softmax_cos", softmax_cos_, "",
                           msg("scalar.softmax_cos.help")});
        s.items.push_back({"tokens", double(T), "", msg("scalar.tokens.help")});
        // Over the draws (quartiles); in the same panel so every scalar is found in one place.
        ScalarsPanel& g = s;
        const char* q_name[3] = {"_q1", "_median", "_q3"};
        const char* q_key[3] = {"quartile.q1", "quartile.median", "quartile.q3"};
        for (int i = 0; i < 3; ++i)
            g.items.push_back({std::string("cos") + q_name[i], draw_cos_[i], "",
                               msg("scalar.cos_quartile.help", {{"quartile", msg(q_key[i])}})});
        for (int i = 0; i < 3; ++i)
            g.items.push_back({std::string("scaled_err") + q_name[i], draw_scaled_[i], "",
                               msg("scalar.scaled_err_quartile.help", {{"quartile", msg(q_key[i])}})});
        g.items.push_back({"rel_err_median", draw_rel_[1], "",
                           msg("scalar.rel_err_median.help")});
        g.items.push_back({"centred_err_median", centred_median_, "",
                           msg("scalar.centred_err_median.help")});
        g.items.push_back({"seed_cos_rank", seed_cos_rank_, "",
                           msg("scalar.seed_cos_rank.help")});
        panels.push_back(s);

        // The sweep first: it is the main chart, the one "What to see" points to. In two
        // panels: relative errors run over decades (to tens at a large scale), the cosine
        // stays in [-1, 1]; on one axis the cosine would lie flat.
        LinesPanel sweep;
        sweep.title = msg("panel.sweep.title");
        sweep.x_label = msg("axis.scale");
        sweep.y_label = msg("axis.rel_err");
        sweep.log_x = true;
        sweep.log_y = true;
        Series rel = sweep_rel_, cos = sweep_cos_, cen = sweep_centred_;
        rel.name = msg("axis.rel_err");
        cos.name = msg("series.cos");
        cen.name = msg("series.cen");
        sweep.series = {rel, cen};
        panels.push_back(sweep);
        LinesPanel cosine;
        cosine.title = msg("panel.cosine.title");
        cosine.x_label = msg("axis.scale");
        cosine.y_label = msg("panel.cosine.y");
        cosine.log_x = true;
        cosine.series = {cos};
        panels.push_back(cosine);

        const auto key_labels = numbered_labels("k", cols(history_.front()));
        const auto value_labels = numbered_labels("v", rows(history_.front()));
        panels.push_back(heatmap_of(
            history_[static_cast<size_t>(shown - 1)],
            msg("panel.history.title", {{"n", shown}}),
            msg("axis.key"), msg("axis.value"), true, value_labels, key_labels));
        panels.push_back(heatmap_of(delta_icl_, msg("panel.delta_icl.title"),
                                      msg("axis.key"), msg("axis.value"), true, value_labels, key_labels));
        panels.push_back(heatmap_of(w_zsl_, msg("panel.zsl.title"),
                                      msg("axis.key"), msg("axis.value"), true, value_labels, key_labels));

        LinesPanel growth;
        growth.title = msg("panel.growth.title");
        growth.x_label = msg("panel.growth.x");
        growth.y_label = "||W_t||_F";
        Series norm{"||W_t||_F", {}, {}, {}, false};
        for (int t = 0; t < T; ++t) {
            double sq = 0;
            for (float w : history_[t].storage()) sq += double(w) * w;
            norm.x.push_back(t + 1);
            norm.y.push_back(std::sqrt(sq));
        }
        growth.series = {norm};
        panels.push_back(growth);

        panels.push_back(guide_note(msg));
        return panels;
    }

private:
    DemoContext ctx_;
    int n_demos_ = 0;
    Matrix fast_, delta_icl_, w_zsl_;
    std::vector<Matrix> history_;
    Series sweep_rel_, sweep_cos_, sweep_centred_;
    std::array<double, 3> draw_cos_{}, draw_scaled_{}, draw_rel_{};  // quartiles over the draws
    double centred_median_ = 0, seed_cos_rank_ = 0;
    double max_abs_diff_ = 0, rel_diff_ = 0, split_diff_ = 0, softmax_rel_err_ = 0, softmax_cos_ = 0;
};

const DemoDef attention_dual_def = [] {
    DemoDef d;
    d.id = "attention_dual";
    d.paper = "Dai et al. 2023; Irie, Csordás, Schmidhuber 2022";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("d_model", 2, 32, 8, 1),
        ParamSpec::integer("d_head", 2, 16, 6, 1),
        ParamSpec::integer("n_demos", 1, 24, 6, 1),
        ParamSpec::integer("n_query_tokens", 1, 8, 2, 1),
        ParamSpec::real("input_scale", 0.05, 3, 1, 0.05),
        ParamSpec::integer("show_after", 1, 24, 6, 1),
        ParamSpec::integer("draws", 1, 2000, 1000, 1),
    };
    d.start = start_session<AttentionDualSession>;
    return d;
}();
ICL_REGISTER_DEMO(attention_dual_def);

}  // namespace
}  // namespace icl

// icl_decomposition (Dai et al. 2023): in the shipped task model, every attention head's
// output at the query split into W_ZSL q + ΔW_ICL q under relaxed linear attention (an
// identity, checked to float precision), and that linear form set against the softmax
// output the head really computes — the approximation the reading note doubts, put to the test.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/icl_split.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

class DecompositionSession : public AnalyticSession {
public:
    DecompositionSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}

    void compute() override {
        const tasks::Suite& s = tasks::suite();
        const int task = s.find_task(ctx_.params.s("task"));
        const int k = ctx_.params.i("shots"), P = ctx_.params.i("prompts");
        Rng rng(ctx_.seed, 21);
        std::vector<int> tokens;
        int T = 0;
        tasks::Sequence first;  // the prompts share one layout
        for (int p = 0; p < P; ++p) {
            tasks::PromptOptions o;
            o.shots = k;
            auto seq = tasks::make_prompt(s, task, o, rng);
            if (!seq) { error_ = seq.error().message; return; }
            T = (int)seq.value().tokens.size();
            if (p == 0) first = seq.value();
            tokens.insert(tokens.end(), seq.value().tokens.begin(), seq.value().tokens.end());
            targets_.push_back(seq.value().slots.back().target);
        }
        gpt::Activations acts;
        if (Status st = gpt::forward(model_, acts, tokens.data(), nullptr, P, T); !st) { error_ = st.error().message; return; }
        // Layout: BOS, then k demonstrations (x → y ;), then the query x →.
        const int demo_from = first.demos_begin(), demo_to = first.demos_end(), t = first.query.arrow;
        const int L = model_.config.layers, H = model_.config.heads;
        rel_.assign((size_t)L * H, 0.0);
        scaled_.assign((size_t)L * H, 0.0);
        cos_.assign((size_t)L * H, 0.0);
        share_.assign((size_t)L * H, 0.0);
        on_demos_.assign((size_t)L * H, 0.0);
        // The same queries with no demonstrations (BOS, x, →): the zero-shot pass. From
        // layer 1 on, the ICL pass's keys and values at X already carry the
        // demonstrations, so its W_ZSL q is not what the model computes zero-shot.
        std::vector<int> zero;
        for (int b = 0; b < P; ++b)
            for (int i : {0, first.query.x, first.query.arrow}) zero.push_back(tokens[(size_t)b * T + (size_t)i]);
        gpt::Activations zacts;
        if (Status st = gpt::forward(model_, zacts, zero.data(), nullptr, P, 3); !st) { error_ = st.error().message; return; }
        zsl_cos_.assign((size_t)model_.config.layers, 0.0);
        zsl_rel_.assign((size_t)model_.config.layers, 0.0);
        for (int b = 0; b < P; ++b) {
            const float* logits = acts.logits_ptr() + ((size_t)b * T + t) * model_.config.vocab;
            correct_ += tasks::score_logits(logits, model_.config.vocab, targets_[(size_t)b]).correct ? 1.0 / P : 0.0;
            for (int l = 0; l < L; ++l)
                for (int h = 0; h < H; ++h) {
                    const HeadSplit sp = split_head(acts, model_.config, l, h, b, t, demo_from, demo_to);
                    const size_t i = (size_t)l * H + h;
                    identity_err_ = std::max(identity_err_, sp.identity_err);
                    rel_[i] += sp.rel_err / P;
                    scaled_[i] += sp.rel_err_scaled / P;
                    cos_[i] += sp.cosine / P;
                    share_[i] += sp.demo_norm_ratio / P;
                    on_demos_[i] += sp.softmax_on_demos / P;
                    if (b == 0 && l == L - 1 && h == 0) example_ = sp;
                    // every position of the zero-shot prompt is X: its F(q) is its W_ZSL q
                    const HeadSplit z = split_head(zacts, model_.config, l, h, b, 2, 1, 1);
                    double diff = 0, zz = 0;
                    for (size_t e = 0; e < z.zsl.size(); ++e) {
                        diff += std::pow((double)sp.zsl[e] - z.zsl[e], 2);
                        zz += (double)z.zsl[e] * z.zsl[e];
                    }
                    zsl_cos_[(size_t)l] += metrics::cosine(sp.zsl, z.zsl) / (P * H);
                    zsl_rel_[(size_t)l] += (zz > 0 ? std::sqrt(diff / zz) : 0.0) / (P * H);
                }
        }
    }
    std::vector<Panel> draw() const override;

private:
    DemoContext ctx_;
    gpt::Model model_;
    std::vector<int> targets_;
    std::vector<double> rel_, scaled_, cos_, share_, on_demos_;  // (L*H), means over prompts
    std::vector<double> zsl_cos_, zsl_rel_;  // (L) W_ZSL q of the ICL pass vs the zero-shot pass, means over heads and prompts
    double identity_err_ = 0, correct_ = 0;
    HeadSplit example_;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::vector<Panel> DecompositionSession::draw() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    const int L = model_.config.layers, H = model_.config.heads;
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"identity_err", identity_err_, "",
                       msg("scalar.identity_err.help")});
    s.items.push_back({"rel_err", metrics::mean(rel_), "", msg("scalar.rel_err.help")});
    s.items.push_back({"rel_err_median", median(rel_), "", msg("scalar.rel_err_median.help")});
    s.items.push_back({"rel_err_scaled", metrics::mean(scaled_), "",
                       msg("scalar.rel_err_scaled.help")});
    s.items.push_back({"cosine", metrics::mean(cos_), "", msg("scalar.cosine.help")});
    s.items.push_back({"demo_norm_ratio", metrics::mean(share_), "",
                       msg("scalar.demo_norm_ratio.help")});
    s.items.push_back({"softmax_on_demos", metrics::mean(on_demos_), "", msg("scalar.softmax_on_demos.help")});
    s.items.push_back({"accuracy", correct_, "", msg("scalar.accuracy.help")});
    panels.push_back(s);

    ScalarsPanel z{msg("panel.zsl.title"), {}};
    for (int l = 0; l < L; ++l) {
        const std::string ls = std::to_string(l);
        z.items.push_back({"zsl_cos_L" + ls, zsl_cos_[(size_t)l], "",
                           msg("scalar.zsl_cos.help", {{"layer", l}})});
        z.items.push_back({"zsl_rel_L" + ls, zsl_rel_[(size_t)l], "",
                           msg("scalar.zsl_rel.help", {{"layer", l}})});
    }
    panels.push_back(z);

    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    auto heat = [&](const char* key, const std::vector<double>& v, bool diverging) {
        return HeatmapPanel{msg(key), msg("axis.head"), msg("axis.layer"), L, H, v, rows, cols, diverging};
    };
    panels.push_back(heat("heat.rel", rel_, false));
    panels.push_back(heat("heat.scaled", scaled_, false));
    panels.push_back(heat("heat.cos", cos_, true));
    panels.push_back(heat("heat.norm", share_, false));
    panels.push_back(heat("heat.demos", on_demos_, false));

    // one head's vectors side by side (first prompt, last layer, head 0)
    LinesPanel ex{msg("panel.example.title"),
                  msg("panel.example.x"), msg("panel.example.y"), false, false, {}};
    std::vector<double> xs;
    for (size_t i = 0; i < example_.zsl.size(); ++i) xs.push_back((double)i);
    auto as_d = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
    ex.series.push_back({"W_ZSL q", xs, as_d(example_.zsl), {}, false});
    ex.series.push_back({"ΔW_ICL q", xs, as_d(example_.icl), {}, false});
    ex.series.push_back({"F(q) = W_ZSL q + ΔW_ICL q", xs, as_d(example_.linear), {}, true});
    ex.series.push_back({msg("series.softmax"), xs, as_d(example_.softmax), {}, false});
    panels.push_back(ex);
    panels.push_back(guide_note(msg));
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    return std::unique_ptr<Session>(new DecompositionSession(ctx, std::move(m.value())));
}

const DemoDef kIclDecomposition = [] {
    DemoDef d;
    d.id = "icl_decomposition";
    d.paper = "Dai et al. 2023";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", tasks::task_ids(), "antonym"),
        ParamSpec::integer("shots", 1, 16, 8, 1),
        ParamSpec::integer("prompts", 1, 32, 16, 1),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kIclDecomposition);

}  // namespace
}  // namespace icl

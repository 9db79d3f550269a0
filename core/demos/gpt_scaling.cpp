// gpt_scaling: how many parameters a GPT-2-style decoder has, from (L, d, V, T), and
// what "scaling the GPT-2 recipe" meant in numbers (GPT-2 1.5B -> GPT-3 175B).
// Sizes of the published models: Radford et al. 2019 (GPT-2) and Brown et al. 2020
// (GPT-3, Table 2.1). The counts here come from icl/param_count.h's formula.
#include <cmath>
#include <cstdio>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/param_count.h"

namespace icl {
namespace {

struct PublishedModel {
    const char* name;
    int layers, width, vocab, context;
    double nominal;  // the size the paper names
};

const PublishedModel kGpt2Xl = {"GPT-2 1.5B", 48, 1600, 50257, 1024, 1.5e9};
// Brown et al. 2020, Table 2.1: the eight GPT-3 sizes (all with context 2048).
const PublishedModel kGpt3[8] = {
    {"GPT-3 Small", 12, 768, 50257, 2048, 125e6},   {"GPT-3 Medium", 24, 1024, 50257, 2048, 350e6},
    {"GPT-3 Large", 24, 1536, 50257, 2048, 760e6},  {"GPT-3 XL", 24, 2048, 50257, 2048, 1.3e9},
    {"GPT-3 2.7B", 32, 2560, 50257, 2048, 2.7e9},   {"GPT-3 6.7B", 32, 4096, 50257, 2048, 6.7e9},
    {"GPT-3 13B", 40, 5140, 50257, 2048, 13e9},     {"GPT-3 175B", 96, 12288, 50257, 2048, 175e9},
};

std::string human(double n) {
    char buf[32];
    if (n >= 1e9) std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
    else if (n >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
    else if (n >= 1e3) std::snprintf(buf, sizeof buf, "%.1fK", n / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f", n);
    return buf;
}

double count(const PublishedModel& m) {
    return static_cast<double>(gpt_param_count(m.layers, m.width, m.vocab, m.context).total());
}

class ScalingSession : public Session {
public:
    explicit ScalingSession(const DemoContext& ctx) : ctx_(ctx) {}
    void step(int) override { done_ = true; }
    bool done() const override { return done_; }

    std::vector<Panel> panels() const override {
        const Lang lang = ctx_.lang;
        const Params& p = ctx_.params;
        const ParamCount c = gpt_param_count(p.i("layers"), p.i("width"), p.i("vocab"), p.i("context"));
        const double total = static_cast<double>(c.total());
        std::vector<Panel> panels;

        ScalarsPanel s{tr(lang, "Your configuration", "지금 설정한 모델"), {}};
        s.items.push_back({"params", total, "", tr(lang, "total parameters", "전체 parameter 수")});
        s.items.push_back({"block_share", (c.attention + c.mlp + c.layernorm) / total, "",
                           tr(lang, "share of parameters inside the L blocks", "L개 block 안에 있는 parameter 비율")});
        s.items.push_back({"embedding_share", (c.token_embedding + c.position_embedding) / total, "",
                           tr(lang, "share in token + position embeddings", "token + position embedding 비율")});
        s.items.push_back({"gpt3_over_gpt2", count(kGpt3[7]) / count(kGpt2Xl), "x",
                           tr(lang, "GPT-3 175B / GPT-2 1.5B by the formula", "공식으로 센 GPT-3 175B / GPT-2 1.5B")});
        panels.push_back(s);

        panels.push_back(NotePanel{
            tr(lang, "The formula", "공식"),
            tr(lang,
               "params = V·d + T·d + L·(12·d² + 13·d) + 2·d. Each block has 4·d² attention weights (Q, K, V, output) "
               "and 8·d² MLP weights (d → 4d → d); the LM head reuses the token embedding. At GPT-3 scale 12·L·d² "
               "is almost everything: widen d and the count grows with its square.",
               "params = V·d + T·d + L·(12·d² + 13·d) + 2·d. block마다 attention weight가 4·d² (Q, K, V, output), "
               "MLP weight가 8·d² (d → 4d → d)이고, LM head는 token embedding을 같이 씁니다. GPT-3 규모에서는 "
               "12·L·d²가 거의 전부이므로, 폭 d를 넓히면 parameter 수는 그 제곱으로 늘어납니다.")});

        TablePanel cmp{tr(lang, "GPT-2 → GPT-3: scaling the same recipe", "GPT-2 → GPT-3: 같은 recipe를 키우기"),
                       {tr(lang, "model", "모델"), tr(lang, "layers", "layer 수"), tr(lang, "width d", "폭 d"),
                        tr(lang, "context", "context"), tr(lang, "params (formula)", "parameter (공식)"),
                        tr(lang, "named in the paper", "논문 표기")},
                       {}};
        for (const PublishedModel* m : {&kGpt2Xl, &kGpt3[7]})
            cmp.rows.push_back({m->name, format_number(m->layers, "%.0f"), format_number(m->width, "%.0f"), format_number(m->context, "%.0f"), human(count(*m)), human(m->nominal)});
        cmp.rows.push_back({tr(lang, "ratio", "배율"), format_number(96.0 / 48, "%.0fx"), format_number(12288.0 / 1600, "%.2fx"),
                            format_number(2048.0 / 1024, "%.0fx"), format_number(count(kGpt3[7]) / count(kGpt2Xl), "%.0fx"),
                            format_number(175e9 / 1.5e9, "%.0fx")});
        panels.push_back(cmp);

        TablePanel sizes{tr(lang, "The eight GPT-3 sizes (Brown et al. 2020, Table 2.1)",
                            "GPT-3의 8가지 크기 (Brown et al. 2020, Table 2.1)"),
                         {tr(lang, "model", "모델"), "L", "d", tr(lang, "named", "논문 표기"),
                          tr(lang, "formula", "공식"), tr(lang, "difference", "차이")},
                         {}};
        LinesPanel share{tr(lang, "Where the parameters are", "parameter는 어디에 있나"),
                         tr(lang, "total parameters", "전체 parameter 수"), tr(lang, "share of all parameters", "전체 대비 비율"),
                         true, false, {}};
        Series emb{tr(lang, "embeddings (V·d + T·d)", "embedding (V·d + T·d)"), {}, {}, {}, false};
        Series blocks{tr(lang, "blocks (≈ 12·L·d²)", "block (≈ 12·L·d²)"), {}, {}, {}, false};
        for (const PublishedModel& m : kGpt3) {
            const ParamCount mc = gpt_param_count(m.layers, m.width, m.vocab, m.context);
            const double t = static_cast<double>(mc.total());
            sizes.rows.push_back({m.name, format_number(m.layers, "%.0f"), format_number(m.width, "%.0f"), human(m.nominal), human(t),
                                  format_number(100.0 * (t - m.nominal) / m.nominal, "%+.1f%%")});
            emb.x.push_back(t);
            emb.y.push_back((mc.token_embedding + mc.position_embedding) / t);
            blocks.x.push_back(t);
            blocks.y.push_back((mc.attention + mc.mlp + mc.layernorm) / t);
        }
        share.series = {emb, blocks};
        panels.push_back(sizes);
        panels.push_back(share);
        return panels;
    }

private:
    DemoContext ctx_;
    bool done_ = false;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    return std::unique_ptr<Session>(new ScalingSession(ctx));
}

const DemoDef kGptScaling = [] {
    DemoDef d;
    d.id = "gpt_scaling";
    d.title_en = "Scaling the GPT-2 recipe: a parameter calculator";
    d.title_ko = "GPT-2 레시피 키우기: parameter 계산기";
    d.summary_en = "Count a GPT-2-style decoder's parameters from layers, width, vocabulary and context, "
            "and compare GPT-2 1.5B with the eight GPT-3 sizes.";
    d.summary_ko = "layer 수, 폭, vocabulary, context로 GPT-2식 decoder의 parameter 수를 세고, "
            "GPT-2 1.5B와 GPT-3의 8가지 크기를 비교합니다.";
    d.paper = "Brown et al. 2020 (GPT-3); Radford et al. 2019 (GPT-2)";
    d.analytic = true;
    d.params = {
        // Largest problem, every size at its max: peak no allocation (a formula) for start + one step
        // (measured by tests/unit/test_bounds.cpp; the budget is 512 MiB of wasm's 1 GB).
        ParamSpec::integer("layers", 1, 128, 96, 1, "number of transformer blocks L", "transformer block 수 L"),
        ParamSpec::integer("width", 16, 16384, 12288, 16, "model width d (embedding size)", "모델 폭 d (embedding 크기)"),
        ParamSpec::integer("vocab", 2, 262144, 50257, 1, "vocabulary size V", "vocabulary 크기 V"),
        ParamSpec::integer("context", 1, 65536, 2048, 1, "context length T (learned positions)",
                           "context 길이 T (학습되는 position 수)"),
    };
    d.start = start;
    return d;
}();
ICL_REGISTER_DEMO(kGptScaling);

}  // namespace
}  // namespace icl

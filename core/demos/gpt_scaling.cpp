// gpt_scaling: how many parameters a GPT-2-style decoder has, from (L, d, V, T), and
// what "scaling the GPT-2 recipe" meant in numbers (GPT-2 1.5B -> GPT-3 175B).
// Sizes of the published models: Radford et al. 2019 (GPT-2) and Brown et al. 2020
// (GPT-3, Table 2.1). The counts here come from icl/param_count.h's formula.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/demo_analytic.h"
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

class ScalingSession : public AnalyticSession {
public:
    explicit ScalingSession(const DemoContext& ctx) : ctx_(ctx) {}

    // The learner's configuration's count and each published model's.
    void compute() override {
        const Params& p = ctx_.params;
        mine_ = gpt_param_count(p.i("layers"), p.i("width"), p.i("vocab"), p.i("context"));
        gpt2_xl_ = count(kGpt2Xl);
        for (const PublishedModel& m : kGpt3) gpt3_.push_back(gpt_param_count(m.layers, m.width, m.vocab, m.context));
    }

    std::vector<Panel> draw() const override {
        const Texts& msg = ctx_.text;
        const ParamCount& c = mine_;
        const double total = static_cast<double>(c.total());
        const double gpt3_175b = static_cast<double>(gpt3_.back().total());
        std::vector<Panel> panels;

        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"params", total, "", msg("axis.params")});
        s.items.push_back({"block_share", (c.attention + c.mlp + c.layernorm) / total, "",
                           msg("scalar.block_share.help")});
        s.items.push_back({"embedding_share", (c.token_embedding + c.position_embedding) / total, "",
                           msg("scalar.embedding_share.help")});
        s.items.push_back({"gpt3_over_gpt2", gpt3_175b / gpt2_xl_, "x",
                           msg("scalar.gpt3_over_gpt2.help")});
        panels.push_back(s);

        panels.push_back(NotePanel{
            msg("note.formula.title"),
            msg("note.formula.text")});

        TablePanel cmp{msg("panel.cmp.title"),
                       {msg("axis.model"), msg("panel.cmp.col.layers"), msg("panel.cmp.col.width"),
                        msg("panel.cmp.col.context"), msg("panel.cmp.col.formula"),
                        msg("panel.cmp.col.named")},
                       {}};
        for (const auto& [m, n] : {std::pair{&kGpt2Xl, gpt2_xl_}, {&kGpt3[7], gpt3_175b}})
            cmp.rows.push_back({m->name, format_number(m->layers, "%.0f"), format_number(m->width, "%.0f"), format_number(m->context, "%.0f"), human(n), human(m->nominal)});
        cmp.rows.push_back({msg("panel.cmp.row.ratio"), format_number(96.0 / 48, "%.0fx"), format_number(12288.0 / 1600, "%.2fx"),
                            format_number(2048.0 / 1024, "%.0fx"), format_number(gpt3_175b / gpt2_xl_, "%.0fx"),
                            format_number(175e9 / 1.5e9, "%.0fx")});
        panels.push_back(cmp);

        TablePanel sizes{msg("panel.sizes.title"),
                         {msg("axis.model"), "L", "d", msg("panel.sizes.col.named"),
                          msg("panel.sizes.col.formula"), msg("panel.sizes.col.difference")},
                         {}};
        LinesPanel share{msg("panel.share.title"),
                         msg("axis.params"), msg("panel.share.y"),
                         true, false, {}};
        Series emb{msg("series.emb"), {}, {}, {}, false};
        Series blocks{msg("series.blocks"), {}, {}, {}, false};
        for (size_t i = 0; i < gpt3_.size(); ++i) {
            const PublishedModel& m = kGpt3[i];
            const ParamCount& mc = gpt3_[i];
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
    ParamCount mine_;
    double gpt2_xl_ = 0;
    std::vector<ParamCount> gpt3_;  // kGpt3's counts, in its order
};

const DemoDef kGptScaling = [] {
    DemoDef d;
    d.id = "gpt_scaling";
    d.paper = "Brown et al. 2020 (GPT-3); Radford et al. 2019 (GPT-2)";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("layers", 1, 128, 96, 1),
        ParamSpec::integer("width", 16, 16384, 12288, 16),
        ParamSpec::integer("vocab", 2, 262144, 50257, 1),
        ParamSpec::integer("context", 1, 65536, 2048, 1),
    };
    d.start = start_session<ScalingSession>;
    return d;
}();
ICL_REGISTER_DEMO(kGptScaling);

}  // namespace
}  // namespace icl

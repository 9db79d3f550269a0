// icl_vs_finetune (Dai et al. 2023, section 5): the same k demonstrations used two ways by
// the shipped task model — in the prompt (ICL), or as a training set for fine-tuning
// only W_K and W_V (SGD, batch 1, one epoch, same order) — compared with the metrics
// of the paper: Rec2FTP, SimAOU against a random update, SimAM and Kendall's τ.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/finetune.h"
#include "icl/gpt_train.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

// What one forward pass shows at its last position.
struct Look {
    bool correct = false;
    std::vector<std::vector<float>> out;  // [layer] heads' outputs (C) before Wo
    std::vector<std::vector<float>> att;  // [layer] attention (H*T) from the last position
    std::vector<int> tokens;
};

Expected<Look> look(const gpt::Model& m, const std::vector<int>& tokens, int target) {
    gpt::Activations acts;
    const int T = (int)tokens.size(), C = m.config.width, H = m.config.heads, V = m.config.vocab;
    if (Status s = gpt::forward(m, acts, tokens.data(), nullptr, 1, T); !s) return s.error();
    Look r;
    r.tokens = tokens;
    r.correct = tasks::score_logits(acts.logits_ptr() + (size_t)(T - 1) * V, V, target).correct;
    for (int l = 0; l < m.config.layers; ++l) {
        const float* o = acts.head_outputs(l) + (size_t)(T - 1) * C;
        r.out.emplace_back(o, o + C);
        std::vector<float> a;
        for (int h = 0; h < H; ++h) {
            const float* row = acts.attention(l, 0, h, H) + (size_t)(T - 1) * T;
            a.insert(a.end(), row, row + T);
        }
        r.att.push_back(a);
    }
    return r;
}

std::vector<std::string> kv_names(const gpt::Model& m) {
    std::vector<std::string> n;
    for (int l = 0; l < m.config.layers; ++l) {
        n.push_back("h" + std::to_string(l) + ".attn.wk");
        n.push_back("h" + std::to_string(l) + ".attn.wv");
    }
    return n;
}

// SGD on W_K and W_V only, batch 1, one epoch over the examples in order; each example
// is "BOS x →" with the loss on y (the prompt's template, causal LM loss).
Status finetune_kv(gpt::Model& m, const std::vector<finetune::Example>& examples, float lr) {
    finetune::Options o;
    o.optimizer.kind = OptimizerConfig::sgd;
    o.optimizer.lr = lr;
    o.optimizer.momentum = 0.0f;
    o.batch = 1;
    o.steps = (int)examples.size();
    o.trainable = kv_names(m);
    o.losses = false;  // only the weights are read
    if (auto r = finetune::finetune(m, examples, o); !r) return r.error();
    return Ok{};
}

class IclVsFtSession : public Session {
public:
    IclVsFtSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)), rng_(ctx.seed, 31) {}

    // One unit = one query: ZSL, ICL, FT, the random update and the leave-one-out runs.
    void step(int budget) override {
        for (int u = 0; u < budget && !done(); ++u) {
            if (Status s = one_query(); !s) error_ = s.error().message;
            ++queries_done_;
        }
    }
    bool done() const override { return queries_done_ >= ctx_.params.i("queries") || !error_.empty(); }
    double progress() const override { return (double)queries_done_ / ctx_.params.i("queries"); }
    std::vector<Panel> panels() const override;

private:
    Status one_query() {
        const tasks::Suite& s = tasks::suite();
        const int task = s.find_task(ctx_.params.s("task")), k = ctx_.params.i("shots");
        const float lr = ctx_.params.f("lr");
        tasks::PromptOptions o;
        o.shots = k;
        auto seq = tasks::make_prompt(s, task, o, rng_);
        if (!seq) return seq.error();
        const tasks::Sequence& icl_prompt = seq.value();
        const std::vector<int>& prompt = icl_prompt.tokens;
        const int T = (int)prompt.size(), target = icl_prompt.slots.back().target;
        std::vector<finetune::Example> demos;
        for (const tasks::Span& d : icl_prompt.pairs) demos.push_back({prompt[(size_t)d.x], prompt[(size_t)d.y]});
        const tasks::Sequence zero_shot = tasks::format_prompt({}, prompt[(size_t)icl_prompt.query.x]);
        const std::vector<int>& zs = zero_shot.tokens;

        auto zsl = look(model_, zs, target);
        auto icl = look(model_, prompt, target);
        if (!zsl) return zsl.error();
        if (!icl) return icl.error();
        gpt::Model ft_model = model_;
        if (Status st = finetune_kv(ft_model, demos, lr); !st) return st;
        auto ft = look(ft_model, zs, target);
        if (!ft) return ft.error();
        // random update: each W_K / W_V moved by a Gaussian direction of the FT update's norm
        gpt::Model rnd_model = model_;
        for (const std::string& name : kv_names(model_)) {
            const gpt::TensorInfo* t = model_.find(name);
            const double dn = finetune::delta_norm(ft_model.params.data() + t->offset, model_.params.data() + t->offset, t->size);
            double rn = 0;
            std::vector<float> dir(t->size);
            for (size_t i = 0; i < t->size; ++i) {
                dir[i] = rng_.normal();
                rn += (double)dir[i] * dir[i];
            }
            const double scale = rn > 0 ? dn / std::sqrt(rn) : 0;
            for (size_t i = 0; i < t->size; ++i) rnd_model.params[t->offset + i] += (float)(scale * dir[i]);
        }
        auto rnd = look(rnd_model, zs, target);
        if (!rnd) return rnd.error();

        zsl_.push_back(zsl.value().correct);
        icl_.push_back(icl.value().correct);
        ft_.push_back(ft.value().correct);
        const int L = model_.config.layers, H = model_.config.heads, C = model_.config.width;
        double aou = 0, aou_rnd = 0, am_before = 0, am_after = 0;
        for (int l = 0; l < L; ++l) {
            aou += metrics::update_cosine(zsl.value().out[(size_t)l].data(), icl.value().out[(size_t)l].data(),
                                          ft.value().out[(size_t)l].data(), (size_t)C) / L;
            aou_rnd += metrics::update_cosine(zsl.value().out[(size_t)l].data(), icl.value().out[(size_t)l].data(),
                                              rnd.value().out[(size_t)l].data(), (size_t)C) / L;
            // SimAM: per head, the attention to the query's own tokens (BOS, x, →): all three
            // tokens of the zero-shot prompt, the same three of the ICL prompt
            const tasks::Span& q = icl_prompt.query;
            for (int h = 0; h < H; ++h) {
                const float* a_icl = icl.value().att[(size_t)l].data() + (size_t)h * T;
                const float own[3] = {a_icl[0], a_icl[q.x], a_icl[q.arrow]};
                const float* a_zsl = zsl.value().att[(size_t)l].data() + (size_t)h * 3;
                const float* a_ft = ft.value().att[(size_t)l].data() + (size_t)h * 3;
                am_before += metrics::cosine(own, a_zsl, 3) / (L * H);
                am_after += metrics::cosine(own, a_ft, 3) / (L * H);
            }
        }
        simaou_.push_back(aou);
        simaou_rnd_.push_back(aou_rnd);
        simam_before_.push_back(am_before);
        simam_after_.push_back(am_after);
        // Kendall's τ over the k demonstrations: ICL's attention to each (mean over
        // layers and heads of the mass on its 4 tokens) vs its leave-one-out influence on
        // FT (Σ over layers of ||h_FT − h_FT without it||).
        if (k >= 2) {
            std::vector<double> attention((size_t)k, 0.0), influence((size_t)k, 0.0);
            for (int j = 0; j < k; ++j) {
                for (int l = 0; l < L; ++l)
                    for (int h = 0; h < H; ++h)
                        for (int p = icl_prompt.pairs[(size_t)j].x; p <= icl_prompt.pairs[(size_t)j].sep; ++p)
                            attention[(size_t)j] += icl.value().att[(size_t)l][(size_t)h * T + p] / (L * H);
                std::vector<finetune::Example> without = demos;
                without.erase(without.begin() + j);
                gpt::Model loo = model_;
                if (Status st = finetune_kv(loo, without, lr); !st) return st;
                auto lk = look(loo, zs, target);
                if (!lk) return lk.error();
                for (int l = 0; l < L; ++l) {
                    double d = 0;
                    for (int c = 0; c < C; ++c)
                        d += std::pow((double)ft.value().out[(size_t)l][(size_t)c] - lk.value().out[(size_t)l][(size_t)c], 2);
                    influence[(size_t)j] += std::sqrt(d);
                }
            }
            kendall_.push_back(metrics::kendall_tau(attention, influence).value());
        }
        return Ok{};
    }

    DemoContext ctx_;
    gpt::Model model_;
    Rng rng_;
    int queries_done_ = 0;
    std::vector<bool> zsl_, icl_, ft_;
    std::vector<double> simaou_, simaou_rnd_, simam_before_, simam_after_, kendall_;
};

double accuracy(const std::vector<bool>& v) {
    double s = 0;
    for (bool x : v) s += x;
    return v.empty() ? 0 : s / v.size();
}

std::vector<Panel> IclVsFtSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    const auto rec = metrics::rec2ftp(zsl_, ft_, icl_).value();
    ScalarsPanel s{msg("icl_vs_fine_tuning"), {}};
    s.items.push_back({"zsl_acc", accuracy(zsl_), "", msg("zero_shot_accuracy")});
    s.items.push_back({"ft_acc", accuracy(ft_), "", msg("accuracy_after_fine_tuning")});
    s.items.push_back({"icl_acc", accuracy(icl_), "", msg("accuracy_with_the_k")});
    s.items.push_back({"rec2ftp", rec.value, "", msg("rec2ftp_of_the_queries")});
    s.items.push_back({"ft_fixed", (double)rec.ft_fixed, "", msg("queries_ft_fixes_rec2ftp")});
    s.items.push_back({"simaou", metrics::mean(simaou_), "", msg("simaou_cos_h_icl")});
    s.items.push_back({"simaou_random", metrics::mean(simaou_rnd_), "", msg("the_same_with_a")});
    s.items.push_back({"simam_zsl", metrics::mean(simam_before_), "", msg("simam_before_cos_icl")});
    s.items.push_back({"simam_ft", metrics::mean(simam_after_), "", msg("simam_after_cos_icl")});
    s.items.push_back({"simam_rise", metrics::mean(simam_after_) - metrics::mean(simam_before_), "",
                       msg("simam_ft_simam_zsl")});
    s.items.push_back({"kendall_tau", metrics::mean(kendall_), "", msg("kendall_icl_attention_to")});
    panels.push_back(s);
    panels.push_back(NotePanel{
        msg("what_to_see"),
        msg("fine_tuning_here_follows")});
    TablePanel t{msg("beside_dai_et_al"),
                 {msg("metric"), msg("this_model"), "GPT 1.3B", "GPT 2.7B"}, {}};
    t.rows.push_back({"Rec2FTP", format_number(rec.value, "%.3f"), "0.8556", "0.8939"});
    t.rows.push_back({"SimAOU", format_number(metrics::mean(simaou_), "%.3f"), "0.186", "0.225"});
    t.rows.push_back({msg("simaou_random_update"), format_number(metrics::mean(simaou_rnd_), "%.3f"), "≈ 0", "≈ 0"});
    t.rows.push_back({msg("simam_icl_zsl_icl"), format_number(metrics::mean(simam_before_), "%.3f") + " → " + format_number(metrics::mean(simam_after_), "%.3f"),
                      "0.338 → 0.442", "0.355 → 0.434"});
    t.rows.push_back({"Kendall τ", format_number(metrics::mean(kendall_), "%.3f"), "0.193", "0.214"});
    panels.push_back(t);
    BarsPanel acc{msg("accuracy"), msg("accuracy_2"), {"ZSL", "FT", "ICL"}, {accuracy(zsl_), accuracy(ft_), accuracy(icl_)}, {}};
    panels.push_back(acc);
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    return std::unique_ptr<Session>(new IclVsFtSession(ctx, std::move(m.value())));
}

const DemoDef kIclVsFinetune = [] {
    DemoDef d;
    d.id = "icl_vs_finetune";
    d.paper = "Dai et al. 2023";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", tasks::task_ids(), "continent"),
        ParamSpec::integer("shots", 1, 16, 8, 1),
        ParamSpec::integer("queries", 1, 64, 24, 1),
        ParamSpec::real("lr", 1e-4, 1, 3e-3, 1e-4),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kIclVsFinetune);

}  // namespace
}  // namespace icl

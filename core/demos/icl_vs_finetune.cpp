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
    const Lang lang = ctx_.lang;
    std::vector<Panel> panels;
    const auto rec = metrics::rec2ftp(zsl_, ft_, icl_).value();
    ScalarsPanel s{tr(lang, "ICL vs fine-tuning W_K, W_V (means over queries)", "ICL 대 W_K, W_V fine-tuning (query 평균)"), {}};
    s.items.push_back({"zsl_acc", accuracy(zsl_), "", tr(lang, "zero-shot accuracy", "zero-shot 정확도")});
    s.items.push_back({"ft_acc", accuracy(ft_), "", tr(lang, "accuracy after fine-tuning on the k demonstrations, asked zero-shot",
                                                      "k개 demonstration으로 fine-tuning 후 zero-shot 정확도")});
    s.items.push_back({"icl_acc", accuracy(icl_), "", tr(lang, "accuracy with the k demonstrations in the prompt", "prompt에 k개 demonstration을 넣은 정확도")});
    s.items.push_back({"rec2ftp", rec.value, "", tr(lang, "Rec2FTP: of the queries FT fixes (ZSL wrong, FT right), the share ICL fixes too",
                                                   "Rec2FTP: FT가 고친 query(ZSL 틀림, FT 맞음) 중 ICL도 고친 비율")});
    s.items.push_back({"ft_fixed", (double)rec.ft_fixed, "", tr(lang, "queries FT fixes (Rec2FTP's denominator)", "FT가 고친 query 수 (Rec2FTP의 분모)")});
    s.items.push_back({"simaou", metrics::mean(simaou_), "", tr(lang, "SimAOU: cos(h_ICL − h_ZSL, h_FT − h_ZSL), mean over layers and queries",
                                                       "SimAOU: cos(h_ICL − h_ZSL, h_FT − h_ZSL), layer와 query 평균")});
    s.items.push_back({"simaou_random", metrics::mean(simaou_rnd_), "", tr(lang, "the same with a random update of W_K, W_V of FT's norm",
                                                                  "FT와 같은 크기의 무작위 W_K, W_V update로 잰 같은 값")});
    s.items.push_back({"simam_zsl", metrics::mean(simam_before_), "", tr(lang, "SimAM before: cos(ICL, ZSL attention to the query's own tokens)",
                                                                "SimAM 전: cos(ICL, ZSL의 query 자신의 token에 대한 attention)")});
    s.items.push_back({"simam_ft", metrics::mean(simam_after_), "", tr(lang, "SimAM after: cos(ICL, FT attention to the query's own tokens)",
                                                              "SimAM 후: cos(ICL, FT의 query 자신의 token에 대한 attention)")});
    s.items.push_back({"simam_rise", metrics::mean(simam_after_) - metrics::mean(simam_before_), "",
                       tr(lang, "simam_ft − simam_zsl: how far FT moves attention towards ICL's (Dai et al.: +0.10 / +0.08)",
                          "simam_ft − simam_zsl: FT가 attention을 ICL 쪽으로 옮긴 정도 (Dai et al.: +0.10 / +0.08)")});
    s.items.push_back({"kendall_tau", metrics::mean(kendall_), "", tr(lang, "Kendall τ: ICL attention to each demonstration vs its leave-one-out influence on FT",
                                                             "Kendall τ: 각 demonstration에 대한 ICL attention 대 FT에서 그것을 뺐을 때의 영향")});
    panels.push_back(s);
    panels.push_back(NotePanel{
        tr(lang, "What to see", "무엇을 볼까"),
        tr(lang,
           "Fine-tuning here follows Dai et al. 2023: only W_K and W_V of every layer change, plain SGD, batch 1, one epoch "
           "over the same k demonstrations in the same order, each as \"BOS x → y\" with the loss on y. h is the heads' "
           "output at the last token before W_O; SimAOU is positive when ICL moves it the way FT does, and the random "
           "update of equal norm is the ≈ 0 baseline. SimAM compares attention over the query's own three tokens. Our "
           "Kendall τ differs from the paper's: it ranks the demonstrations by ICL attention and by how much leaving each "
           "out of FT moves h. The paper's figures are for GPT 1.3B and 2.7B on six classification datasets; this model "
           "has about 0.2M parameters and one word task, so read the table as the same measurements at a far smaller "
           "scale, not as a replication. With few queries FT fixes, Rec2FTP rests on few cases (ft_fixed says how many).",
           "여기서 fine-tuning은 Dai et al. 2023을 따릅니다. 모든 layer의 W_K와 W_V만 바뀌고, 일반 SGD, batch 1, 같은 k개 "
           "demonstration을 같은 순서로 한 epoch, 각 예시는 \"BOS x → y\"이고 loss는 y에만 겁니다. h는 마지막 token에서 W_O "
           "전의 head 출력입니다. ICL이 h를 FT와 같은 쪽으로 움직이면 SimAOU가 양수이고, 같은 크기의 무작위 update가 ≈ 0인 "
           "기준선입니다. SimAM은 query 자신의 token 세 개에 대한 attention을 비교합니다. 여기의 Kendall τ는 논문과 다릅니다: "
           "demonstration을 ICL attention으로, 그리고 FT에서 그것을 뺐을 때 h가 움직이는 크기로 순위를 매겨 비교합니다. 논문 "
           "수치는 GPT 1.3B와 2.7B, 분류 데이터셋 여섯 개의 결과이고, 이 모델은 parameter 약 0.2M개에 단어 task 하나입니다. "
           "표는 재현이 아니라 훨씬 작은 규모에서 같은 측정을 한 것으로 읽으세요. FT가 고친 query가 적으면 Rec2FTP는 적은 "
           "사례에 기댑니다 (ft_fixed가 그 수).")});
    TablePanel t{tr(lang, "Beside Dai et al. 2023 (GPT 1.3B / 2.7B, means over six datasets)", "Dai et al. 2023 옆에 (GPT 1.3B / 2.7B, 데이터셋 여섯 개 평균)"),
                 {tr(lang, "metric", "지표"), tr(lang, "this model", "이 모델"), "GPT 1.3B", "GPT 2.7B"}, {}};
    t.rows.push_back({"Rec2FTP", format_number(rec.value, "%.3f"), "0.8556", "0.8939"});
    t.rows.push_back({"SimAOU", format_number(metrics::mean(simaou_), "%.3f"), "0.186", "0.225"});
    t.rows.push_back({tr(lang, "SimAOU, random update", "SimAOU, 무작위 update"), format_number(metrics::mean(simaou_rnd_), "%.3f"), "≈ 0", "≈ 0"});
    t.rows.push_back({tr(lang, "SimAM ICL–ZSL → ICL–FT", "SimAM ICL–ZSL → ICL–FT"), format_number(metrics::mean(simam_before_), "%.3f") + " → " + format_number(metrics::mean(simam_after_), "%.3f"),
                      "0.338 → 0.442", "0.355 → 0.434"});
    t.rows.push_back({"Kendall τ", format_number(metrics::mean(kendall_), "%.3f"), "0.193", "0.214"});
    panels.push_back(t);
    BarsPanel acc{tr(lang, "Accuracy", "정확도"), tr(lang, "accuracy", "정확도"), {"ZSL", "FT", "ICL"}, {accuracy(zsl_), accuracy(ft_), accuracy(icl_)}, {}};
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
    d.title_en = "ICL vs fine-tuning W_K and W_V: Dai et al.'s comparison at tiny scale";
    d.title_ko = "ICL 대 W_K, W_V fine-tuning: 작은 규모에서 본 Dai et al.의 비교";
    d.summary_en = "The shipped task model answers zero-shot, with k demonstrations in its prompt, and after SGD on W_K, W_V over the "
            "same demonstrations; Rec2FTP, SimAOU, SimAM and Kendall τ beside the paper's figures.";
    d.summary_ko = "배포된 task 모델이 zero-shot으로, prompt 안의 k개 demonstration으로, 그리고 같은 demonstration으로 W_K, W_V를 SGD로 "
            "학습한 뒤 답합니다. Rec2FTP, SimAOU, SimAM, Kendall τ를 논문 수치 옆에 둡니다.";
    d.paper = "Dai et al. 2023";
    d.params = {
        // Largest problem, every size at its max: peak 5 MiB for start + one step
        // (measured by tests/unit/test_bounds.cpp; the budget is 512 MiB of wasm's 1 GB).
        ParamSpec::choice("task", tasks::task_ids(), "continent", "the task of the demonstrations and the queries",
                          "demonstration과 query의 task"),
        ParamSpec::integer("shots", 1, 16, 8, 1, "demonstrations k (also FT's training set)",
                           "demonstration 수 k (FT의 학습 데이터이기도 함)"),
        ParamSpec::integer("queries", 1, 64, 24, 1, "queries, each with fresh demonstrations",
                           "query 수 (각각 새 demonstration)"),
        ParamSpec::real("lr", 1e-4, 1, 3e-3, 1e-4, "SGD learning rate of the fine-tuning",
                        "fine-tuning의 SGD learning rate"),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kIclVsFinetune);

}  // namespace
}  // namespace icl

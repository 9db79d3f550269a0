// function_vectors (Todd et al. 2024): in the shipped task model, each head's mean output
// at the last token over ICL prompts of one task; each head's causal indirect effect
// when that mean is patched into corrupted prompts (zero-shot, or Todd et al.'s shuffled
// labels); the function vector (the top heads' means through W_O) added to the residual
// stream of zero-shot prompts, and the lecture's case: hot → cold, big → small, fast → ?
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/function_vector.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

class FunctionVectorSession : public AnalyticSession {
public:
    FunctionVectorSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}
    void compute() override {
        if (Status s = run(); !s) error_ = s.error().message;
    }
    std::vector<Panel> draw() const override;

private:
    Status probs(const std::vector<std::vector<int>>& prompts, const gpt::Hooks* hooks, std::vector<float>& out) {
        return last_position_probs(model_, acts_, prompts, hooks, out);
    }
    static int argmax(const float* p, int V) { return (int)(std::max_element(p, p + V) - p); }

    Status run() {
        const tasks::Suite& s = tasks::suite();
        const tasks::Task& task = s.tasks[(size_t)s.find_task(ctx_.params.s("task"))];
        const int layer = ctx_.params.i("layer");
        const int V = model_.config.vocab;
        Rng rng(ctx_.seed, 41);
        FunctionVectorOptions o;
        o.shots = ctx_.params.i("shots");
        o.prompts = ctx_.params.i("prompts");
        o.top_heads = ctx_.params.i("top_heads");
        o.shuffled_labels = ctx_.params.s("corrupted") == "shuffled_labels";
        auto fv = function_vector(model_, task, o, rng);
        if (!fv) return fv.error();
        const std::vector<tasks::Pair>& A = fv.value().built_from;
        const std::vector<tasks::Pair>& Bset = fv.value().held_back;
        fv_ = fv.value().vector;
        cie_ = fv.value().cie;
        top_ = fv.value().top;
        p_clean_ = fv.value().p_clean;
        p_corrupt_ = fv.value().p_corrupt;
        // zero-shot on the held-back pairs B, with and without the vector
        std::vector<std::vector<int>> zs;
        for (const auto& q : Bset) zs.push_back(tasks::format_prompt({}, q.x).tokens);
        gpt::Hooks add;
        add.residual_adds = {{layer, 2, fv_}};
        std::vector<float> p0, p1;
        if (Status st = probs(zs, nullptr, p0); !st) return st;
        if (Status st = probs(zs, &add, p1); !st) return st;
        for (size_t i = 0; i < Bset.size(); ++i) {
            zs_acc_ += (argmax(p0.data() + i * V, V) == Bset[i].y) / (double)Bset.size();
            fv_acc_ += (argmax(p1.data() + i * V, V) == Bset[i].y) / (double)Bset.size();
        }
        // the concrete case: "hot → cold ; big → small ; fast →" for the antonym task (Todd et
        // al.'s example), otherwise two pairs of A and a query from B; then the query zero-shot
        // without and with the vector
        std::vector<tasks::Pair> demos = {A[0], A[1]};
        tasks::Pair query = Bset.empty() ? A[2] : Bset[0];
        if (task.id == "antonym") {
            demos = {{s.find_word("hot"), s.find_word("cold")}, {s.find_word("big"), s.find_word("small")}};
            query = {s.find_word("fast"), s.find_word("slow")};
        }
        std::vector<float> pa, pb, pz;
        const std::vector<int> zero_shot = tasks::format_prompt({}, query.x).tokens, few_shot = tasks::format_prompt(demos, query.x).tokens;
        if (Status st = probs({few_shot}, nullptr, pa); !st) return st;
        if (Status st = probs({zero_shot}, nullptr, pz); !st) return st;
        if (Status st = probs({zero_shot}, &add, pb); !st) return st;
        case_prompt_ = s.text(few_shot, 1);  // without BOS
        case_query_ = s.text(zero_shot, 1);
        case_expected_ = s.words[(size_t)query.y];
        case_icl_ = s.words[(size_t)argmax(pa.data(), V)];
        case_zs_ = s.words[(size_t)argmax(pz.data(), V)];
        case_fv_ = s.words[(size_t)argmax(pb.data(), V)];
        return Ok{};
    }

    DemoContext ctx_;
    gpt::Model model_;
    gpt::Activations acts_;
    std::string case_icl_, case_zs_, case_fv_, case_prompt_, case_query_, case_expected_;
    std::vector<float> fv_;
    std::vector<double> cie_;
    std::vector<std::string> top_;
    double zs_acc_ = 0, fv_acc_ = 0, p_clean_ = 0, p_corrupt_ = 0;
};

std::vector<Panel> FunctionVectorSession::draw() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    const int L = model_.config.layers, H = model_.config.heads;
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"zs_acc", zs_acc_, "", msg("scalar.zs_acc.help")});
    s.items.push_back({"zs_acc_fv", fv_acc_, "", msg("scalar.zs_acc_fv.help")});
    s.items.push_back({"fv_gain", fv_acc_ - zs_acc_, "", msg("scalar.fv_gain.help")});
    s.items.push_back({"top_cie", *std::max_element(cie_.begin(), cie_.end()), "",
                       msg("scalar.top_cie.help")});
    s.items.push_back({"p_clean", p_clean_, "", msg("scalar.p_clean.help")});
    s.items.push_back({"p_corrupted", p_corrupt_, "",
                       msg("scalar.p_corrupted.help")});
    s.items.push_back({"case_right", case_fv_ == case_expected_ ? 1.0 : 0.0, "",
                       msg("scalar.case_right.help")});
    panels.push_back(s);
    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    panels.push_back(HeatmapPanel{msg("panel.cie.title"), msg("axis.head"),
                                    msg("axis.layer"), L, H, cie_, rows, cols, true});
    TablePanel t{msg("panel.case.title"),
                 {msg("panel.case.col.prompt"), msg("panel.case.col.answer"), msg("panel.case.col.expected")}, {}};
    t.rows.push_back({case_prompt_, case_icl_, case_expected_});
    t.rows.push_back({case_query_, case_zs_, case_expected_});
    t.rows.push_back({msg("panel.case.row.with_fv", {{"query", case_query_}}), case_fv_, case_expected_});
    panels.push_back(t);
    BarsPanel acc{msg("panel.acc.title"), msg("panel.acc.y"),
                  {msg("panel.acc.bar.without"), msg("panel.acc.bar.with_fv")}, {zs_acc_, fv_acc_}, {}};
    panels.push_back(acc);
    std::string heads;
    for (const auto& h : top_) heads += (heads.empty() ? "" : ", ") + h;
    const bool shuffled = ctx_.params.s("corrupted") == "shuffled_labels";
    const std::string note =
        msg("note.guide.text", {{"heads", heads},
                     {"corruption", msg(shuffled ? "note.guide.corruption_shuffled" : "note.guide.corruption_zero_shot")},
                     {"verdict", msg(fv_acc_ > zs_acc_ ? "note.guide.verdict_raises" : "note.guide.verdict_not")}});
    panels.push_back(NotePanel{msg("note.guide.title"), note});
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    // The parameters' ranges fit the shipped model; a retrained one may be smaller.
    const int total_heads = m.value().config.layers * m.value().config.heads;
    if (ctx.params.i("top_heads") > total_heads)
        return learner_error("error.top_heads_past", {{"value", std::to_string(ctx.params.i("top_heads"))},
                                                      {"total", std::to_string(total_heads)},
                                                      {"layers", std::to_string(m.value().config.layers)},
                                                      {"heads", std::to_string(m.value().config.heads)}});
    if (ctx.params.i("layer") > m.value().config.layers)
        return learner_error("error.layer_past", {{"value", std::to_string(ctx.params.i("layer"))},
                                                  {"layers", std::to_string(m.value().config.layers)}});
    return std::unique_ptr<Session>(new FunctionVectorSession(ctx, std::move(m.value())));
}

const DemoDef kFunctionVectors = [] {
    DemoDef d;
    d.id = "function_vectors";
    d.paper = "Todd et al. 2024";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", tasks::unremapped_task_ids(), "antonym"),
        ParamSpec::integer("shots", 2, 10, 8, 1),
        ParamSpec::integer("prompts", 4, 64, 32, 1),
        ParamSpec::choice("corrupted", {"zero_shot", "shuffled_labels"}, "zero_shot"),
        ParamSpec::integer("top_heads", 1, 16, 6, 1),
        ParamSpec::integer("layer", 0, 4, 1, 1),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kFunctionVectors);

}  // namespace
}  // namespace icl

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
#include "icl/function_vector.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

std::vector<std::string> task_ids() {
    std::vector<std::string> ids;
    for (const tasks::Task& t : tasks::suite().tasks)
        if (!t.remapped) ids.push_back(t.id);
    return ids;
}

class FunctionVectorSession : public Session {
public:
    FunctionVectorSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}
    void step(int) override {
        if (done_) return;
        done_ = true;
        if (Status s = run(); !s) error_ = s.error().message;
    }
    bool done() const override { return done_; }
    std::vector<Panel> panels() const override;

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
    bool done_ = false;
    std::string case_icl_, case_zs_, case_fv_, case_prompt_, case_query_, case_expected_;
    std::vector<float> fv_;
    std::vector<double> cie_;
    std::vector<std::string> top_;
    double zs_acc_ = 0, fv_acc_ = 0, p_clean_ = 0, p_corrupt_ = 0;
};

std::vector<Panel> FunctionVectorSession::panels() const {
    const Lang lang = ctx_.lang;
    std::vector<Panel> panels;
    if (!done_ || !error_.empty()) return panels;
    const int L = model_.config.layers, H = model_.config.heads;
    ScalarsPanel s{tr(lang, "Function vector", "function vector"), {}};
    s.items.push_back({"zs_acc", zs_acc_, "", tr(lang, "zero-shot accuracy on the held-back inputs", "따로 둔 입력에서 zero-shot 정확도")});
    s.items.push_back({"zs_acc_fv", fv_acc_, "", tr(lang, "the same with the function vector added", "function vector를 더했을 때 같은 정확도")});
    s.items.push_back({"fv_gain", fv_acc_ - zs_acc_, "", tr(lang, "zs_acc_fv − zs_acc", "zs_acc_fv − zs_acc")});
    s.items.push_back({"top_cie", *std::max_element(cie_.begin(), cie_.end()), "",
                       tr(lang, "largest causal indirect effect of one head (probability of the right answer)", "head 하나의 가장 큰 causal indirect effect (정답 확률)")});
    s.items.push_back({"p_clean", p_clean_, "", tr(lang, "mean probability of the right answer on the ICL prompts", "ICL prompt에서 정답의 평균 확률")});
    s.items.push_back({"p_corrupted", p_corrupt_, "",
                       tr(lang, "the same on the corrupted prompts (the room an indirect effect has: p_clean − p_corrupted)",
                          "망가뜨린 prompt에서 같은 값 (indirect effect가 움직일 수 있는 폭: p_clean − p_corrupted)")});
    s.items.push_back({"case_right", case_fv_ == case_expected_ ? 1.0 : 0.0, "",
                       tr(lang, "1 if the concrete case's zero-shot query with the vector gives the expected answer",
                          "구체적인 예의 zero-shot query에 vector를 더했을 때 기대한 답이 나오면 1")});
    panels.push_back(s);
    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    panels.push_back(HeatmapPanel{tr(lang, "Causal indirect effect per head", "head별 causal indirect effect"), tr(lang, "head", "head"),
                                    tr(lang, "layer", "layer"), L, H, cie_, rows, cols, true});
    TablePanel t{tr(lang, "The concrete case", "구체적인 예"),
                 {tr(lang, "prompt", "prompt"), tr(lang, "answer", "답"), tr(lang, "expected", "기대한 답")}, {}};
    t.rows.push_back({case_prompt_, case_icl_, case_expected_});
    t.rows.push_back({case_query_, case_zs_, case_expected_});
    t.rows.push_back({case_query_ + tr(lang, " (+ function vector)", " (+ function vector)"), case_fv_, case_expected_});
    panels.push_back(t);
    BarsPanel acc{tr(lang, "Zero-shot accuracy on held-back inputs", "따로 둔 입력에서 zero-shot 정확도"), tr(lang, "accuracy", "정확도"),
                  {tr(lang, "without", "없이"), tr(lang, "with the function vector", "function vector와 함께")}, {zs_acc_, fv_acc_}, {}};
    panels.push_back(acc);
    std::string heads;
    for (const auto& h : top_) heads += (heads.empty() ? "" : ", ") + h;
    const bool shuffled = ctx_.params.s("corrupted") == "shuffled_labels";
    std::string note = tr(lang,
        "Following Todd et al. 2024 at lesson scale: the mean of each head's output (before W_O) at the last token over "
        "ICL prompts of the task; its causal indirect effect = P(right answer | mean patched in) − P(right answer) on "
        "corrupted prompts (positive: the head's mean carries the task there). The function vector is the sum of the top "
        "heads' means through their slice of W_O (here ",
        "Todd et al. 2024를 작은 규모로 따릅니다: task의 ICL prompt들에서 마지막 token의 각 head 출력(W_O 전) 평균, 그리고 "
        "망가뜨린 prompt에 그 평균을 넣었을 때의 causal indirect effect = P(정답 | 평균을 넣음) − P(정답) (양수: 그 head의 "
        "평균이 task를 나른다). function vector는 상위 head들의 평균을 각자의 W_O 조각에 통과시켜 더한 것이고 (여기서는 ");
    note += heads;
    note += tr(lang,
        "), added to the residual stream after the chosen layer at the zero-shot prompt's last token. The inputs asked "
        "zero-shot are training pairs never used in the prompts that built the vector. ",
        ") 선택한 layer 뒤의 residual stream에 zero-shot prompt의 마지막 token 위치로 더합니다. zero-shot으로 묻는 입력은 "
        "vector를 만든 prompt에 한 번도 쓰지 않은 학습 pair입니다. ");
    note += shuffled
        ? tr(lang,
             "Corrupted prompts here are Todd et al.'s: the demonstrations' labels shuffled. This model is hardly hurt by "
             "that (p_corrupted is close to p_clean): it recognises the task from the label words alone, so no head can "
             "show much effect and the ranking is close to noise. Switch to zero_shot to see the difference. ",
             "여기서 망가뜨린 prompt는 Todd et al.의 것, 곧 demonstration의 label을 섞은 것입니다. 이 모델은 그래도 거의 "
             "흔들리지 않습니다 (p_corrupted가 p_clean에 가깝다): label 단어만 보고도 task를 알아보므로 어떤 head도 효과를 "
             "크게 보일 수 없고 순위는 잡음에 가깝습니다. zero_shot으로 바꿔 차이를 보세요. ")
        : tr(lang,
             "Todd et al. corrupt prompts by shuffling the demonstrations' labels; this small model recognises the task "
             "from the label words alone, so shuffled labels barely hurt it (try corrupted = shuffled_labels) and no head "
             "could show an effect. Here the means are patched into zero-shot prompts instead, where the model must guess "
             "between the two tasks on the same inputs (p_corrupted). ",
             "Todd et al.은 demonstration의 label을 섞어 prompt를 망가뜨립니다. 이 작은 모델은 label 단어만 보고도 task를 "
             "알아보므로 label을 섞어도 거의 흔들리지 않고 (corrupted = shuffled_labels로 해 보세요), 어떤 head도 효과를 "
             "보일 수 없습니다. 그래서 여기서는 평균을 zero-shot prompt에 넣습니다. 같은 입력에 task가 둘이라 모델이 "
             "짐작해야 하는 곳입니다 (p_corrupted). ");
    note += tr(lang,
        "What differs from the paper: Todd et al. use GPT-J and larger models on dozens of tasks; this model has 16 heads. ",
        "논문과 다른 점: Todd et al.은 GPT-J 등 큰 모델과 수십 개 task를 썼습니다. 이 모델의 head는 16개입니다. ");
    note += fv_acc_ > zs_acc_
        ? tr(lang, "Here the vector raises zero-shot accuracy (zs_acc → zs_acc_fv).",
             "여기서는 vector가 zero-shot 정확도를 올립니다 (zs_acc → zs_acc_fv).")
        : tr(lang, "Here it does not raise zero-shot accuracy: the paper's result is not reproduced with these settings.",
             "여기서는 vector가 zero-shot 정확도를 올리지 못합니다: 이 설정에서는 논문의 결과가 재현되지 않습니다.");
    panels.push_back(NotePanel{tr(lang, "What to see", "무엇을 볼까"), note});
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    // The parameters' ranges fit the shipped model; a retrained one may be smaller.
    const int total_heads = m.value().config.layers * m.value().config.heads;
    if (ctx.params.i("top_heads") > total_heads)
        return make_error("'top_heads' = " + std::to_string(ctx.params.i("top_heads")) + " is past the model's " +
                          std::to_string(total_heads) + " heads (" + std::to_string(m.value().config.layers) + " layers x " +
                          std::to_string(m.value().config.heads) + " heads)");
    if (ctx.params.i("layer") > m.value().config.layers)
        return make_error("'layer' = " + std::to_string(ctx.params.i("layer")) + " is past the model's " +
                          std::to_string(m.value().config.layers) + " layers");
    return std::unique_ptr<Session>(new FunctionVectorSession(ctx, std::move(m.value())));
}

const DemoDef kFunctionVectors = [] {
    DemoDef d;
    d.id = "function_vectors";
    d.title_en = "Function vectors: a task carried by a few heads";
    d.title_ko = "function vector: 몇 개의 head가 나르는 task";
    d.summary_en = "Heads of the shipped task model ranked by their causal effect on the task; their mean outputs summed into one "
            "vector that, added to a zero-shot prompt, makes the model do the task.";
    d.summary_ko = "배포된 task 모델의 head를 task에 대한 인과 효과로 순위 매기고, 그 평균 출력을 하나의 vector로 더해 zero-shot prompt에 "
            "넣으면 모델이 task를 수행합니다.";
    d.paper = "Todd et al. 2024";
    d.analytic = true;
    d.params = {
        // Largest problem, every size at its max: peak 58 MiB for start + one step
        // (measured by tests/unit/test_bounds.cpp; the budget is 512 MiB of wasm's 1 GB).
        ParamSpec::choice("task", task_ids(), "antonym",
                          "the task (each adjective, number and country has two tasks, so zero-shot the model must guess)",
                          "task (형용사, 수, 나라마다 task가 둘이라 zero-shot에서 모델은 짐작해야 함)"),
        ParamSpec::integer("shots", 2, 10, 8, 1, "demonstrations per ICL prompt", "ICL prompt당 demonstration 수"),
        ParamSpec::integer("prompts", 4, 64, 32, 1, "ICL prompts averaged over (and shuffled-label prompts)",
                           "평균 낼 ICL prompt 수 (label을 섞은 prompt도)"),
        ParamSpec::choice("corrupted", {"zero_shot", "shuffled_labels"}, "zero_shot",
                          "prompts the head means are patched into to rank heads: zero-shot (the task missing) or Todd et al.'s shuffled labels",
                          "head 순위를 매길 때 평균을 넣을 prompt: zero-shot (task가 빠짐) 또는 Todd et al.의 label 섞기"),
        ParamSpec::integer("top_heads", 1, 16, 6, 1, "heads summed into the function vector",
                           "function vector에 더할 head 수"),
        ParamSpec::integer("layer", 0, 4, 1, 1, "add the vector after this block (0 = after the embeddings)",
                           "이 block 뒤에 vector를 더함 (0 = embedding 뒤)"),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kFunctionVectors);

}  // namespace
}  // namespace icl

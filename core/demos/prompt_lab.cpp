// prompt_lab: the learner's own prompt into the shipped task model. The next-token
// distribution; the answer's probability as the prompt keeps its first 0, 1, ..., k
// demonstrations; the attention of every head over the prompt's tokens; Dai et al.'s
// split at the last position per head; a greedy continuation through the KV cache.
// Options: ablate heads, add a task's function vector (Todd et al. 2024) — each says
// how much it changed the distribution. A mapping invented in the prompt (dog → Paris)
// shows the in-context label's probability beside the model's zero-shot answer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "icl/format.h"
#include "icl/demo.h"
#include "icl/function_vector.h"
#include "icl/generate.h"
#include "icl/icl_split.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

constexpr int kLayers = 4, kHeads = 4;  // the shipped task model (checked at start)

std::string head_name(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h); }

std::vector<std::string> prompt_vocabulary() {
    const auto& w = tasks::suite().words;
    return std::vector<std::string>(w.begin() + 1, w.end());  // every word but "<s>"
}

std::vector<std::string> head_vocabulary() {
    std::vector<std::string> v = {","};
    for (int l = 0; l < kLayers; ++l)
        for (int h = 0; h < kHeads; ++h) v.push_back(head_name(l, h));
    return v;
}

std::vector<std::string> fv_choices() {
    std::vector<std::string> c = {"none"};
    for (const tasks::Task& t : tasks::suite().tasks)
        if (!t.remapped) c.push_back(t.id);
    return c;
}

std::vector<std::string> head_choices() {
    std::vector<std::string> v;
    for (int l = 0; l < kLayers; ++l)
        for (int h = 0; h < kHeads; ++h) v.push_back(head_name(l, h));
    return v;
}

double norm(const std::vector<float>& v) {
    double s = 0;
    for (float x : v) s += (double)x * x;
    return std::sqrt(s);
}

// KL(p ‖ q) in nats over a vocabulary.
double kl_divergence(const std::vector<float>& p, const std::vector<float>& q) {
    double kl = 0;
    for (size_t i = 0; i < p.size(); ++i)
        if (p[i] > 0) kl += (double)p[i] * (std::log((double)p[i]) - std::log(std::max((double)q[i], 1e-30)));
    return std::max(0.0, kl);
}

std::string prob(double v) {  // a probability: small ones keep their digits (3.1e-05)
    return format_number(v, v >= 0.001 ? "%.3f" : "%.2g");
}

class PromptLabSession : public Session {
public:
    PromptLabSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}
    void step(int) override {
        if (done_) return;
        done_ = true;
        if (Status s = run(); !s) error_ = s.error().message;
    }
    bool done() const override { return done_; }
    std::vector<Panel> panels() const override;

private:
    // Softmax of the last position's logits of one prompt, with or without the options.
    Status probs(const std::vector<int>& prompt, bool with_options, std::vector<float>& out) {
        const gpt::Hooks hooks = options_for((int)prompt.size());
        std::vector<float> p;
        if (Status s = last_position_probs(model_, acts_, {prompt}, with_options ? &hooks : nullptr, p); !s) return s;
        out = std::move(p);
        return Ok{};
    }
    gpt::Hooks options_for(int T) const {
        gpt::Hooks h;
        for (const auto& [l, hd] : ablated_) h.ablations.push_back({l, hd});
        if (!fv_.empty()) h.residual_adds.push_back({ctx_.params.i("fv_layer"), T - 1, fv_});
        return h;
    }
    bool has_options() const { return !ablated_.empty() || !fv_.empty(); }

    Status run();

    DemoContext ctx_;
    gpt::Model model_;
    gpt::Activations acts_;
    bool done_ = false;
    // what was computed
    std::vector<int> tokens_;                       // BOS + the prompt's tokens
    std::vector<std::pair<int, int>> ablated_;      // (layer, head)
    std::vector<float> fv_;                         // the function vector, or empty
    std::vector<std::string> fv_top_;
    std::vector<float> p_, p_plain_;                // last-position distribution with / without options
    int k_ = 0;                                     // demonstrations
    int answer_ = -1, label_ = -1, zs_top_ = -1;    // token ids; label: the query's y given in context
    std::vector<double> curve_;                     // P(answer) with the first j demonstrations
    std::vector<double> last_att_;                  // (L*H, T) attention from the last position
    std::vector<double> head_att_;                  // (T, T) the chosen head's map
    std::vector<HeadSplit> splits_;                 // (L*H) at the last position, plain model
    std::vector<int> continuation_;
    int asked_continue_ = 0;
    double kl_ = 0, p_zs_top_ = 0;
};

Status PromptLabSession::run() {
    const tasks::Suite& s = tasks::suite();
    const Params& P = ctx_.params;
    if (model_.config.layers != kLayers || model_.config.heads != kHeads)
        return make_error("prompt_lab expects a 4-layer, 4-head task model");
    // the prompt, as the model's token ids after BOS
    tokens_ = {tasks::kBos};
    for (const std::string& w : P.tokens("prompt")) tokens_.push_back(s.find_word(w));
    const int T = (int)tokens_.size(), Tmax = model_.config.context;
    // options
    for (const std::string& h : P.tokens("ablate"))
        if (h != ",") {
            const std::pair<int, int> lh = {h[1] - '0', h[3] - '0'};
            if (std::find(ablated_.begin(), ablated_.end(), lh) == ablated_.end()) ablated_.push_back(lh);
        }
    if (P.s("fv_task") != "none") {
        Rng rng(ctx_.seed, 41);
        auto fv = function_vector(model_, s.tasks[(size_t)s.find_task(P.s("fv_task"))], FunctionVectorOptions{}, rng);
        if (!fv) return fv.error();
        fv_ = fv.value().vector;
        fv_top_ = fv.value().top;
    }
    // the prompt's structure: segments between ";" — demonstrations, then the query
    std::vector<std::vector<int>> segments(1);
    for (int t = 1; t < T; ++t) {
        if (tokens_[(size_t)t] == tasks::kSep) segments.emplace_back();
        else segments.back().push_back(tokens_[(size_t)t]);
    }
    const std::vector<int> query = segments.back();
    segments.pop_back();
    k_ = (int)segments.size();
    if (query.size() == 2 && query[1] == tasks::kArrow)  // "x →": is x's answer given in context?
        for (const auto& d : segments)
            if (d.size() == 3 && d[0] == query[0] && d[1] == tasks::kArrow) label_ = d[2];
    // the distribution, with the options and (if any) without
    if (Status st = probs(tokens_, true, p_); !st) return st;
    const int V = model_.config.vocab;
    if (has_options()) {
        if (Status st = probs(tokens_, false, p_plain_); !st) return st;
        kl_ = kl_divergence(p_plain_, p_);
    } else {
        p_plain_ = p_;
    }
    answer_ = label_ >= 0 ? label_ : (int)(std::max_element(p_plain_.begin(), p_plain_.end()) - p_plain_.begin());
    // the attention (plain forward of the whole prompt)
    gpt::Activations acts;
    if (Status st = gpt::forward(model_, acts, tokens_.data(), nullptr, 1, T); !st) return st;
    const int L = kLayers, H = kHeads;
    int chosen = 0;
    const auto hc = head_choices();
    chosen = (int)(std::find(hc.begin(), hc.end(), P.s("head")) - hc.begin());
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            const float* a = acts.ptr(acts.blocks[(size_t)l].att) + (size_t)h * T * T;  // (T,T), batch row 0
            for (int j = 0; j < T; ++j) last_att_.push_back(a[(size_t)(T - 1) * T + j]);
            if (l * H + h == chosen)
                for (int i = 0; i < T * T; ++i) head_att_.push_back(a[i]);
            // Dai et al.'s split: X' = the demonstrations, X = BOS and the query
            const int demo_to = T - (int)query.size();
            splits_.push_back(split_head(acts, model_.config, l, h, 0, T - 1, 1, std::max(1, demo_to)));
        }
    // the prompt's own shots curve: its first j demonstrations, then the query
    for (int j = 0; j <= k_; ++j) {
        std::vector<int> pj = {tasks::kBos};
        for (int d = 0; d < j; ++d) {
            pj.insert(pj.end(), segments[(size_t)d].begin(), segments[(size_t)d].end());
            pj.push_back(tasks::kSep);
        }
        pj.insert(pj.end(), query.begin(), query.end());
        if (pj.size() == 1) { curve_.push_back(std::nan("")); continue; }  // no query: nothing to ask
        std::vector<float> pp;
        if (Status st = probs(pj, true, pp); !st) return st;
        curve_.push_back(pp[(size_t)answer_]);
        if (j == 0) {
            zs_top_ = (int)(std::max_element(pp.begin(), pp.end()) - pp.begin());
            p_zs_top_ = pp[(size_t)zs_top_];
        }
    }
    // a greedy continuation through the KV cache (with the options)
    asked_continue_ = P.i("continue");
    const int n = std::min(asked_continue_, Tmax - T);
    if (n > 0) {
        Rng rng(ctx_.seed, 7);
        const gpt::Hooks hooks = options_for(T);
        auto g = gpt::generate(model_, tokens_, n, gpt::Sampling{}, rng, &hooks);
        if (!g) return g.error();
        continuation_.assign(g.value().begin() + T, g.value().end());
    }
    (void)V;
    return Ok{};
}

std::vector<Panel> PromptLabSession::panels() const {
    const Lang lang = ctx_.lang;
    const tasks::Suite& s = tasks::suite();
    std::vector<Panel> panels;
    if (!done_ || !error_.empty()) return panels;
    const int V = model_.config.vocab, T = (int)tokens_.size(), L = kLayers, H = kHeads;
    auto word = [&](int id) { return id >= 0 ? s.words[(size_t)id] : std::string("—"); };
    std::vector<int> order(V);
    for (int v = 0; v < V; ++v) order[(size_t)v] = v;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p_[(size_t)a] > p_[(size_t)b]; });
    const int top = order[0];

    ScalarsPanel sc{tr(lang, "Your prompt", "내 prompt"), {}};
    sc.items.push_back({"p_top", p_[(size_t)top], "", tr(lang, "probability of the most likely next token", "가장 그럴듯한 다음 token의 확률")});
    sc.items.push_back({"p_answer", p_[(size_t)answer_], "",
                        tr(lang, "probability of the answer: the label your prompt gives the query if it gives one, else the model's top word",
                           "답의 확률: prompt가 query의 label을 주면 그 label, 아니면 모델의 첫 번째 단어")});
    sc.items.push_back({"label_in_context", label_ >= 0 ? 1.0 : 0.0, "",
                        tr(lang, "1 if the query's own x appears as a demonstration (x → y), so its label is given in context",
                           "query의 x가 demonstration (x → y)으로 나오면 1: label이 context에 주어짐")});
    sc.items.push_back({"top_is_answer", top == answer_ ? 1.0 : 0.0, "", tr(lang, "1 if the top word is the answer", "첫 번째 단어가 답이면 1")});
    sc.items.push_back({"follows_label", label_ < 0 ? -1.0 : top == label_ ? 1.0 : 0.0, "",
                        tr(lang, "1 if the model answers the label your prompt gives the query, 0 if it answers something else, "
                                 "−1 if the prompt gives the query no label",
                           "모델이 prompt가 query에 준 label로 답하면 1, 다른 것으로 답하면 0, prompt가 query에 label을 주지 않으면 −1")});
    {
        double ratio = 0;
        for (const HeadSplit& sp : splits_) ratio += sp.demo_norm_ratio / (double)splits_.size();
        sc.items.push_back({"demo_norm_ratio", ratio, "",
                            tr(lang, "mean over heads of ‖ΔW_ICL q‖ / ‖F(q)‖ at the last position: a norm ratio (the parts can cancel, so it can exceed 1)",
                               "마지막 위치에서 head 평균 ‖ΔW_ICL q‖ / ‖F(q)‖: norm의 비 (두 부분이 상쇄될 수 있어 1을 넘을 수 있음)")});
    }
    const int top_plain = (int)(std::max_element(p_plain_.begin(), p_plain_.end()) - p_plain_.begin());
    sc.items.push_back({"top_changed", top != top_plain ? 1.0 : 0.0, "",
                        tr(lang, "1 if the options (ablation, function vector) changed the most likely word",
                           "옵션(head 제거, function vector)이 가장 그럴듯한 단어를 바꾸었으면 1")});
    sc.items.push_back({"p_answer_zero_shot", curve_.empty() ? 0.0 : curve_.front(), "",
                        tr(lang, "the answer's probability with no demonstrations (the query alone)", "demonstration 없이 (query만) 답의 확률")});
    sc.items.push_back({"demonstrations", (double)k_, "", tr(lang, "demonstrations before the query (segments between ;)", "query 앞의 demonstration 수 (; 사이 구간)")});
    sc.items.push_back({"tokens", (double)(T - 1), "", tr(lang, "tokens in the prompt", "prompt의 token 수")});
    sc.items.push_back({"kl_options", kl_, "nats",
                        tr(lang, "KL(plain ‖ with the options): how much ablation and the function vector changed the distribution (0 without options)",
                           "KL(그대로 ‖ 옵션 적용): head 제거와 function vector가 분포를 바꾼 정도 (옵션이 없으면 0)")});
    sc.items.push_back({"p_answer_plain", p_plain_[(size_t)answer_], "",
                        tr(lang, "the answer's probability without the options", "옵션 없이 답의 확률")});
    panels.push_back(sc);

    BarsPanel bars{tr(lang, "Next token: the 10 most likely", "다음 token: 가장 그럴듯한 10개"), tr(lang, "probability", "확률"), {}, {}, {}};
    for (int i = 0; i < 10 && i < V; ++i) {
        bars.labels.push_back(word(order[(size_t)i]));
        bars.values.push_back(p_[(size_t)order[(size_t)i]]);
    }
    panels.push_back(bars);

    TablePanel cmp{tr(lang, "In context vs zero-shot", "context 대 zero-shot"),
                   {tr(lang, "what", "무엇"), tr(lang, "word", "단어"), tr(lang, "probability after your prompt", "내 prompt 뒤의 확률"),
                    tr(lang, "probability zero-shot", "zero-shot 확률")}, {}};
    const double zs_of = [&] { return curve_.empty() ? 0.0 : curve_.front(); }();
    cmp.rows.push_back({tr(lang, "the model's answer to your prompt", "내 prompt에 대한 모델의 답"), word(top), prob(p_[(size_t)top]), "—"});
    if (label_ >= 0)
        cmp.rows.push_back({tr(lang, "the label your prompt gives the query", "prompt가 query에 준 label"), word(label_),
                            prob(p_[(size_t)label_]), prob(zs_of)});
    if (zs_top_ >= 0)
        cmp.rows.push_back({tr(lang, "the model's zero-shot answer (the query alone)", "모델의 zero-shot 답 (query만)"), word(zs_top_),
                            prob(p_[(size_t)zs_top_]), prob(p_zs_top_)});
    panels.push_back(cmp);

    LinesPanel curve{tr(lang, "The answer's probability as the prompt keeps its first j demonstrations",
                        "prompt의 처음 j개 demonstration만 남길 때 답의 확률"),
                     tr(lang, "demonstrations kept (j)", "남긴 demonstration (j)"), "P(" + word(answer_) + ")", false, false, {}};
    Series cs{"P(" + word(answer_) + ")", {}, {}, {}, false};
    for (size_t j = 0; j < curve_.size(); ++j) { cs.x.push_back((double)j); cs.y.push_back(curve_[j]); }
    curve.series.push_back(cs);
    panels.push_back(curve);

    std::vector<std::string> toks, heads;
    for (int t = 0; t < T; ++t) toks.push_back(word(tokens_[(size_t)t]));
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) heads.push_back(head_name(l, h));
    panels.push_back(HeatmapPanel{tr(lang, "Attention from the last position, every head of every layer",
                                       "마지막 위치에서의 attention, 모든 layer의 모든 head"),
                                    tr(lang, "key token", "key token"), tr(lang, "head", "head"), L * H, T, last_att_, heads, toks, false});
    panels.push_back(HeatmapPanel{tr(lang, "Attention of head ", "head의 attention: ") + ctx_.params.s("head") +
                                        tr(lang, " (query position × key position)", " (query 위치 × key 위치)"),
                                    tr(lang, "key token", "key token"), tr(lang, "query token", "query token"), T, T, head_att_, toks, toks, false});

    TablePanel split{tr(lang, "Dai et al.'s split at the last position, per head", "마지막 위치에서 Dai et al.의 분해, head별"),
                     {"head", "‖W_ZSL q‖", "‖ΔW_ICL q‖", tr(lang, "cos(F(q), o)", "cos(F(q), o)")}, {}};
    for (size_t i = 0; i < splits_.size(); ++i)
        split.rows.push_back({heads[i], format_number(norm(splits_[i].zsl), "%.3f"), format_number(norm(splits_[i].icl), "%.3f"), format_number(splits_[i].cosine, "%.3f")});
    panels.push_back(split);

    std::string cont;
    for (int id : continuation_) cont += (cont.empty() ? "" : " ") + word(id);
    std::string prompt_text;
    for (int t = 1; t < T; ++t) prompt_text += (t > 1 ? " " : "") + word(tokens_[(size_t)t]);
    TablePanel gen{tr(lang, "Greedy continuation (KV cache)", "greedy 이어쓰기 (KV cache)"),
                   {tr(lang, "prompt", "prompt"), tr(lang, "continuation", "이어쓴 부분")}, {{prompt_text, cont.empty() ? "—" : cont}}};
    panels.push_back(gen);

    std::string note = tr(lang,
        "The shipped task model (4 layers, 4 heads, trained on the task suite's prompts) reads your prompt after its start "
        "token. Demonstrations are the segments between ';', the query is the last one. The shots curve asks the same "
        "query after the first j demonstrations only. The split: for each head at the last position, F(q) = W_ZSL q + "
        "ΔW_ICL q with X' = the demonstrations (Dai et al. 2023), computed without the options. ",
        "배포된 task 모델(layer 4개, head 4개, task 모음의 prompt로 학습)이 시작 token 뒤에 내 prompt를 읽습니다. "
        "demonstration은 ';' 사이의 구간이고 마지막 구간이 query입니다. shots 곡선은 같은 query를 처음 j개 demonstration "
        "뒤에서만 묻습니다. 분해: 마지막 위치의 각 head에서 F(q) = W_ZSL q + ΔW_ICL q, X' = demonstration (Dai et al. "
        "2023), 옵션 없이 계산합니다. ");
    if (!ablated_.empty()) {
        std::string hs;
        for (const auto& [l, h] : ablated_) hs += (hs.empty() ? "" : ", ") + head_name(l, h);
        note += tr(lang, "Ablated (output zeroed at every position): ", "제거한 head (모든 위치에서 출력을 0으로): ") + hs + ". ";
    }
    if (!fv_.empty()) {
        std::string hs;
        for (const auto& h : fv_top_) hs += (hs.empty() ? "" : ", ") + h;
        note += tr(lang, "Function vector of ", "function vector: ") + ctx_.params.s("fv_task") +
                tr(lang, " (top heads ", " (상위 head ") + hs + tr(lang, ") added after block ", ") 를 block ") +
                std::to_string(ctx_.params.i("fv_layer")) + tr(lang, " at the last position. ", " 뒤 마지막 위치에 더함. ");
    }
    if (has_options())
        note += tr(lang, "The options moved the answer's probability from ", "옵션이 답의 확률을 바꿈: ") + prob(p_plain_[(size_t)answer_]) +
                " → " + prob(p_[(size_t)answer_]) + " (KL " + format_number(kl_, "%.4f") + tr(lang, " nats). ", " nats). ");
    if ((int)continuation_.size() < asked_continue_)
        note += tr(lang, "The continuation stops at the model's context. ", "이어쓰기는 모델의 context 끝에서 멈춥니다. ");
    panels.push_back(NotePanel{tr(lang, "What is computed", "무엇을 계산했나"), note});
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    const int n = (int)ctx.params.tokens("prompt").size(), most = m.value().config.context - 1;
    if (n == 0) return make_error("parameter 'prompt': the prompt is empty: write a few words, e.g. hot → cold ; fast →");
    if (n > most)
        return make_error("parameter 'prompt' has " + std::to_string(n) + " tokens: the model reads at most " +
                          std::to_string(most) + " after its start token");
    return std::unique_ptr<Session>(new PromptLabSession(ctx, std::move(m.value())));
}

std::vector<ParamSpec> params() {
    return {
        ParamSpec::text("prompt", "hot → cold ; big → small ; fast →", 400, prompt_vocabulary(),
                        "your prompt: demonstrations x → y separated by ';', then a query x → (type -> for →)",
                        "내 prompt: ';'로 나눈 demonstration x → y, 그리고 query x → (→는 ->로 입력)"),
        ParamSpec::integer("continue", 0, 16, 6, 1, "tokens to continue greedily", "greedy로 이어 쓸 token 수"),
        ParamSpec::choice("head", head_choices(), "L3H0", "the head whose full attention map is drawn",
                          "전체 attention map을 그릴 head"),
        ParamSpec::text("ablate", "", 200, head_vocabulary(), "heads to ablate, e.g. L3H0, L2H1 (empty: none)",
                        "제거할 head, 예: L3H0, L2H1 (비우면 없음)"),
        ParamSpec::choice("fv_task", fv_choices(), "none", "add this task's function vector (none: do not)",
                          "이 task의 function vector를 더함 (none: 더하지 않음)"),
        ParamSpec::integer("fv_layer", 0, 4, 1, 1,
                           "add the function vector after this block (0 = after the embeddings)",
                           "이 block 뒤에 function vector를 더함 (0 = embedding 뒤)"),
    };
}

const DemoDef kPromptLab = [] {
    DemoDef d;
    d.id = "prompt_lab";
    d.title_en = "Prompt lab: your own prompt in the task model";
    d.title_ko = "prompt 실험실: 내 prompt를 task 모델에";
    d.summary_en = "Type a few-shot prompt and watch the shipped task model read it: the next-token distribution, the answer as "
            "demonstrations are added, every head's attention, Dai et al.'s split, a continuation; ablate heads or add a "
            "function vector.";
    d.summary_ko = "few-shot prompt를 직접 쓰고 배포된 task 모델이 읽는 모습을 봅니다: 다음 token 분포, demonstration을 더할 때의 답, "
            "모든 head의 attention, Dai et al.의 분해, 이어쓰기; head를 제거하거나 function vector를 더해 봅니다.";
    d.paper = "Brown et al. 2020; Dai et al. 2023; Todd et al. 2024";
    d.analytic = true;
    d.params = params();
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kPromptLab);

}  // namespace
}  // namespace icl

// induction_heads (Olsson et al. 2022): an attention-only tiny GPT trained live on
// repeated random blocks. Streams the loss, the ICL score and every head's
// prefix-matching score over training (the phase change), beside a 1-layer control
// trained identically; at the end, each head's attention map, and the ICL score with
// each head ablated.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "icl/demo.h"
#include "icl/demo_memory.h"
#include "icl/demo_panels.h"
#include "icl/gpt_train.h"
#include "icl/induction.h"

namespace icl {
namespace {

std::string head_name(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h); }

// One model being trained, its fixed evaluation batch and its history.
struct Run {
    gpt::Model model;
    std::optional<gpt::Trainer> trainer;
    std::vector<double> eval_steps, eval_loss, icl_score, best_prefix;
    std::vector<std::vector<double>> prefix_by_head;  // [head][eval]
    induction::Eval last;
    std::vector<float> probe_attention;  // (L,H,T,T): attention on the probe sequence at the last evaluation
    double phase_step = -1;  // first eval step where the best prefix-matching score passes kPhaseThreshold
};

// A head "is" an induction head once its prefix-matching score passes this (uniform
// causal attention over 48 positions gives about 0.03).
constexpr double kPhaseThreshold = 0.3;

class InductionSession : public Session {
public:
    InductionSession(const DemoContext& ctx, induction::Data data, gpt::Config main_cfg)
        : ctx_(ctx), data_(data), rng_(ctx.seed, 11) {
        const Params& p = ctx.params;
        steps_ = p.i("steps");
        batch_ = p.i("batch");
        eval_every_ = std::max(1, steps_ / 40);
        OptimizerConfig opt;
        opt.lr = p.f("lr");
        opt.clip_norm = 1.0f;
        runs_.push_back(std::make_unique<Run>());
        runs_[0]->model = gpt::make_model(main_cfg, ctx.seed).value();
        if (p.b("control") && main_cfg.layers != 1) {
            gpt::Config c = main_cfg;
            c.layers = 1;
            runs_.push_back(std::make_unique<Run>());
            runs_[1]->model = gpt::make_model(c, ctx.seed).value();
        }
        for (auto& r : runs_) {
            // GPT-2's init (std 0.02) leaves every attention pattern uniform and the
            // plateau before the phase change long; a larger init shortens it.
            const float scale = p.f("init_std") / 0.02f;
            for (const gpt::TensorInfo& t : r->model.layout.tensors)
                if (t.shape.size() == 2)
                    for (size_t i = 0; i < t.size; ++i) r->model.params[t.offset + i] *= scale;
            r->trainer.emplace(gpt::Trainer::make(r->model, opt).value());
        }
        Rng eval_rng(ctx.seed, 12);
        induction::make_batch(data_, kEvalBatch, eval_rng, eval_tokens_, eval_targets_);
        induction::make_repeat_probe(data_, kEvalBatch, eval_rng, probe_);
        evaluate_all();
    }

    // One unit = one AdamW step of every model being trained.
    void step(int budget) override {
        for (int u = 0; u < budget && !done(); ++u) {
            induction::make_batch(data_, batch_, rng_, tokens_, targets_);
            for (auto& r : runs_) {
                auto loss = r->trainer->step(tokens_.data(), targets_.data(), batch_, data_.length);
                if (!loss) { error_ = loss.error().message; return; }
            }
            ++done_steps_;
            if (done_steps_ % eval_every_ == 0 || done_steps_ == steps_) evaluate_all();
            if (!error_.empty()) return;
            if (done_steps_ == steps_) ablate();
        }
    }
    bool done() const override { return done_steps_ >= steps_ || !error_.empty(); }
    double progress() const override { return steps_ ? (double)done_steps_ / steps_ : 1.0; }
    std::vector<Panel> panels() const override;

private:
    static constexpr int kEvalBatch = 32;

    void evaluate_all() {
        for (auto& r : runs_) {
            auto e = induction::evaluate(r->model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch);
            if (!e) { error_ = e.error().message; return; }
            r->last = e.value();
            r->eval_steps.push_back(done_steps_);
            r->eval_loss.push_back(e.value().loss);
            r->icl_score.push_back(e.value().icl_score);
            const auto& pm = e.value().prefix_matching;
            r->prefix_by_head.resize(pm.size());
            for (size_t h = 0; h < pm.size(); ++h) r->prefix_by_head[h].push_back(pm[h]);
            const double best = *std::max_element(pm.begin(), pm.end());
            r->best_prefix.push_back(best);
            if (r->phase_step < 0 && best >= kPhaseThreshold) r->phase_step = done_steps_;
        }
        // The main model's attention maps on the probe, for result() to copy from.
        Run& m = *runs_[0];
        const int L = m.model.config.layers, H = m.model.config.heads, T = data_.length;
        gpt::Activations acts;
        if (Status s = gpt::forward(m.model, acts, probe_.data(), nullptr, 1, T); !s) {
            error_ = s.error().message;
            return;
        }
        m.probe_attention.resize(static_cast<size_t>(L) * H * T * T);
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                const float* a = acts.attention(l, 0, h, H);
                std::copy(a, a + static_cast<size_t>(T) * T, m.probe_attention.begin() + (static_cast<size_t>(l) * H + h) * T * T);
            }
    }

    // ICL score with each head of the main model zeroed, one at a time.
    void ablate() {
        const Run& r = *runs_[0];
        const int L = r.model.config.layers, H = r.model.config.heads;
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                gpt::Hooks hooks;
                hooks.ablations = {{l, h}};
                auto e = induction::evaluate(r.model, data_, eval_tokens_, eval_targets_, probe_, kEvalBatch, &hooks);
                if (!e) { error_ = e.error().message; return; }
                ablated_icl_.push_back(e.value().icl_score);
            }
    }

    DemoContext ctx_;
    induction::Data data_;
    Rng rng_;
    int steps_ = 0, batch_ = 0, eval_every_ = 1, done_steps_ = 0;
    std::vector<std::unique_ptr<Run>> runs_;  // [0] the model, [1] the 1-layer control if any
    std::vector<int> tokens_, targets_, eval_tokens_, eval_targets_, probe_;
    std::vector<double> ablated_icl_;  // (L*H), after training
};

std::vector<Panel> InductionSession::panels() const {
    const Lang lang = ctx_.lang;
    std::vector<Panel> panels;
    const Run& m = *runs_[0];
    const Run* ctl = runs_.size() > 1 ? runs_[1].get() : nullptr;
    const int L = m.model.config.layers, H = m.model.config.heads;
    const auto& pm = m.last.prefix_matching;
    const int best = (int)(std::max_element(pm.begin(), pm.end()) - pm.begin());
    const auto& prev = m.last.previous_token;
    const int best_prev = (int)(std::max_element(prev.begin(), prev.end()) - prev.begin());

    ScalarsPanel s{tr(lang, "After the steps so far", "지금까지의 step 뒤"), {}};
    s.items.push_back({"steps", (double)done_steps_, "", tr(lang, "optimizer steps done", "진행한 optimizer step 수")});
    s.items.push_back({"loss", m.last.loss, "nats", tr(lang, "mean next-token loss on the evaluation batch", "평가 batch의 평균 next-token loss")});
    s.items.push_back({"icl_score", m.last.icl_score, "nats",
                       tr(lang, "ICL score: loss at the last 4 positions minus loss at positions 1–4 (negative = the context helps)",
                          "ICL score: 마지막 4개 위치의 loss − 위치 1–4의 loss (음수 = context가 도움이 됨)")});
    s.items.push_back({"prefix_matching", pm[(size_t)best], "",
                       tr(lang, "prefix-matching score of the best head (its name in the table)", "가장 높은 head의 prefix-matching score")});
    s.items.push_back({"previous_token", prev[(size_t)best_prev], "",
                       tr(lang, "mean attention to the previous token, best head", "바로 앞 token으로 가는 평균 attention, 가장 높은 head")});
    s.items.push_back({"phase_step", m.phase_step, "",
                       tr(lang, "first evaluated step where a head's prefix-matching score reached 0.3 (−1: not yet)",
                          "어떤 head의 prefix-matching score가 처음 0.3에 닿은 평가 step (−1: 아직)")});
    s.items.push_back({"control_icl_score", ctl ? ctl->last.icl_score : NAN, "nats",
                       tr(lang, "ICL score of the 1-layer control", "1-layer 대조 모델의 ICL score")});
    s.items.push_back({"control_prefix_matching", ctl ? *std::max_element(ctl->last.prefix_matching.begin(), ctl->last.prefix_matching.end()) : NAN, "",
                       tr(lang, "best prefix-matching score of the 1-layer control", "1-layer 대조 모델의 가장 높은 prefix-matching score")});
    s.items.push_back({"icl_score_ablated", ablated_icl_.empty() ? NAN : ablated_icl_[(size_t)best], "nats",
                       tr(lang, "ICL score with the best prefix-matching head ablated (after training)",
                          "prefix-matching이 가장 높은 head를 없앴을 때의 ICL score (학습 뒤)")});
    panels.push_back(s);

    const std::string ind = head_name(best / H, best % H), pr = head_name(best_prev / H, best_prev % H);
    panels.push_back(NotePanel{
        tr(lang, "What to see", "무엇을 볼까"),
        std::string(tr(lang,
                       "Each sequence is random tokens in which, often, a token that occurred before is followed by the same "
                       "token as last time (A B … A → B) at any distance, so only looking back for the current token and "
                       "copying its successor predicts those. What to look "
                       "for (Olsson et al. 2022): the loss falling in a step, the ICL score dropping with it (sign: loss "
                       "at late positions minus loss at early ones, negative = the context helps; the paper uses token "
                       "500 minus token 50) and one head's prefix-matching score jumping, measured as Olsson et al. do on "
                       "random tokens repeated (here: T/2 distinct tokens, twice). "
                       "Only a 2-layer model can compose a previous-token head (layer 0) with an induction head (layer "
                       "1); the 1-layer control, trained on the same batches, cannot. The weights start at std init_std "
                       "(GPT-2 uses 0.02, which makes the plateau before the jump far longer than a minute). Here the "
                       "best previous-token head is ",
                       "각 sequence는 무작위 token이지만, 앞에 나왔던 token 뒤에는 자주 지난번과 같은 token이 거리와 상관없이 "
                       "옵니다(A B … A → B). 그래서 지금 token이 앞에서 나온 자리를 찾아 그 다음 token을 베끼는 방법만이 그것을 "
                       "맞힙니다. 찾아볼 것(Olsson et al. 2022): "
                       "loss가 계단처럼 떨어지고, 함께 ICL score가 내려가며(부호: 뒤쪽 위치의 loss − 앞쪽 위치의 loss, 음수 = "
                       "context가 도움이 됨; 논문은 token 500 − token 50), 한 head의 prefix-matching score가 뛰어오르는 순간. "
                       "prefix matching은 Olsson et al.처럼 반복된 random tokens에서 잽니다(여기서는 서로 다른 token T/2개를 두 번). "
                       "previous-token head(layer 0)와 induction head(layer 1)를 합성할 수 있는 것은 2-layer 모델뿐이고, "
                       "같은 batch로 학습한 1-layer 대조 모델은 할 수 없습니다. weight는 표준편차 init_std로 시작합니다(GPT-2는 "
                       "0.02인데, 그러면 도약 전의 정체 구간이 1분보다 훨씬 깁니다). 여기서 previous-token score가 가장 높은 "
                       "head는 ")) +
            pr + tr(lang, " and the best prefix-matching head is ", ", prefix-matching score가 가장 높은 head는 ") + ind +
            tr(lang,
               " (L = layer, H = head, from 0); the bars show how the ICL score moves when each head is ablated. What "
               "differs from the paper: Olsson et al. train on natural text with models up to 40 layers for billions "
               "of tokens; here about 10 thousand parameters see a few million tokens of one synthetic task.",
               " 입니다 (L = layer, H = head, 0부터). 막대는 head 하나씩 없앨 때 ICL score가 어떻게 움직이는지 보여 줍니다. "
               "논문과 다른 점: Olsson et al.은 자연어 텍스트 수십억 token으로 최대 40 layer 모델을 학습했습니다. 여기서는 "
               "parameter 약 1만 개가 합성 task 하나의 token 몇백만 개를 봅니다.") +
            (m.phase_step >= 0
                 ? std::string(tr(lang, " In this run the jump came at step ", " 이번 실행에서 도약은 step ")) +
                       std::to_string((int)m.phase_step) + tr(lang, ".", "에서 왔습니다.")
                 : std::string(tr(lang, " In this run no head has reached a prefix-matching score of 0.3 yet (phase_step = −1): "
                                        "train longer or change the size.",
                                  " 이번 실행에서는 아직 prefix-matching score 0.3에 닿은 head가 없습니다(phase_step = −1): 더 오래 "
                                  "학습하거나 크기를 바꿔 보세요.")))});

    LinesPanel loss{tr(lang, "Loss over training", "학습 중 loss"), tr(lang, "step", "step"), "nats", false, false, {}};
    LinesPanel icl{tr(lang, "ICL score over training (negative = the context helps)", "학습 중 ICL score (음수 = context가 도움이 됨)"),
                   tr(lang, "step", "step"), "nats", false, false, {}};
    LinesPanel prefix{tr(lang, "Prefix-matching score per head over training", "학습 중 head별 prefix-matching score"),
                      tr(lang, "step", "step"), tr(lang, "score", "score"), false, false, {}};
    const std::string two = std::to_string(L) + tr(lang, "-layer model", "-layer 모델");
    loss.series.push_back({two, m.eval_steps, m.eval_loss, {}, false});
    icl.series.push_back({two, m.eval_steps, m.icl_score, {}, false});
    for (size_t h = 0; h < m.prefix_by_head.size(); ++h)
        prefix.series.push_back({head_name((int)h / H, (int)h % H), m.eval_steps, m.prefix_by_head[h], {}, false});
    if (ctl) {
        const std::string one = tr(lang, "1-layer control", "1-layer 대조");
        loss.series.push_back({one, ctl->eval_steps, ctl->eval_loss, {}, true});
        icl.series.push_back({one, ctl->eval_steps, ctl->icl_score, {}, true});
        prefix.series.push_back({one + tr(lang, ", best head", ", 가장 높은 head"), ctl->eval_steps, ctl->best_prefix, {}, true});
    }
    panels.push_back(loss);
    panels.push_back(icl);
    panels.push_back(prefix);

    LinesPanel by_pos{tr(lang, "Loss by position after the steps so far", "지금까지 학습한 뒤 위치별 loss"),
                      tr(lang, "position t", "위치 t"), "nats", false, false, {}};
    std::vector<double> xs;
    for (int t = 0; t + 1 < data_.length; ++t) xs.push_back(t);
    auto trimmed = [](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.end() - 1); };
    by_pos.series.push_back({two, xs, trimmed(m.last.loss_by_position), {}, false});
    if (ctl) by_pos.series.push_back({tr(lang, "1-layer control", "1-layer 대조"), xs, trimmed(ctl->last.loss_by_position), {}, true});
    panels.push_back(by_pos);

    std::vector<std::string> rows, cols;
    for (int l = 0; l < L; ++l) rows.push_back("L" + std::to_string(l));
    for (int h = 0; h < H; ++h) cols.push_back("H" + std::to_string(h));
    HeatmapPanel pmap{tr(lang, "Prefix-matching score per head", "head별 prefix-matching score"), tr(lang, "head", "head"),
                      tr(lang, "layer", "layer"), L, H, pm, rows, cols, false};
    HeatmapPanel pvmap{tr(lang, "Previous-token score per head", "head별 previous-token score"), tr(lang, "head", "head"),
                       tr(lang, "layer", "layer"), L, H, prev, rows, cols, false};
    panels.push_back(pmap);
    panels.push_back(pvmap);

    if (!ablated_icl_.empty()) {
        BarsPanel bars{tr(lang, "ICL score with one head ablated (unablated: the first bar)", "head 하나를 없앴을 때의 ICL score (첫 막대: 없애지 않음)"),
                       "nats", {tr(lang, "none", "없음")}, {m.last.icl_score}, {}};
        for (size_t h = 0; h < ablated_icl_.size(); ++h) {
            bars.labels.push_back(head_name((int)h / H, (int)h % H));
            bars.values.push_back(ablated_icl_[h]);
        }
        panels.push_back(bars);
    }

    // attention maps of the probe sequence at the last evaluation (evaluate_all computed
    // them), previous-token head and induction head
    const int T = data_.length;
    if (m.probe_attention.size() == static_cast<size_t>(L) * H * T * T) {
        std::vector<std::string> labels;
        for (int t = 0; t < T; ++t) labels.push_back(std::to_string(probe_[(size_t)t]));
        for (int idx : {best_prev, best}) {
            const float* a = m.probe_attention.data() + static_cast<size_t>(idx) * T * T;  // idx = l * H + h
            HeatmapPanel hm{std::string(tr(lang, "Attention of ", "attention: ")) + head_name(idx / H, idx % H) +
                                (idx == best ? tr(lang, " (best prefix matching)", " (prefix matching 최고)")
                                             : tr(lang, " (best previous-token)", " (previous-token 최고)")),
                            tr(lang, "key position (token id)", "key 위치 (token id)"), tr(lang, "query position (token id)", "query 위치 (token id)"),
                            T, T, std::vector<double>(a, a + (size_t)T * T), labels, labels, false};
            panels.push_back(hm);
            if (best == best_prev) break;
        }
    }
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    const Params& p = ctx.params;
    induction::Data d;
    d.vocab = p.i("vocab");
    d.length = p.i("length");
    d.copy_prob = p.f("copy_prob");
    if (Status s = induction::validate(d); !s) return s.error();
    gpt::Config c;
    c.vocab = d.vocab;
    c.context = d.length;
    c.width = p.i("width");
    c.layers = p.i("layers");
    c.heads = p.i("heads");
    c.attention_only = true;
    if (c.width % c.heads != 0)
        return make_error("'heads' = " + std::to_string(c.heads) + " must divide 'width' = " + std::to_string(c.width));
    if (Status s = gpt::validate(c); !s) return s.error();
    return std::unique_ptr<Session>(new InductionSession(ctx, d, c));
}

// Per model trained (the chosen depth, and the 1-layer control): its parameters, gradients
// and AdamW moments, a training batch's activations twice (forward and their gradients)
// and the evaluation batch's (32 sequences). The sizes stay the same at every step, so
// the bound holds for the whole run (tests/unit/test_bounds.cpp measures it).
size_t peak_bytes(const Params& p) {
    gpt::Config c;
    c.vocab = p.i("vocab");
    c.context = p.i("length");
    c.width = p.i("width");
    c.heads = p.i("heads");
    c.attention_only = true;
    size_t floats = 0;
    for (int layers : {p.i("layers"), p.b("control") && p.i("layers") > 1 ? 1 : 0}) {
        if (layers == 0) continue;
        c.layers = layers;
        floats += 4 * gpt::parameter_count(c) + 2 * gpt::activation_count(c, p.i("batch"), c.context) +
                  gpt::activation_count(c, 32, c.context);
    }
    return floats * sizeof(float) + (4u << 20);
}

const DemoDef kInductionHeads = [] {
    DemoDef d;
    d.id = "induction_heads";
    d.title_en = "Induction heads: looking for the phase change while training";
    d.title_ko = "Induction head: 학습 중 phase change 찾기";
    d.summary_en = "A 2-layer attention-only tiny GPT learns live to continue repeated random blocks, beside a 1-layer control: "
            "loss, ICL score and every head's prefix-matching score over training, attention maps and head ablations.";
    d.summary_ko = "2-layer attention-only 작은 GPT가 되풀이되는 무작위 token 묶음을 이어 쓰는 법을 1-layer 대조 모델과 나란히 "
            "실시간으로 배웁니다. 학습 중 loss, ICL score, head별 prefix-matching score, attention map, head ablation.";
    d.paper = "Olsson et al. 2022";
    d.params = {
        // Every size at its max (two models, batch 64 x 96 tokens, width 128) took 285 MiB for
        // start + one step: over kDemoMemoryBudget (256 MiB), so peak_bytes refuses it at start.
        ParamSpec::integer("layers", 1, 3, 2, 1, "attention layers (1 = the control alone)",
                           "attention layer 수 (1 = 대조 모델만)"),
        ParamSpec::integer("heads", 1, 8, 2, 1, "heads per layer (must divide width)",
                           "layer당 head 수 (width를 나눠야 함)"),
        ParamSpec::integer("width", 16, 128, 32, 16, "residual width C", "residual 폭 C"),
        ParamSpec::integer("vocab", 16, 256, 32, 1, "vocabulary size", "vocabulary 크기"),
        ParamSpec::integer("length", 16, 96, 48, 1, "sequence length T", "sequence 길이 T"),
        ParamSpec::real("copy_prob", 0, 1, 0.7, 0.05,
                        "chance that a recurring token is followed as before (A B … A → B)",
                        "다시 나온 token 뒤에 전과 같은 token이 올 확률 (A B … A → B)"),
        ParamSpec::integer("steps", 10, 5000, 1500, 10, "AdamW steps", "AdamW step 수"),
        ParamSpec::integer("batch", 1, 64, 32, 1, "sequences per step", "step당 sequence 수"),
        ParamSpec::real("lr", 1e-4, 1e-2, 5e-3, 1e-4, "learning rate", "learning rate"),
        ParamSpec::real("init_std", 0.01, 0.5, 0.2, 0.01,
                        "standard deviation of the initial weight matrices (GPT-2: 0.02)",
                        "초기 weight 행렬의 표준편차 (GPT-2: 0.02)"),
        ParamSpec::boolean("control", true, "also train a 1-layer control on the same batches",
                           "같은 batch로 1-layer 대조 모델도 학습"),
    };
    d.start = start;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kInductionHeads);
ICL_REGISTER_PEAK_BYTES("induction_heads", peak_bytes);

}  // namespace
}  // namespace icl

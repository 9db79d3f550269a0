// Demo (a lab): the learner's own symbol sequence for the shipped HMM-mixture model
// (lessons/checkpoints/hmm.icl; Xie et al. 2022 at lesson scale, as bayes_posterior).
// After each typed token: the exact posterior over the mixture's concepts (forward
// algorithm, icl/hmm.h), the Bayes-optimal next-symbol distribution, the tiny GPT's
// next-symbol distribution (one causal forward pass over the whole sequence) and
// KL(Bayes ‖ model) per position.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/gpt.h"
#include "icl/hmm.h"
#include "icl/recipe.h"

namespace icl {
namespace {

constexpr int kSymbols = 10;  // the shipped recipe's; start() refuses another
const char* const kNames[kSymbols] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
constexpr int kDelimiterWord = kSymbols;  // ";" follows the symbols in the vocabulary

std::vector<std::string> vocabulary() {
    std::vector<std::string> v(kNames, kNames + kSymbols);
    v.push_back(";");
    return v;
}

class SequenceLabSession : public Session {
public:
    SequenceLabSession(const DemoContext& ctx, recipe::Recipe r, gpt::Model m, std::vector<int> words)
        : ctx_(ctx), recipe_(std::move(r)), model_(std::move(m)), mixture_(recipe_.hmm.mixture()),
          words_(std::move(words)) {}

    void step(int) override {
        if (done_) return;
        done_ = true;
        const int L = mixture_.segment_length, C = static_cast<int>(mixture_.concepts.size());
        // The token sequence the model reads: BOS, then symbols and delimiters.
        std::vector<int> tokens{hmm::kBos};
        for (int w : words_) tokens.push_back(w == kDelimiterWord ? hmm::kDelimiter : hmm::token_of(w));
        const int T = static_cast<int>(tokens.size()), V = model_.config.vocab;
        gpt::Activations acts;
        if (Status s = gpt::forward(model_, acts, tokens.data(), nullptr, 1, T); !s) {
            error_ = s.error().message;
            return;
        }
        hmm::Prompt prompt;
        // The Bayes-optimal distribution of the next symbol before token j (after the
        // tokens before it): each typed symbol's surprisal, -ln p(symbol | what came before),
        // under the mixture and under the model, says how typical the sequence is.
        std::vector<double> before = hmm::infer(mixture_, prompt).predictive;
        for (size_t j = 0; j < words_.size(); ++j) {
            const int w = words_[j];
            if (w != kDelimiterWord && static_cast<int>(prompt.query.size()) < L) {
                const float* lg = acts.logits_ptr() + j * V;  // position j predicts token j + 1 = words_[j]
                const float m = *std::max_element(lg, lg + V);
                double zq = 0;
                for (int v = 0; v < V; ++v) zq += std::exp(double(lg[v]) - m);
                surprisal_bayes_ += -std::log(std::max(before[w], 1e-300));
                surprisal_model_ += -(double(lg[hmm::token_of(w)]) - m - std::log(zq));
                ++surprisal_count_;
            }
            if (w == kDelimiterWord) {
                prompt.segments.push_back(prompt.query);
                prompt.query.clear();
            } else {
                prompt.query.push_back(w);
            }
            const hmm::Inference inf = hmm::infer(mixture_, prompt);
            posterior_.insert(posterior_.end(), inf.posterior.begin(), inf.posterior.end());
            // The model's probabilities of each symbol after token j + 1 (its softmax over
            // every token, as bayes_posterior scores it).
            const float* logits = acts.logits_ptr() + static_cast<size_t>(j + 1) * V;
            const float mx = *std::max_element(logits, logits + V);
            double z = 0;
            for (int v = 0; v < V; ++v) z += std::exp(double(logits[v]) - mx);
            const bool full = static_cast<int>(prompt.query.size()) >= L;  // only ';' can follow
            double kl = 0;
            for (int o = 0; o < kSymbols; ++o) {
                const double q = std::exp(double(logits[hmm::token_of(o)]) - mx) / z;
                const double p = full ? std::nan("") : inf.predictive[o];
                model_next_.push_back(q);
                bayes_next_.push_back(p);
                if (!full && p > 0) kl += p * std::log(p / std::max(q, 1e-30));
            }
            kl_.push_back(full ? std::nan("") : kl);
            before = inf.predictive;
            labels_.push_back(std::to_string(j + 1) + " " + (w == kDelimiterWord ? ";" : kNames[w]));
        }
        (void)C;
    }

    bool done() const override { return done_; }

    std::vector<Panel> panels() const override;

private:
    DemoContext ctx_;
    recipe::Recipe recipe_;
    gpt::Model model_;
    hmm::Mixture mixture_;
    std::vector<int> words_;
    bool done_ = false;
    std::vector<double> posterior_, model_next_, bayes_next_, kl_;
    double surprisal_bayes_ = 0, surprisal_model_ = 0;
    int surprisal_count_ = 0;
    std::vector<std::string> labels_;
};

std::vector<Panel> SequenceLabSession::panels() const {
    std::vector<Panel> panels;
    if (!done_ || !error_.empty()) return panels;
    const Lang L = ctx_.lang;
    const int n = static_cast<int>(labels_.size()), C = static_cast<int>(mixture_.concepts.size());
    std::vector<std::string> concepts, symbols(kNames, kNames + kSymbols);
    for (int c = 0; c < C; ++c) concepts.push_back(tr(L, "concept ", "concept ") + std::to_string(c));

    double kl_sum = 0;
    int kl_count = 0;
    for (double k : kl_)
        if (std::isfinite(k)) { kl_sum += k; ++kl_count; }
    const double* last = posterior_.data() + static_cast<size_t>(n - 1) * C;
    const int top = static_cast<int>(std::max_element(last, last + C) - last);
    ScalarsPanel s{tr(L, "Your sequence: the model against Bayes", "내 수열: 모델과 Bayes"), {}};
    s.items.push_back({"tokens", double(n), "", tr(L, "symbols and ';' typed", "입력한 기호와 ';' 수")});
    s.items.push_back({"kl_mean", kl_count ? kl_sum / kl_count : std::nan(""), "nats",
                       tr(L, "mean KL(Bayes ‖ model) over the positions", "위치 평균 KL(Bayes ‖ 모델)")});
    s.items.push_back({"kl_last", kl_.back(), "nats", tr(L, "KL(Bayes ‖ model) after the last token", "마지막 token 뒤 KL(Bayes ‖ 모델)")});
    s.items.push_back({"posterior_top", last[top], "",
                       tr(L, "the largest posterior probability of a concept, after the last token",
                          "마지막 token 뒤 가장 큰 concept posterior 확률")});
    s.items.push_back({"top_concept", double(top), "", tr(L, "that concept", "그 concept")});
    const double sc = surprisal_count_ ? double(surprisal_count_) : std::nan("");
    s.items.push_back({"surprisal_bayes", surprisal_bayes_ / sc, "nats",
                       tr(L, "how unlikely your symbols are under the mixture: mean of -ln p(symbol | what came before)",
                          "mixture에서 내 기호가 얼마나 드문가: -ln p(기호 | 앞의 것)의 평균")});
    s.items.push_back({"surprisal_model", surprisal_model_ / sc, "nats",
                       tr(L, "the same under the model", "모델에서 같은 값")});
    panels.push_back(s);

    LinesPanel kl{tr(L, "KL(Bayes ‖ model) at each position", "위치마다의 KL(Bayes ‖ 모델)"),
                  tr(L, "position (tokens typed)", "위치 (입력한 token 수)"), "nats", false, false, {}};
    Series ks{"KL", {}, {}, {}, false};
    for (int j = 0; j < n; ++j) { ks.x.push_back(j + 1); ks.y.push_back(kl_[j]); }
    kl.series.push_back(ks);
    panels.push_back(kl);

    HeatmapPanel post{tr(L, "Exact posterior over concepts after each token", "token마다의 정확한 concept posterior"),
                      tr(L, "concept", "concept"), tr(L, "after token", "token 뒤"), n, C, posterior_, labels_, concepts,
                      false};
    panels.push_back(post);
    HeatmapPanel model{tr(L, "The model's next symbol after each token", "token마다 모델의 다음 기호"),
                       tr(L, "next symbol", "다음 기호"), tr(L, "after token", "token 뒤"), n, kSymbols, model_next_, labels_,
                       symbols, false};
    panels.push_back(model);
    HeatmapPanel bayes{tr(L, "The Bayes-optimal next symbol after each token", "token마다 Bayes 최적 다음 기호"),
                       tr(L, "next symbol", "다음 기호"), tr(L, "after token", "token 뒤"), n, kSymbols, bayes_next_, labels_,
                       symbols, false};
    panels.push_back(bayes);

    panels.push_back(NotePanel{
        tr(L, "What to see", "무엇을 볼까"),
        tr(L,
           "Each row is the state after one more typed token. The model was trained on documents of one concept each: "
           "segments of 6 symbols separated by ';'. The exact posterior (forward algorithm over the 5 concepts' HMMs) "
           "sharpens as your symbols favour one concept; the model never saw the concepts, yet its next-symbol row "
           "follows the Bayes row — the KL is small where your sequence looks like its training data. After 6 symbols "
           "only ';' can follow, so those rows have no Bayes distribution. The surprisal scalars say how unlikely your "
           "symbols are under the mixture and under the model. Where the two part is an empirical question about this "
           "tiny model: try one symbol repeated (a a a a a a ; a a a and d d d d d d ; d d d behave differently) "
           "(Xie et al. 2022).",
           "각 행은 token 하나를 더 입력한 뒤의 상태입니다. 모델은 문서마다 concept 하나로 된 문서, 즉 ';'로 나뉜 "
           "기호 6개짜리 segment들로 학습했습니다. 정확한 posterior(concept 5개 HMM에 대한 forward algorithm)는 내 "
           "기호가 한 concept를 가리킬수록 뾰족해집니다. 모델은 concept를 본 적이 없는데도 다음 기호 행이 Bayes 행을 "
           "따라갑니다 — 내 수열이 학습 데이터와 닮은 곳에서 KL이 작습니다. 기호 6개 뒤에는 ';'만 올 수 있으므로 그 "
           "행에는 Bayes 분포가 없습니다. surprisal 값은 내 기호가 mixture와 모델에서 얼마나 드문지 보여 줍니다. 모델과 "
           "Bayes가 어디서 갈라지는지는 이 작은 모델에 대한 실험의 문제입니다: 한 기호를 반복해 보세요 "
           "(a a a a a a ; a a a와 d d d d d d ; d d d는 다르게 움직입니다) (Xie et al. 2022).")});
    return panels;
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto r = recipe::load_shipped("hmm");
    if (!r) return r.error();
    const recipe::Recipe& rec = r.value();
    if (rec.hmm.symbols != kSymbols)
        return make_error("the shipped hmm model has " + std::to_string(rec.hmm.symbols) + " symbols; sequence_lab names " +
                          std::to_string(kSymbols));
    const std::vector<int>& words = ctx.params.token_ids("sequence");
    if (words.empty()) return make_error("parameter 'sequence' is empty: type at least one symbol (a to j)");
    int in_segment = 0, segment = 1;
    for (size_t j = 0; j < words.size(); ++j) {
        if (words[j] == kDelimiterWord) {
            in_segment = 0;
            ++segment;
            continue;
        }
        if (++in_segment > rec.hmm.segment_length)
            return make_error("parameter 'sequence': segment " + std::to_string(segment) + " has more than " +
                              std::to_string(rec.hmm.segment_length) + " symbols (word " + std::to_string(j + 1) +
                              "); the model's segments have " + std::to_string(rec.hmm.segment_length) +
                              ", end one with ';'");
    }
    auto m = recipe::load_checkpoint(rec);
    if (!m) return m.error();
    if (static_cast<int>(words.size()) + 1 > m.value().config.context)
        return make_error("parameter 'sequence' has " + std::to_string(words.size()) + " tokens; the model reads at most " +
                          std::to_string(m.value().config.context - 1));
    return std::unique_ptr<Session>(new SequenceLabSession(ctx, std::move(r.value()), std::move(m.value()), words));
}

std::vector<ParamSpec> params() {
    return {ParamSpec::text("sequence", "c c d c a e ; c c d", 200, vocabulary(),
                            "your symbols a to j, separated by spaces; ';' ends a segment (the model's segments have 6 symbols)",
                            "기호 a~j를 띄어 쓰고, ';'로 segment를 끝냅니다 (모델의 segment는 기호 6개)")};
}

const DemoDef sequence_lab_def = [] {
    DemoDef d;
    d.id = "sequence_lab";
    d.title_en = "Sequence lab: your symbols, the exact posterior and the model";
    d.title_ko = "수열 실험실: 내 기호, 정확한 posterior와 모델";
    d.summary_en = "Type a sequence of symbols for the HMM-mixture model; after each one see the exact posterior over concepts, "
            "the model's next-symbol distribution beside the Bayes-optimal one, and the KL between them.";
    d.summary_ko = "HMM mixture 모델에 기호 수열을 입력하면, 기호마다 concept에 대한 정확한 posterior, 모델의 다음 기호 분포와 "
            "Bayes 최적 분포, 그 사이의 KL이 보입니다.";
    d.paper = "Xie et al. 2022";
    d.analytic = true;
    d.params = params();
    d.start = start;
    d.assets = {"checkpoints/hmm.json", "checkpoints/hmm.icl"};
    return d;
}();
ICL_REGISTER_DEMO(sequence_lab_def);

}  // namespace
}  // namespace icl

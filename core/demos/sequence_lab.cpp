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
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/gpt.h"
#include "icl/hmm.h"
#include "icl/hmm_frequencies.h"
#include "icl/metrics.h"
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

class SequenceLabSession : public AnalyticSession {
public:
    SequenceLabSession(const DemoContext& ctx, recipe::Recipe r, gpt::Model m, std::vector<int> words)
        : ctx_(ctx), recipe_(std::move(r)), model_(std::move(m)), mixture_(recipe_.hmm.mixture()),
          words_(std::move(words)) {}

    void compute() override {
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
            std::vector<double> q(kSymbols);
            for (int o = 0; o < kSymbols; ++o) {
                q[(size_t)o] = std::exp(double(logits[hmm::token_of(o)]) - mx) / z;
                model_next_.push_back(q[(size_t)o]);
                bayes_next_.push_back(full ? std::nan("") : inf.predictive[o]);
            }
            kl_.push_back(full ? std::nan("") : metrics::kl_divergence(inf.predictive, q));
            // The same KL against a Bayes predictor that has read only the current segment:
            // is the model's row nearer to it than to the one carrying every segment?
            if (j + 1 == words_.size()) {
                hmm::Prompt own;
                own.query = prompt.query;
                const hmm::Inference alone = hmm::infer(mixture_, own);
                kl_last_segment_only_ = full ? std::nan("") : metrics::kl_divergence(alone.predictive, q);
            }
            before = inf.predictive;
            labels_.push_back(std::to_string(j + 1) + " " + (w == kDelimiterWord ? ";" : kNames[w]));
        }
        (void)C;
    }


    std::vector<Panel> draw() const override;

private:
    DemoContext ctx_;
    recipe::Recipe recipe_;
    gpt::Model model_;
    hmm::Mixture mixture_;
    std::vector<int> words_;
    std::vector<double> posterior_, model_next_, bayes_next_, kl_;
    double surprisal_bayes_ = 0, surprisal_model_ = 0, kl_last_segment_only_ = std::nan("");
    int surprisal_count_ = 0;
    std::vector<std::string> labels_;
};

std::vector<Panel> SequenceLabSession::draw() const {
    std::vector<Panel> panels;
    const Texts& msg = ctx_.text;
    const int n = static_cast<int>(labels_.size()), C = static_cast<int>(mixture_.concepts.size());
    std::vector<std::string> concepts, symbols(kNames, kNames + kSymbols);
    // Each concept by its three favourite symbols: the concepts are anonymous otherwise.
    for (int c = 0; c < C; ++c) {
        const std::vector<double> f = hmm::symbol_frequencies(mixture_.concepts[(size_t)c], mixture_.segment_length);
        std::vector<int> order(f.size());
        for (size_t o = 0; o < f.size(); ++o) order[o] = static_cast<int>(o);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return f[(size_t)a] > f[(size_t)b]; });
        std::string likes;
        for (size_t k = 0; k < std::min<size_t>(3, order.size()); ++k) likes += (k ? ", " : "") + std::string(kNames[order[k]]);
        concepts.push_back(msg("label.concept_likes", {{"c", c}, {"symbols", likes}}));
    }

    double kl_sum = 0;
    int kl_count = 0;
    for (double k : kl_)
        if (std::isfinite(k)) { kl_sum += k; ++kl_count; }
    const double* last = posterior_.data() + static_cast<size_t>(n - 1) * C;
    const int top = static_cast<int>(std::max_element(last, last + C) - last);
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"tokens", double(n), "", msg("scalar.tokens.help")});
    s.items.push_back({"kl_mean", kl_count ? kl_sum / kl_count : std::nan(""), "nats",
                       msg("scalar.kl_mean.help")});
    s.items.push_back({"kl_last", kl_.back(), "nats", msg("scalar.kl_last.help")});
    s.items.push_back({"kl_last_segment_only", kl_last_segment_only_, "nats", msg("scalar.kl_last_segment_only.help")});
    s.items.push_back({"posterior_top", last[top], "",
                       msg("scalar.posterior_top.help")});
    s.items.push_back({"top_concept", double(top), "", msg("scalar.top_concept.help")});
    const double sc = surprisal_count_ ? double(surprisal_count_) : std::nan("");
    s.items.push_back({"surprisal_bayes", surprisal_bayes_ / sc, "nats",
                       msg("scalar.surprisal_bayes.help")});
    s.items.push_back({"surprisal_model", surprisal_model_ / sc, "nats",
                       msg("scalar.surprisal_model.help")});
    panels.push_back(s);

    LinesPanel kl{msg("panel.kl.title"),
                  msg("panel.kl.x"), "nats", false, false, {}};
    Series ks{"KL", {}, {}, {}, false};
    for (int j = 0; j < n; ++j) { ks.x.push_back(j + 1); ks.y.push_back(kl_[j]); }
    kl.series.push_back(ks);
    panels.push_back(kl);

    HeatmapPanel post{msg("panel.post.title"),
                      msg("panel.post.x"), msg("axis.after"), n, C, posterior_, labels_, concepts,
                      false};
    panels.push_back(post);
    HeatmapPanel model{msg("panel.model.title"),
                       msg("axis.next"), msg("axis.after"), n, kSymbols, model_next_, labels_,
                       symbols, false};
    panels.push_back(model);
    HeatmapPanel bayes{msg("panel.bayes.title"),
                       msg("axis.next"), msg("axis.after"), n, kSymbols, bayes_next_, labels_,
                       symbols, false};
    panels.push_back(bayes);

    panels.push_back(guide_note(msg));
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
    if (words.empty()) return learner_error("error.sequence_empty", {});
    int in_segment = 0, segment = 1;
    for (size_t j = 0; j < words.size(); ++j) {
        if (words[j] == kDelimiterWord) {
            // The model was trained only on complete segments: a ';' after fewer symbols
            // starts a prefix that the mixture gives probability 0, where the exact
            // posterior (and so the KL) has no meaning.
            if (in_segment != rec.hmm.segment_length)
                return learner_error("error.sequence_segment_short", {{"segment", std::to_string(segment)},
                                                                      {"count", std::to_string(in_segment)},
                                                                      {"max", std::to_string(rec.hmm.segment_length)},
                                                                      {"index", std::to_string(j + 1)}});
            in_segment = 0;
            ++segment;
            continue;
        }
        if (++in_segment > rec.hmm.segment_length)
            return learner_error("error.sequence_segment", {{"segment", std::to_string(segment)},
                                                            {"max", std::to_string(rec.hmm.segment_length)},
                                                            {"index", std::to_string(j + 1)}});
    }
    auto m = recipe::load_checkpoint(rec);
    if (!m) return m.error();
    if (static_cast<int>(words.size()) + 1 > m.value().config.context)
        return learner_error("error.sequence_too_long", {{"count", std::to_string(words.size())},
                                                         {"max", std::to_string(m.value().config.context - 1)}});
    return std::unique_ptr<Session>(new SequenceLabSession(ctx, std::move(r.value()), std::move(m.value()), words));
}

std::vector<ParamSpec> params() {
    return {ParamSpec::text("sequence", "c c d c a e ; c c d", 200, vocabulary())};
}

const DemoDef sequence_lab_def = [] {
    DemoDef d;
    d.id = "sequence_lab";
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

// bayes_posterior: in-context learning as implicit Bayesian inference (Xie et al. 2022).
// A tiny GPT trained on documents from a mixture of HMM "concepts" against the exact
// answer: the posterior over concepts given the prompt (forward algorithm) and the
// Bayes-optimal next symbol, as the number of demonstrations k grows; and a concept
// outside the mixture for contrast.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "icl/demo.h"
#include "icl/demo_memory.h"
#include "icl/hmm.h"
#include "icl/recipe.h"

namespace icl {
namespace {

class BayesSession : public Session {
public:
    BayesSession(const DemoContext& ctx, recipe::Recipe r, gpt::Model m)
        : ctx_(ctx), recipe_(std::move(r)), model_(std::move(m)), mixture_(recipe_.hmm.mixture()),
          unseen_(recipe::unseen_concept(recipe_.hmm)) {
        k_max_ = std::min(ctx.params.i("k_max"), recipe_.hmm.segments - 1);
        query_ = ctx.params.i("query_symbols");
    }
    // One unit = one k: the mixture's concepts and the unseen one.
    void step(int budget) override {
        for (int b = 0; b < budget && !done(); ++b, ++k_) {
            const int n = ctx_.params.i("prompts");
            recipe::HmmScores seen;
            for (size_t c = 0; c < mixture_.concepts.size(); ++c) {
                Rng rng(ctx_.seed * 31337u + c, (uint64_t)k_);
                const recipe::HmmScores sc = recipe::score_hmm(model_, acts_, mixture_, mixture_.concepts[c], k_, n, rng, query_);
                if (!sc.error.empty()) { error_ = sc.error; return; }
                const double w = 1.0 / (double)mixture_.concepts.size();
                seen.model_acc += w * sc.model_acc;
                seen.bayes_acc += w * sc.bayes_acc;
                seen.agreement += w * sc.agreement;
                seen.kl += w * sc.kl;
                seen.posterior_entropy += w * sc.posterior_entropy;
            }
            Rng rng(ctx_.seed * 31337u + 999u, (uint64_t)k_);
            const recipe::HmmScores un = recipe::score_hmm(model_, acts_, mixture_, unseen_, k_, n, rng, query_);
            if (!un.error.empty()) { error_ = un.error; return; }
            seen_.push_back(seen);
            unseen_scores_.push_back(un);
            // One prompt's posterior as demonstrations accumulate (the first concept's
            // segments, the heatmap's rows).
            Rng prng(ctx_.seed, 4242u);
            hmm::Prompt p = hmm::make_prompt(mixture_.concepts[(size_t)ctx_.params.i("concept")], k_max_, mixture_.segment_length, prng, query_);
            p.segments.resize((size_t)k_);
            const hmm::Inference inf = hmm::infer(mixture_, p);
            posterior_rows_.insert(posterior_rows_.end(), inf.posterior.begin(), inf.posterior.end());
        }
    }
    bool done() const override { return k_ > k_max_ || !error_.empty(); }

    double progress() const override { return (double)k_ / (k_max_ + 1); }
    std::vector<Panel> panels() const override {
        const Texts& msg = ctx_.text;
        std::vector<Panel> panels;
        const int n = (int)seen_.size();
        ScalarsPanel head{msg("panel.head.title"), {}};
        if (n > 0) {
            const recipe::HmmScores& a = seen_.front();
            const recipe::HmmScores& b = seen_.back();
            head.items.push_back({"kl_k0", a.kl, "nats", msg("scalar.kl_k0.help")});
            head.items.push_back({"kl_kmax", b.kl, "nats", msg("scalar.kl_kmax.help")});
            head.items.push_back({"acc_k0", a.model_acc, "", msg("scalar.acc_k0.help")});
            head.items.push_back({"acc_kmax", b.model_acc, "", msg("scalar.acc_kmax.help")});
            head.items.push_back({"bayes_acc_kmax", b.bayes_acc, "", msg("scalar.bayes_acc_kmax.help")});
            head.items.push_back({"entropy_k0", a.posterior_entropy, "nats", msg("scalar.entropy_k0.help")});
            head.items.push_back({"entropy_kmax", b.posterior_entropy, "nats", msg("scalar.entropy_kmax.help")});
            head.items.push_back({"unseen_acc_kmax", unseen_scores_.back().model_acc, "",
                                  msg("scalar.unseen_acc_kmax.help")});
        }
        panels.push_back(head);
        panels.push_back(NotePanel{
            msg("note.guide.title"),
            msg("note.guide.text")});
        LinesPanel acc{msg("panel.acc.title"), msg("axis.k"),
                       msg("panel.acc.y"), false, false, {}};
        LinesPanel kl{msg("panel.kl.title"),
                      msg("axis.k"), "nats", false, false, {}};
        Series m{msg("series.model"), {}, {}, {}, false}, bo{msg("series.bayes"), {}, {}, {}, false},
            un{msg("series.model_unseen"), {}, {}, {}, true},
            k1{msg("series.model"), {}, {}, {}, false}, ent{msg("series.entropy"), {}, {}, {}, true};
        for (int k = 0; k < n; ++k) {
            for (Series* s : {&m, &bo, &un, &k1, &ent}) s->x.push_back(k);
            m.y.push_back(seen_[(size_t)k].model_acc);
            bo.y.push_back(seen_[(size_t)k].bayes_acc);
            un.y.push_back(unseen_scores_[(size_t)k].model_acc);
            k1.y.push_back(seen_[(size_t)k].kl);
            ent.y.push_back(seen_[(size_t)k].posterior_entropy);
        }
        acc.series = {m, bo, un};
        kl.series = {k1, ent};
        panels.push_back(acc);
        panels.push_back(kl);
        HeatmapPanel post{msg("panel.post.title"),
                          msg("panel.post.x"), msg("axis.k"), n,
                          (int)mixture_.concepts.size(), posterior_rows_, {}, {}, false};
        for (int k = 0; k < n; ++k) post.row_labels.push_back("k=" + std::to_string(k));
        for (size_t c = 0; c < mixture_.concepts.size(); ++c) post.col_labels.push_back("c" + std::to_string(c));
        panels.push_back(post);
        return panels;
    }

private:
    DemoContext ctx_;
    recipe::Recipe recipe_;
    gpt::Model model_;
    gpt::Activations acts_;  // every k's forward passes, one workspace (score_hmm)
    hmm::Mixture mixture_;
    hmm::Hmm unseen_;
    int k_ = 0, k_max_ = 0, query_ = 1;
    std::vector<recipe::HmmScores> seen_, unseen_scores_;
    std::vector<double> posterior_rows_;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto r = recipe::load_shipped("hmm");
    if (!r) return r.error();
    if (ctx.params.i("query_symbols") >= r.value().hmm.segment_length)
        return learner_error("error.query_symbols_outside", {{"value", std::to_string(ctx.params.i("query_symbols"))},
                                                             {"max", std::to_string(r.value().hmm.segment_length - 1)},
                                                             {"segment", std::to_string(r.value().hmm.segment_length)}});
    if (ctx.params.i("concept") >= r.value().hmm.concepts)
        return learner_error("error.concept_outside", {{"value", std::to_string(ctx.params.i("concept"))},
                                                       {"max", std::to_string(r.value().hmm.concepts - 1)}});
    auto m = recipe::load_checkpoint(r.value());
    if (!m) return m.error();
    return std::unique_ptr<Session>(new BayesSession(ctx, std::move(r.value()), std::move(m.value())));
}

// The peak is the forward of one (prompts, T) batch at k_max, plus the model: the batch
// grows with k, so a size past the budget must be refused at start, not at k_max.
size_t peak_bytes(const Params& p) {
    auto r = recipe::load_shipped("hmm");
    if (!r) return 0;  // start reports it
    const recipe::HmmSpec& h = r.value().hmm;
    const int k_max = std::min(p.i("k_max"), h.segments - 1);
    const int T = 1 + k_max * (h.segment_length + 1) + std::min(p.i("query_symbols"), h.segment_length - 1);
    const size_t floats = gpt::activation_count(r.value().model, p.i("prompts"), T) + gpt::parameter_count(r.value().model);
    return floats * sizeof(float) + (8u << 20);  // + prompts, posteriors and results
}

const DemoDef kBayesPosterior = [] {
    DemoDef d;
    d.id = "bayes_posterior";
    d.paper = "Xie et al. 2022";
    d.params = {
        // Largest problem: prompts 256 at k_max 7, within kDemoMemoryBudget (peak_bytes).
        // k_max: at most the shipped recipe's 8 segments less the query's (it was 1..16, and
        // every value past 7 drew the same as 7: a slider that moved nothing).
        ParamSpec::integer("k_max", 1, 7, 7, 1),
        ParamSpec::integer("prompts", 8, 256, 64, 1),
        // concept and query_symbols: the shipped recipe's 5 concepts and 6-symbol segments
        // (start refuses more for a retrained model with fewer).
        ParamSpec::integer("concept", 0, 4, 0, 1),
        ParamSpec::integer("query_symbols", 1, 5, 1, 1),
    };
    d.start = start;
    d.peak_bytes = peak_bytes;
    d.assets = {"checkpoints/hmm.json", "checkpoints/hmm.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kBayesPosterior);

}  // namespace
}  // namespace icl

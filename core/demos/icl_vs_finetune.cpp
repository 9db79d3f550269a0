// icl_vs_finetune (Dai et al. 2023, section 5): the same k demonstrations used two ways by
// the shipped task model — in the prompt (ICL), or as a training set for fine-tuning
// only W_K and W_V (SGD, batch 1, one epoch, same order) — compared with the metrics
// of the paper: Rec2FTP, SimAOU against a random update, SimAM and Kendall's τ.
// Two critiques beside them: every metric again for untrained models of the same
// architecture on the same prompts (Deutch et al. 2024: untrained models score alike),
// and how much the answer's probability moves when the demonstrations are put in
// another order, for ICL, for this fine-tuning and for full-batch gradient descent,
// which by construction ignores the order (Shen et al. 2024).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "icl/demo_panels.h"
#include "icl/format.h"
#include "icl/demo.h"
#include "icl/finetune.h"
#include "icl/gpt_probe.h"
#include "icl/gpt_train.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

// What one forward pass shows at its last position.
struct Look {
    bool correct = false;
    double p_target = 0;                  // the model's probability of the answer
    std::vector<std::vector<float>> out;  // [layer] heads' outputs (C) before Wo
    std::vector<std::vector<float>> att;  // [layer] attention (H*T) from the last position
    std::vector<int> tokens;
};

Expected<Look> look(const gpt::Model& m, const std::vector<int>& tokens, int target) {
    gpt::Activations acts;
    const int T = (int)tokens.size(), H = m.config.heads, V = m.config.vocab;
    if (Status s = gpt::forward(m, acts, tokens.data(), nullptr, 1, T); !s) return s.error();
    Look r;
    r.tokens = tokens;
    const tasks::SlotScore sc = tasks::score_logits(acts.logits_ptr() + (size_t)(T - 1) * V, V, target);
    r.correct = sc.correct;
    r.p_target = sc.prob;
    for (int l = 0; l < m.config.layers; ++l) {
        const gpt::View o = gpt::heads_output(acts, l, 0).value();  // (T,C)
        const auto last = xt::view(o, T - 1);                          // (C): the last position
        r.out.emplace_back(last.begin(), last.end());
        std::vector<float> a;
        for (int h = 0; h < H; ++h) {
            const gpt::View p = gpt::attention_map(acts, l, 0, h).value();  // (T,T)
            const auto query = xt::view(p, T - 1);                           // (T): the query's row
            a.insert(a.end(), query.begin(), query.end());
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
// full_batch: instead k steps of gradient descent on the mean loss over all the examples
// (the same number of steps and learning rate), which no order of the examples changes.
Status finetune_kv(gpt::Model& m, const std::vector<finetune::Example>& examples, float lr, bool full_batch = false) {
    finetune::Options o;
    o.optimizer.kind = OptimizerConfig::sgd;
    o.optimizer.lr = lr;
    o.optimizer.momentum = 0.0f;
    o.batch = full_batch ? 0 : 1;
    o.steps = (int)examples.size();
    o.trainable = kv_names(m);
    o.losses = false;  // only the weights are read
    if (auto r = finetune::finetune(m, examples, o); !r) return r.error();
    return Ok{};
}

// One model's outcomes over the queries: the accuracies and Dai et al.'s metrics, one
// entry per query (Kendall's τ only with k >= 2).
struct Tally {
    std::vector<bool> zsl, icl, ft;
    std::vector<double> simaou, simaou_rnd, simam_before, simam_after, kendall;
};

double accuracy(const std::vector<bool>& v) {
    double s = 0;
    for (bool x : v) s += x;
    return v.empty() ? 0 : s / v.size();
}

// Mean and spread (population sd) of a value over the untrained models.
// Values that are not numbers (an undefined Rec2FTP) are left out; NaN if none is left.
std::pair<double, double> mean_sd(const std::vector<double>& all) {
    std::vector<double> v;
    for (double x : all)
        if (std::isfinite(x)) v.push_back(x);
    const metrics::MeanSd s = metrics::mean_sd(v);
    return {s.mean, s.sd};
}

// The seed of untrained model i (0-based) of a run with seed `seed`: a test draws the same
// weights with gpt::make_model(config, untrained_seed(seed, i)).
uint64_t untrained_seed(uint64_t seed, int i) { return seed * 1000 + 500 + (uint64_t)i; }

// Dai et al.'s measurements of one model on one ICL prompt: ZSL, ICL and FT of W_K, W_V on
// its demonstrations; the random update (drawn from `rnd`) only when it is given; the
// leave-one-out runs for Kendall's τ.
Status measure(const gpt::Model& model, const tasks::Sequence& icl_prompt, float lr, Rng* rnd, Tally& out) {
    const std::vector<int>& prompt = icl_prompt.tokens;
    const int T = (int)prompt.size(), target = icl_prompt.slots.back().target, k = (int)icl_prompt.pairs.size();
    std::vector<finetune::Example> demos;
    for (const tasks::Span& d : icl_prompt.pairs) demos.push_back({prompt[(size_t)d.x], prompt[(size_t)d.y]});
    const tasks::Sequence zero_shot = tasks::format_prompt({}, prompt[(size_t)icl_prompt.query.x]);
    const std::vector<int>& zs = zero_shot.tokens;

    auto zsl = look(model, zs, target);
    auto icl = look(model, prompt, target);
    if (!zsl) return zsl.error();
    if (!icl) return icl.error();
    gpt::Model ft_model = model;
    if (Status st = finetune_kv(ft_model, demos, lr); !st) return st;
    auto ft = look(ft_model, zs, target);
    if (!ft) return ft.error();
    const int L = model.config.layers, H = model.config.heads, C = model.config.width;
    if (rnd) {
        // random update: each W_K / W_V moved by a Gaussian direction of the FT update's norm
        gpt::Model rnd_model = model;
        for (const std::string& name : kv_names(model)) {
            const gpt::TensorInfo* t = model.find(name);
            const double dn = finetune::delta_norm(ft_model.params.data() + t->offset, model.params.data() + t->offset, t->size);
            double rn = 0;
            std::vector<float> dir(t->size);
            for (size_t i = 0; i < t->size; ++i) {
                dir[i] = rnd->normal();
                rn += (double)dir[i] * dir[i];
            }
            const double scale = rn > 0 ? dn / std::sqrt(rn) : 0;
            for (size_t i = 0; i < t->size; ++i) rnd_model.params[t->offset + i] += (float)(scale * dir[i]);
        }
        auto r = look(rnd_model, zs, target);
        if (!r) return r.error();
        double aou_rnd = 0;
        for (int l = 0; l < L; ++l)
            aou_rnd += metrics::update_cosine(zsl.value().out[(size_t)l].data(), icl.value().out[(size_t)l].data(),
                                              r.value().out[(size_t)l].data(), (size_t)C) / L;
        out.simaou_rnd.push_back(aou_rnd);
    }

    out.zsl.push_back(zsl.value().correct);
    out.icl.push_back(icl.value().correct);
    out.ft.push_back(ft.value().correct);
    double aou = 0, am_before = 0, am_after = 0;
    for (int l = 0; l < L; ++l) {
        aou += metrics::update_cosine(zsl.value().out[(size_t)l].data(), icl.value().out[(size_t)l].data(),
                                      ft.value().out[(size_t)l].data(), (size_t)C) / L;
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
    out.simaou.push_back(aou);
    out.simam_before.push_back(am_before);
    out.simam_after.push_back(am_after);
    // Kendall's τ over the k demonstrations: ICL's attention to each (mean over layers
    // and heads of the mass on its 4 tokens) vs its leave-one-out influence on FT (Σ over
    // layers of ||h_FT − h_FT without it||).
    if (k >= 2) {
        std::vector<double> attention((size_t)k, 0.0), influence((size_t)k, 0.0);
        for (int j = 0; j < k; ++j) {
            for (int l = 0; l < L; ++l)
                for (int h = 0; h < H; ++h)
                    for (int p = icl_prompt.pairs[(size_t)j].x; p <= icl_prompt.pairs[(size_t)j].sep; ++p)
                        attention[(size_t)j] += icl.value().att[(size_t)l][(size_t)h * T + p] / (L * H);
            std::vector<finetune::Example> without = demos;
            without.erase(without.begin() + j);
            gpt::Model loo = model;
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
        out.kendall.push_back(metrics::kendall_tau(attention, influence).value());
    }
    return Ok{};
}

// The answer's probability under ICL, FT in the demonstrations' order, and full-batch GD,
// for the prompt's own order and `orders` − 1 others: per method, the spread (sd) over
// the orders of that probability (spread[0..2]) and of its log-odds ln(p / (1 − p))
// (spread[3..5]), which still moves where p is near 1.
Status order_spread(const gpt::Model& model, const tasks::Sequence& icl_prompt, float lr, int orders, Rng& rng,
                    double spread[6]) {
    const std::vector<int>& prompt = icl_prompt.tokens;
    const int target = icl_prompt.slots.back().target, qx = prompt[(size_t)icl_prompt.query.x];
    std::vector<tasks::Pair> pairs;
    for (const tasks::Span& d : icl_prompt.pairs) pairs.push_back({prompt[(size_t)d.x], prompt[(size_t)d.y]});
    const std::vector<int> zs = tasks::format_prompt({}, qx).tokens;
    std::vector<double> p[3];
    for (int o = 0; o < orders; ++o) {
        if (o > 0)
            for (size_t i = pairs.size(); i > 1; --i) std::swap(pairs[i - 1], pairs[(size_t)rng.below((uint32_t)i)]);
        std::vector<finetune::Example> demos;
        for (const tasks::Pair& d : pairs) demos.push_back({d.x, d.y});
        auto icl = look(model, tasks::format_prompt(pairs, qx).tokens, target);
        if (!icl) return icl.error();
        p[0].push_back(icl.value().p_target);
        for (int full = 0; full < 2; ++full) {
            gpt::Model m = model;
            if (Status st = finetune_kv(m, demos, lr, full == 1); !st) return st;
            auto r = look(m, zs, target);
            if (!r) return r.error();
            p[1 + full].push_back(r.value().p_target);
        }
    }
    for (int i = 0; i < 3; ++i) {
        spread[i] = mean_sd(p[i]).second;
        std::vector<double> logit;
        for (double x : p[i]) logit.push_back(std::log(std::max(x, 1e-300)) - std::log1p(-std::min(x, 1.0 - 1e-16)));
        spread[3 + i] = mean_sd(logit).second;
    }
    return Ok{};
}

class IclVsFtSession : public Session {
public:
    IclVsFtSession(const DemoContext& ctx, gpt::Model m)
        : ctx_(ctx), model_(std::move(m)), rng_(ctx.seed, 31), order_rng_(ctx.seed, 32) {
        for (int i = 0; i < ctx.params.i("untrained"); ++i)
            untrained_models_.push_back(gpt::make_model(model_.config, untrained_seed(ctx.seed, i)).value());
        untrained_.resize(untrained_models_.size());
    }

    // One unit = one model on one query (ZSL, ICL, FT, the leave-one-out runs; for the
    // trained model also the random update), or the orders of one query: a query is
    // 1 + untrained + (orders >= 2) units, so that a unit stays short at the largest sizes.
    void step(int budget) override {
        for (int u = 0; u < budget && !done(); ++u) {
            if (Status s = one_unit(); !s) error_ = s.error().message;
        }
    }
    bool done() const override { return queries_done_ >= ctx_.params.i("queries") || !error_.empty(); }
    double progress() const override {
        return (queries_done_ + (double)unit_ / units_per_query()) / ctx_.params.i("queries");
    }
    std::vector<Panel> panels() const override;

private:
    int units_per_query() const { return 1 + (int)untrained_models_.size() + (ctx_.params.i("orders") >= 2 ? 1 : 0); }

    Status one_unit() {
        const float lr = ctx_.params.f("lr");
        if (unit_ == 0) {  // a new query: its prompt, then the trained model
            const tasks::Suite& s = tasks::suite();
            tasks::PromptOptions o;
            o.shots = ctx_.params.i("shots");
            auto seq = tasks::make_prompt(s, s.find_task(ctx_.params.s("task")), o, rng_);
            if (!seq) return seq.error();
            query_ = std::move(seq.value());
            if (Status st = measure(model_, query_, lr, &rng_, trained_); !st) return st;
        } else if (unit_ <= (int)untrained_models_.size()) {
            const size_t i = (size_t)unit_ - 1;
            if (Status st = measure(untrained_models_[i], query_, lr, nullptr, untrained_[i]); !st) return st;
        } else {
            double sp[6];
            if (Status st = order_spread(model_, query_, lr, ctx_.params.i("orders"), order_rng_, sp); !st) return st;
            for (int i = 0; i < 6; ++i) order_sd_[i].push_back(sp[i]);
        }
        if (++unit_ == units_per_query()) {
            unit_ = 0;
            ++queries_done_;
        }
        return Ok{};
    }

    DemoContext ctx_;
    gpt::Model model_;
    Rng rng_, order_rng_;
    int queries_done_ = 0, unit_ = 0;  // queries finished; units of the current one done
    tasks::Sequence query_;             // the current query's prompt
    Tally trained_;
    std::vector<gpt::Model> untrained_models_;
    std::vector<Tally> untrained_;
    std::vector<double> order_sd_[6];  // per query: ICL, FT in order, full-batch GD; then their log-odds'
};

// Each metric of a tally, by scalar name (the trained model's names).
std::vector<std::pair<std::string, double>> metric_values(const Tally& t) {
    const auto rec = metrics::rec2ftp(t.zsl, t.ft, t.icl).value();
    const double before = metrics::mean(t.simam_before), after = metrics::mean(t.simam_after);
    // Rec2FTP has no denominator where FT fixes no query: NaN, left out of the means
    return {{"zsl_acc", accuracy(t.zsl)},     {"ft_acc", accuracy(t.ft)},       {"icl_acc", accuracy(t.icl)},
            {"rec2ftp", rec.ft_fixed ? rec.value : NAN},           {"ft_fixed", (double)rec.ft_fixed}, {"simaou", metrics::mean(t.simaou)},
            {"simam_zsl", before},            {"simam_ft", after},              {"simam_rise", after - before},
            {"kendall_tau", metrics::mean(t.kendall)}};
}

std::vector<Panel> IclVsFtSession::panels() const {
    const Texts& msg = ctx_.text;
    std::vector<Panel> panels;
    const auto rec = metrics::rec2ftp(trained_.zsl, trained_.ft, trained_.icl).value();
    const double simaou = metrics::mean(trained_.simaou), simaou_rnd = metrics::mean(trained_.simaou_rnd),
                 simam_before = metrics::mean(trained_.simam_before), simam_after = metrics::mean(trained_.simam_after),
                 kendall = metrics::mean(trained_.kendall);
    ScalarsPanel s{msg("panel.summary.title"), {}};
    s.items.push_back({"zsl_acc", accuracy(trained_.zsl), "", msg("scalar.zsl_acc.help")});
    s.items.push_back({"ft_acc", accuracy(trained_.ft), "", msg("scalar.ft_acc.help")});
    s.items.push_back({"icl_acc", accuracy(trained_.icl), "", msg("scalar.icl_acc.help")});
    s.items.push_back({"rec2ftp", rec.value, "", msg("scalar.rec2ftp.help")});
    s.items.push_back({"ft_fixed", (double)rec.ft_fixed, "", msg("scalar.ft_fixed.help")});
    s.items.push_back({"simaou", simaou, "", msg("scalar.simaou.help")});
    s.items.push_back({"simaou_random", simaou_rnd, "", msg("scalar.simaou_random.help")});
    s.items.push_back({"simam_zsl", simam_before, "", msg("scalar.simam_zsl.help")});
    s.items.push_back({"simam_ft", simam_after, "", msg("scalar.simam_ft.help")});
    s.items.push_back({"simam_rise", simam_after - simam_before, "", msg("scalar.simam_rise.help")});
    s.items.push_back({"kendall_tau", kendall, "", msg("scalar.kendall_tau.help")});

    // Untrained models: each metric's mean and spread over the initialisations.
    std::vector<std::pair<double, double>> base;  // in metric_values' order
    if (!untrained_.empty() && !untrained_[0].zsl.empty()) {
        std::vector<std::vector<double>> per;  // [metric][model]
        for (const Tally& t : untrained_) {
            const auto v = metric_values(t);
            per.resize(v.size());
            for (size_t i = 0; i < v.size(); ++i) per[i].push_back(v[i].second);
        }
        const auto names = metric_values(trained_);
        for (size_t i = 0; i < per.size(); ++i) {
            base.push_back(mean_sd(per[i]));
            s.items.push_back({names[i].first + "_untrained", base[i].first, "",
                               msg("scalar.untrained.help", {{"metric", names[i].first}, {"n", (int)untrained_.size()}})});
            s.items.push_back({names[i].first + "_untrained_sd", base[i].second, "", msg("scalar.untrained_sd.help")});
        }
    }
    // The order of the demonstrations: the answer's probability, its spread over the orders.
    if (!order_sd_[0].empty()) {
        const int n = ctx_.params.i("orders");
        s.items.push_back({"order_sd_icl", metrics::mean(order_sd_[0]), "", msg("scalar.order_sd_icl.help", {{"n", n}})});
        s.items.push_back({"order_sd_ft", metrics::mean(order_sd_[1]), "", msg("scalar.order_sd_ft.help", {{"n", n}})});
        s.items.push_back({"order_sd_gd", metrics::mean(order_sd_[2]), "", msg("scalar.order_sd_gd.help", {{"n", n}})});
        s.items.push_back({"order_sd_icl_logodds", metrics::mean(order_sd_[3]), "", msg("scalar.order_sd_logodds.help", {{"n", n}, {"method", "ICL"}})});
        s.items.push_back({"order_sd_ft_logodds", metrics::mean(order_sd_[4]), "", msg("scalar.order_sd_logodds.help", {{"n", n}, {"method", "FT (SGD)"}})});
        s.items.push_back({"order_sd_gd_logodds", metrics::mean(order_sd_[5]), "", msg("scalar.order_sd_logodds.help", {{"n", n}, {"method", "GD (full batch)"}})});
    }
    panels.push_back(s);
    panels.push_back(guide_note(msg));
    auto untrained_cell = [&](size_t i) {
        return i < base.size() && std::isfinite(base[i].first)
                   ? format_number(base[i].first, "%.3f") + " ± " + format_number(base[i].second, "%.3f")
                   : std::string("–");
    };
    // rows: Rec2FTP (3), SimAOU (5), SimAM before → after (6, 7), Kendall τ (9) of metric_values
    TablePanel t{msg("panel.paper.title"),
                 {msg("panel.paper.col.metric"), msg("panel.paper.col.ours"), msg("panel.paper.col.untrained"), "GPT 1.3B", "GPT 2.7B"}, {}};
    t.rows.push_back({"Rec2FTP", format_number(rec.value, "%.3f"), untrained_cell(3), "0.8556", "0.8939"});
    t.rows.push_back({"SimAOU", format_number(simaou, "%.3f"), untrained_cell(5), "0.186", "0.225"});
    t.rows.push_back({msg("panel.paper.row.random_update"), format_number(simaou_rnd, "%.3f"), "–", "≈ 0", "≈ 0"});
    t.rows.push_back({msg("panel.paper.row.simam"), format_number(simam_before, "%.3f") + " → " + format_number(simam_after, "%.3f"),
                      base.size() > 7 ? format_number(base[6].first, "%.3f") + " → " + format_number(base[7].first, "%.3f") : "–",
                      "0.338 → 0.442", "0.355 → 0.434"});
    t.rows.push_back({"Kendall τ", format_number(kendall, "%.3f"), untrained_cell(9), "0.193", "0.214"});
    panels.push_back(t);
    BarsPanel acc{msg("panel.acc.title"), msg("panel.acc.y"), {"ZSL", "FT", "ICL"},
                  {accuracy(trained_.zsl), accuracy(trained_.ft), accuracy(trained_.icl)}, {}};
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
    d.paper = "Dai et al. 2023; Deutch et al. 2024; Shen et al. 2024";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", tasks::task_ids(), "continent"),
        ParamSpec::integer("shots", 1, 16, 8, 1),
        ParamSpec::integer("queries", 1, 64, 24, 1),
        ParamSpec::real("lr", 1e-4, 1, 3e-3, 1e-4),
        ParamSpec::integer("untrained", 0, 8, 5, 1),
        ParamSpec::integer("orders", 0, 8, 4, 1),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kIclVsFinetune);

}  // namespace
}  // namespace icl

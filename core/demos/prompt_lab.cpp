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
#include "icl/demo_analytic.h"
#include "icl/function_vector.h"
#include "icl/generate.h"
#include "icl/gpt_probe.h"
#include "icl/icl_split.h"
#include "icl/metrics.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

constexpr int kLayers = 4, kHeads = 4;  // the shipped task model (checked at start)

using gpt::head_name;

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

// "none", or a task whose function vector to add.
std::vector<std::string> fv_choices() {
    std::vector<std::string> c = {"none"};
    for (const std::string& id : tasks::unremapped_task_ids()) c.push_back(id);
    return c;
}

std::vector<std::string> head_choices() {
    std::vector<std::string> v;
    for (int l = 0; l < kLayers; ++l)
        for (int h = 0; h < kHeads; ++h) v.push_back(head_name(l, h));
    return v;
}


std::string prob(double v) {  // a probability: small ones keep their digits (3.1e-05)
    return format_number(v, v >= 0.001 ? "%.3f" : "%.2g");
}

class PromptLabSession : public AnalyticSession {
public:
    PromptLabSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}
    void compute() override {
        if (Status s = run(); !s) error_ = s.error().message;
    }
    std::vector<Panel> draw() const override;
    std::string headline(const std::vector<Panel>& panels) const override;

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
    static constexpr int kMaxOrders = 24;           // the prompt's own order and up to 23 others
    int order_count_ = 0;                           // orders run (0: fewer than 2 demonstrations)
    double order_p_min_ = NAN, order_p_max_ = NAN;  // the answer's probability over the orders
    double order_dw_moved_ = 0;                     // max over orders of mean_heads ‖ΔW_ICL q − own order's‖ / ‖own order's‖
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
        // KL(plain ‖ with the options) over the vocabulary; rounding's tiny negatives read as 0
        kl_ = std::max(0.0, metrics::kl_divergence(std::vector<double>(p_plain_.begin(), p_plain_.end()),
                                                   std::vector<double>(p_.begin(), p_.end())));
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
            const gpt::View a = gpt::attention_map(acts, l, 0, h).value();  // (T,T)
            for (int j = 0; j < T; ++j) last_att_.push_back(a(T - 1, j));
            if (l * H + h == chosen) head_att_.insert(head_att_.end(), a.begin(), a.end());
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
    // the order of the demonstrations (Shen et al. 2024): every other order (at most
    // kMaxOrders − 1, drawn at random when there are more), the answer's probability and
    // how far ΔW_ICL q moves in each head, relative to the prompt's own order
    if (k_ >= 2) {
        const int demo_to = T - (int)query.size();
        std::vector<int> perm((size_t)k_);
        for (int d = 0; d < k_; ++d) perm[(size_t)d] = d;
        std::vector<std::vector<int>> orders;
        long long total = 1;
        for (int d = 2; d <= k_ && total < 1000000; ++d) total *= d;
        if (total <= kMaxOrders) {
            while (std::next_permutation(perm.begin(), perm.end())) orders.push_back(perm);
        } else {
            Rng rng(ctx_.seed, 43);
            for (int o = 1; o < kMaxOrders; ++o) {
                for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[(size_t)rng.below((uint32_t)i)]);
                orders.push_back(perm);
            }
        }
        order_p_min_ = order_p_max_ = p_[(size_t)answer_];
        order_count_ = 1 + (int)orders.size();
        for (const std::vector<int>& o : orders) {
            std::vector<int> po = {tasks::kBos};
            for (int d : o) {
                po.insert(po.end(), segments[(size_t)d].begin(), segments[(size_t)d].end());
                po.push_back(tasks::kSep);
            }
            po.insert(po.end(), query.begin(), query.end());
            std::vector<float> pp;
            if (Status st = probs(po, true, pp); !st) return st;
            order_p_min_ = std::min(order_p_min_, (double)pp[(size_t)answer_]);
            order_p_max_ = std::max(order_p_max_, (double)pp[(size_t)answer_]);
            gpt::Activations ao;
            if (Status st = gpt::forward(model_, ao, po.data(), nullptr, 1, T); !st) return st;
            double moved = 0;
            for (int l = 0; l < L; ++l)
                for (int h = 0; h < H; ++h) {
                    const HeadSplit sp = split_head(ao, model_.config, l, h, 0, T - 1, 1, std::max(1, demo_to));
                    const std::vector<float>& a = splits_[(size_t)(l * H + h)].icl;
                    double d2 = 0, n2 = 0;
                    for (size_t i = 0; i < a.size(); ++i) {
                        d2 += ((double)sp.icl[i] - a[i]) * ((double)sp.icl[i] - a[i]);
                        n2 += (double)a[i] * a[i];
                    }
                    moved += (n2 > 0 ? std::sqrt(d2 / n2) : 0.0) / (L * H);
                }
            order_dw_moved_ = std::max(order_dw_moved_, moved);
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

std::vector<Panel> PromptLabSession::draw() const {
    const Texts& msg = ctx_.text;
    const tasks::Suite& s = tasks::suite();
    std::vector<Panel> panels;
    const int V = model_.config.vocab, T = (int)tokens_.size(), L = kLayers, H = kHeads;
    auto word = [&](int id) { return id >= 0 ? s.words[(size_t)id] : std::string("—"); };
    std::vector<int> order(V);
    for (int v = 0; v < V; ++v) order[(size_t)v] = v;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p_[(size_t)a] > p_[(size_t)b]; });
    const int top = order[0];

    ScalarsPanel sc{msg("panel.summary.title"), {}};
    sc.items.push_back({"p_top", p_[(size_t)top], "", msg("scalar.p_top.help")});
    sc.items.push_back({"p_answer", p_[(size_t)answer_], "",
                        msg("scalar.p_answer.help")});
    sc.items.push_back({"label_in_context", label_ >= 0 ? 1.0 : 0.0, "",
                        msg("scalar.label_in_context.help")});
    sc.items.push_back({"top_is_answer", top == answer_ ? 1.0 : 0.0, "", msg("scalar.top_is_answer.help")});
    sc.items.push_back({"follows_label", label_ < 0 ? -1.0 : top == label_ ? 1.0 : 0.0, "",
                        msg("scalar.follows_label.help")});
    {
        double ratio = 0;
        for (const HeadSplit& sp : splits_) ratio += sp.demo_norm_ratio / (double)splits_.size();
        sc.items.push_back({"demo_norm_ratio", ratio, "",
                            msg("scalar.demo_norm_ratio.help")});
    }
    const int top_plain = (int)(std::max_element(p_plain_.begin(), p_plain_.end()) - p_plain_.begin());
    sc.items.push_back({"top_changed", top != top_plain ? 1.0 : 0.0, "",
                        msg("scalar.top_changed.help")});
    sc.items.push_back({"p_answer_zero_shot", curve_.empty() ? 0.0 : curve_.front(), "",
                        msg("scalar.p_answer_zero_shot.help")});
    sc.items.push_back({"demonstrations", (double)k_, "", msg("scalar.demonstrations.help")});
    sc.items.push_back({"tokens", (double)(T - 1), "", msg("scalar.tokens.help")});
    sc.items.push_back({"kl_options", kl_, "nats",
                        msg("scalar.kl_options.help")});
    sc.items.push_back({"p_answer_plain", p_plain_[(size_t)answer_], "",
                        msg("scalar.p_answer_plain.help")});
    sc.items.push_back({"orders", (double)order_count_, "", msg("scalar.orders.help")});
    sc.items.push_back({"order_p_answer_min", order_p_min_, "", msg("scalar.order_p_answer_min.help")});
    sc.items.push_back({"order_p_answer_max", order_p_max_, "", msg("scalar.order_p_answer_max.help")});
    sc.items.push_back({"order_dw_moved", order_dw_moved_, "", msg("scalar.order_dw_moved.help")});
    panels.push_back(sc);

    BarsPanel bars{msg("panel.bars.title"), msg("panel.bars.y"), {}, {}, {}};
    bars.beside = "prompt";  // the answer next to the prompt that asks it
    for (int i = 0; i < 10 && i < V; ++i) {
        bars.labels.push_back(word(order[(size_t)i]));
        bars.values.push_back(p_[(size_t)order[(size_t)i]]);
    }
    panels.push_back(bars);

    TablePanel cmp{msg("panel.cmp.title"),
                   {msg("panel.cmp.col.what"), msg("panel.cmp.col.word"), msg("panel.cmp.col.p_prompt"),
                    msg("panel.cmp.col.p_zero_shot")}, {}};
    const double zs_of = [&] { return curve_.empty() ? 0.0 : curve_.front(); }();
    cmp.rows.push_back({msg("panel.cmp.row.answer"), word(top), prob(p_[(size_t)top]), "—"});
    if (label_ >= 0)
        cmp.rows.push_back({msg("panel.cmp.row.label"), word(label_),
                            prob(p_[(size_t)label_]), prob(zs_of)});
    if (zs_top_ >= 0)
        cmp.rows.push_back({msg("panel.cmp.row.zero_shot"), word(zs_top_),
                            prob(p_[(size_t)zs_top_]), prob(p_zs_top_)});
    panels.push_back(cmp);

    LinesPanel curve{msg("panel.curve.title"),
                     msg("panel.curve.x"), "P(" + word(answer_) + ")", false, false, {}};
    Series cs{"P(" + word(answer_) + ")", {}, {}, {}, false};
    for (size_t j = 0; j < curve_.size(); ++j) { cs.x.push_back((double)j); cs.y.push_back(curve_[j]); }
    curve.series.push_back(cs);
    panels.push_back(curve);

    std::vector<std::string> toks, heads;
    for (int t = 0; t < T; ++t) toks.push_back(word(tokens_[(size_t)t]));
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) heads.push_back(head_name(l, h));
    panels.push_back(HeatmapPanel{msg("panel.last_att.title"),
                                    msg("axis.key"), msg("panel.last_att.y"), L * H, T, last_att_, heads, toks, false});
    panels.push_back(HeatmapPanel{msg("panel.head_att.title", {{"head", ctx_.params.s("head")}}),
                                    msg("axis.key"), msg("panel.head_att.y"), T, T, head_att_, toks, toks, false});

    TablePanel split{msg("panel.split.title"),
                     {"head", "‖W_ZSL q‖", "‖ΔW_ICL q‖", msg("panel.split.col.cos")}, {}};
    for (size_t i = 0; i < splits_.size(); ++i)
        split.rows.push_back({heads[i], format_number(metrics::norm(splits_[i].zsl), "%.3f"), format_number(metrics::norm(splits_[i].icl), "%.3f"), format_number(splits_[i].cosine, "%.3f")});
    panels.push_back(split);

    std::string cont;
    for (int id : continuation_) cont += (cont.empty() ? "" : " ") + word(id);
    std::string prompt_text;
    for (int t = 1; t < T; ++t) prompt_text += (t > 1 ? " " : "") + word(tokens_[(size_t)t]);
    TablePanel gen{msg("panel.gen.title"),
                   {msg("panel.gen.col.prompt"), msg("panel.gen.col.continuation")}, {{prompt_text, cont.empty() ? "—" : cont}}};
    panels.push_back(gen);

    std::string note = msg("note.computed.text");
    if (!ablated_.empty()) {
        std::string hs;
        for (const auto& [l, h] : ablated_) hs += (hs.empty() ? "" : ", ") + head_name(l, h);
        note += msg("note.computed.ablated", {{"heads", hs}});
    }
    if (!fv_.empty()) {
        std::string hs;
        for (const auto& h : fv_top_) hs += (hs.empty() ? "" : ", ") + h;
        note += msg("note.computed.fv", {{"task", ctx_.params.s("fv_task")}, {"heads", hs}, {"layer", ctx_.params.i("fv_layer")}});
    }
    if (has_options())
        note += msg("note.computed.options", {{"before", prob(p_plain_[(size_t)answer_])}, {"after", prob(p_[(size_t)answer_])}, {"kl", kl_}});
    if ((int)continuation_.size() < asked_continue_)
        note += msg("note.computed.context_end");
    panels.push_back(NotePanel{msg("note.computed.title"), note});
    return panels;
}

// What the model answers, and whether that is the label the prompt gives the query.
std::string PromptLabSession::headline(const std::vector<Panel>&) const {
    if (!computed() || p_.empty()) return "";
    const auto& words = tasks::suite().words;
    const int top = (int)(std::max_element(p_.begin(), p_.end()) - p_.begin());
    const std::string answer = words[(size_t)top];
    const double p = 100.0 * p_[(size_t)top];
    if (label_ < 0) return ctx_.text("headline.own", {{"answer", answer}, {"p", p}});
    if (top == label_) return ctx_.text("headline.follows", {{"answer", answer}, {"p", p}});
    return ctx_.text("headline.departs", {{"answer", answer}, {"p", p}, {"label", words[(size_t)label_]},
                                          {"p_label", 100.0 * p_[(size_t)label_]}});
}

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    const int n = (int)ctx.params.tokens("prompt").size(), most = m.value().config.context - 1;
    if (n == 0) return learner_error("error.prompt_empty", {});
    if (n > most) return learner_error("error.prompt_too_long", {{"count", std::to_string(n)}, {"max", std::to_string(most)}});
    return std::unique_ptr<Session>(new PromptLabSession(ctx, std::move(m.value())));
}

std::vector<ParamSpec> params() {
    return {
        ParamSpec::text("prompt", "hot → cold ; big → small ; fast →", 400, prompt_vocabulary()),
        ParamSpec::integer("continue", 0, 16, 6, 1),
        ParamSpec::choice("head", head_choices(), "L3H0"),
        ParamSpec::text("ablate", "", 200, head_vocabulary()),
        ParamSpec::choice("fv_task", fv_choices(), "none"),
        ParamSpec::integer("fv_layer", 0, 4, 1, 1),
    };
}

const DemoDef kPromptLab = [] {
    DemoDef d;
    d.id = "prompt_lab";
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

// pretrain_ft_icl: one model, one set of examples, three regimes — pre-trained only
// (zero-shot), fine-tuned on the examples (weights change: the norm of the change),
// and the examples in context (weights bit-identical: their hash before and after).
#include <cstdio>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/finetune.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

class RegimesSession : public AnalyticSession {
public:
    RegimesSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}

    void compute() override {
        const tasks::Suite& s = tasks::suite();
        const int task = s.find_task(ctx_.params.s("task"));
        const int k = ctx_.params.i("shots"), n = ctx_.params.i("queries");
        Rng rng(ctx_.seed, 17u);
        // One set of k examples and n queries: a curve sequence of k + n distinct pairs
        // would be too long for n > 16 - k, so the queries come as k-shot prompts that
        // share the same k demonstrations.
        auto base = tasks::make_curve_sequence(s, task, k, rng);
        if (!base) { error_ = base.error().message; return; }
        const tasks::Sequence& b = base.value();
        std::vector<tasks::Pair> demos;  // the curve's first k pairs (its query is not used)
        std::vector<finetune::Example> examples;
        for (int j = 0; j < k; ++j) {
            demos.push_back({b.tokens[(size_t)b.slots[(size_t)j].x], b.slots[(size_t)j].target});
            examples.push_back({demos.back().x, demos.back().y});
        }
        // Queries: training pairs not among the examples, with the prompt's label map
        // (topic_remap: the labels the examples show).
        const tasks::Task& t = s.tasks[(size_t)task];
        std::vector<std::pair<int, int>> queries;
        std::vector<int> label(s.vocab(), -1);
        for (const finetune::Example& e : examples)
            for (const tasks::Pair& p : t.pairs)
                if (p.x == e.x) label[(size_t)p.y] = e.y;
        std::vector<int> pool;
        for (size_t i = 0; i < t.pairs.size(); ++i) {
            bool used = false;
            for (const finetune::Example& e : examples) used |= e.x == t.pairs[i].x;
            const int y = t.remapped && k > 0 ? label[(size_t)t.pairs[i].y] : t.pairs[i].y;
            if (!used && !t.pairs[i].held_out && y >= 0) pool.push_back((int)i);
        }
        tasks::shuffle(pool, rng);
        for (int i = 0; i < n && i < (int)pool.size(); ++i) {
            const tasks::Pair& p = t.pairs[(size_t)pool[(size_t)i]];
            queries.push_back({p.x, t.remapped && k > 0 ? label[(size_t)p.y] : p.y});
        }
        if (queries.empty()) { error_ = "no query left for this task and k"; return; }

        auto score = [&](const gpt::Model& m, bool in_context, tasks::Accuracy& acc) -> bool {
            std::vector<int> tokens;
            for (const auto& q : queries) {
                const std::vector<int> p = tasks::format_prompt(in_context ? demos : std::vector<tasks::Pair>{}, q.first).tokens;
                tokens.insert(tokens.end(), p.begin(), p.end());
            }
            const int T = tasks::prompt_length(in_context ? k : 0, true), B = (int)queries.size(), V = s.vocab();
            std::vector<float> logits;
            if (Status st = recipe::logits_fn(m)(tokens, B, T, logits); !st) { error_ = st.error().message; return false; }
            for (int i = 0; i < B; ++i)
                acc.add(tasks::score_logits(logits.data() + ((size_t)i * T + T - 1) * (size_t)V, V, queries[(size_t)i].second));
            return true;
        };
        hash_before_ = finetune::weights_hash(model_.params);
        if (!score(model_, false, pre_)) return;
        if (k > 0 && !score(model_, true, icl_)) return;
        hash_after_ = finetune::weights_hash(model_.params);
        if (k > 0) {
            gpt::Model tuned = model_;
            finetune::Options fo;
            fo.steps = ctx_.params.i("ft_steps");
            fo.optimizer.lr = ctx_.params.f("ft_lr");
            auto losses = finetune::finetune(tuned, examples, fo);
            if (!losses) { error_ = losses.error().message; return; }
            ft_loss_ = losses.value();
            if (!score(tuned, false, ft_)) return;
            delta_ = finetune::delta_norm(tuned.params, model_.params);
            norm_ = finetune::delta_norm(model_.params, std::vector<float>(model_.params.size(), 0.0f));
            hash_ft_ = finetune::weights_hash(tuned.params);
        }
        const std::vector<int> shown = tasks::format_prompt(demos).tokens;  // BOS (x → y ;)^k
        if (k > 0) shown_ = s.text(shown, 1, (int)shown.size() - 1);    // without BOS and the last ";"
        n_ = (int)queries.size();
    }

    std::vector<Panel> draw() const override {
        const Texts& msg = ctx_.text;
        std::vector<Panel> panels;
        const bool have = ctx_.params.i("shots") > 0;
        ScalarsPanel head{msg("panel.head.title"), {}};
        head.items.push_back({"acc_pretrained", pre_.accuracy(), "", msg("scalar.acc_pretrained.help")});
        head.items.push_back({"acc_finetuned", ft_.accuracy(), "", msg("scalar.acc_finetuned.help")});
        head.items.push_back({"acc_in_context", icl_.accuracy(), "", msg("scalar.acc_in_context.help")});
        head.items.push_back({"ft_delta_norm", delta_, "", msg("scalar.ft_delta_norm.help")});
        head.items.push_back({"ft_delta_relative", norm_ > 0 ? delta_ / norm_ : 0, "", msg("scalar.ft_delta_relative.help")});
        head.items.push_back({"icl_weights_changed", hash_before_ == hash_after_ ? 0.0 : 1.0, "",
                              msg("scalar.icl_weights_changed.help")});
        head.items.push_back({"queries", (double)n_, "", msg("scalar.queries.help")});
        panels.push_back(head);
        panels.push_back(guide_note(msg));
        // the weights table first: "What to see" starts there
        TablePanel t{msg("panel.weights.title"), {msg("panel.weights.col.regime"), msg("panel.weights.col.hash"), msg("panel.weights.col.loss")}, {}};
        char lb[64];
        std::snprintf(lb, sizeof lb, "%.3f → %.3f", ft_loss_.before, ft_loss_.after);
        t.rows.push_back({msg("panel.weights.row.before"), hash_before_, ""});
        t.rows.push_back({msg("panel.weights.row.in_context"), hash_after_, ""});
        if (have) t.rows.push_back({msg("panel.weights.row.finetuned"), hash_ft_, lb});
        panels.push_back(t);
        panels.push_back(BarsPanel{msg("panel.acc.title"), msg("panel.acc.y"),
                                     {msg("panel.acc.bar.pretrained"), msg("panel.acc.bar.finetuned"),
                                      msg("panel.acc.bar.icl")},
                                     {pre_.accuracy(), ft_.accuracy(), icl_.accuracy()},
                                     {}});
        panels.push_back(NotePanel{msg("note.examples.title"), shown_});
        return panels;
    }

private:
    DemoContext ctx_;
    gpt::Model model_;
    std::string hash_before_, hash_after_, hash_ft_, shown_;
    tasks::Accuracy pre_, ft_, icl_;
    finetune::Losses ft_loss_;
    double delta_ = 0, norm_ = 0;
    int n_ = 0;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    return std::unique_ptr<Session>(new RegimesSession(ctx, std::move(m.value())));
}

const DemoDef kPretrainFtIcl = [] {
    DemoDef d;
    d.id = "pretrain_ft_icl";
    d.paper = "Brown et al. 2020 (GPT-3)";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", tasks::task_ids(), "antonym"),
        ParamSpec::integer("shots", 0, 16, 8, 1),
        ParamSpec::integer("queries", 1, 32, 16, 1),
        ParamSpec::integer("ft_steps", 1, 200, 10, 1),
        ParamSpec::real("ft_lr", 1e-5, 0.05, 3e-4, 1e-5),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kPretrainFtIcl);

}  // namespace
}  // namespace icl

// pretrain_ft_icl: one model, one set of examples, three regimes — pre-trained only
// (zero-shot), fine-tuned on the examples (weights change: the norm of the change),
// and the examples in context (weights bit-identical: their hash before and after).
#include <cstdio>

#include "icl/demo.h"
#include "icl/finetune.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

class RegimesSession : public Session {
public:
    RegimesSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {}

    void step(int) override {
        if (done_) return;
        done_ = true;
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
    bool done() const override { return done_; }

    std::vector<Panel> panels() const override {
        const Lang lang = ctx_.lang;
        std::vector<Panel> panels;
        if (!done_ || !error_.empty()) return panels;
        const bool have = ctx_.params.i("shots") > 0;
        ScalarsPanel head{tr(lang, "Three regimes, one model", "한 모델, 세 가지 방식"), {}};
        head.items.push_back({"acc_pretrained", pre_.accuracy(), "", tr(lang, "pre-trained only, zero-shot", "pre-training만, zero-shot")});
        head.items.push_back({"acc_finetuned", ft_.accuracy(), "", tr(lang, "fine-tuned on the examples, zero-shot", "예시로 fine-tuning 후 zero-shot")});
        head.items.push_back({"acc_in_context", icl_.accuracy(), "", tr(lang, "examples in the prompt, weights fixed", "예시를 prompt에 넣음, weight 고정")});
        head.items.push_back({"ft_delta_norm", delta_, "", tr(lang, "‖θ_ft − θ‖ (L2 over all weights)", "‖θ_ft − θ‖ (전체 weight의 L2)")});
        head.items.push_back({"ft_delta_relative", norm_ > 0 ? delta_ / norm_ : 0, "", tr(lang, "‖θ_ft − θ‖ / ‖θ‖", "‖θ_ft − θ‖ / ‖θ‖")});
        head.items.push_back({"icl_weights_changed", hash_before_ == hash_after_ ? 0.0 : 1.0, "",
                              tr(lang, "1 if the in-context run changed any weight bit", "in-context 실행이 weight를 한 bit라도 바꾸면 1")});
        head.items.push_back({"queries", (double)n_, "", tr(lang, "queries asked in each regime", "방식마다 물어본 질문 수")});
        panels.push_back(head);
        panels.push_back(NotePanel{
            tr(lang, "What to see", "무엇을 볼까"),
            tr(lang,
               "The same examples teach the model twice. Fine-tuning writes them into the weights: the weights move "
               "(see the norm of the change) and the question is asked without them. In context they are only read: "
               "the hash of every weight bit is the same before and after, yet the answers change. Which regime scores "
               "higher depends on the task and k in this tiny model; GPT-3's few-shot results (Brown et al. 2020) come "
               "without any gradient update, as here.",
               "같은 예시가 모델을 두 번 가르칩니다. fine-tuning은 예시를 weight에 적어 넣습니다: weight가 움직이고 "
               "(변화량의 norm을 보세요) 질문은 예시 없이 던집니다. in-context에서는 예시를 읽기만 합니다: 모든 weight "
               "bit의 hash가 실행 전후로 같은데도 답이 바뀝니다. 이 작은 모델에서 어느 쪽이 더 잘 맞히는지는 task와 k에 "
               "따라 다릅니다. GPT-3의 few-shot 결과 (Brown et al. 2020)도 여기처럼 gradient update 없이 나온 것입니다.")});
        panels.push_back(BarsPanel{tr(lang, "Accuracy by regime", "방식별 정확도"), tr(lang, "accuracy", "정확도"),
                                     {tr(lang, "pre-trained (zero-shot)", "pre-training만"), tr(lang, "fine-tuned", "fine-tuning"),
                                      tr(lang, "in context", "in-context")},
                                     {pre_.accuracy(), ft_.accuracy(), icl_.accuracy()},
                                     {}});
        TablePanel t{tr(lang, "Weights", "weight"), {tr(lang, "regime", "방식"), tr(lang, "weights hash (FNV-1a 64)", "weight hash (FNV-1a 64)"), tr(lang, "loss on the examples", "예시에 대한 loss")}, {}};
        char lb[64];
        std::snprintf(lb, sizeof lb, "%.3f → %.3f", ft_loss_.before, ft_loss_.after);
        t.rows.push_back({tr(lang, "before", "실행 전"), hash_before_, ""});
        t.rows.push_back({tr(lang, "after in-context", "in-context 후"), hash_after_, ""});
        if (have) t.rows.push_back({tr(lang, "after fine-tuning", "fine-tuning 후"), hash_ft_, lb});
        panels.push_back(t);
        panels.push_back(NotePanel{tr(lang, "The examples", "예시"), shown_});
        return panels;
    }

private:
    DemoContext ctx_;
    gpt::Model model_;
    bool done_ = false;
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
    d.title_en = "Pre-training, fine-tuning, in-context learning: one model, three regimes";
    d.title_ko = "pre-training, fine-tuning, in-context learning: 한 모델의 세 가지 방식";
    d.summary_en = "The same examples either fine-tune the model (its weights move) or sit in its prompt (its weights stay "
            "bit-identical); compare the accuracy of each with the pre-trained model alone.";
    d.summary_ko = "같은 예시로 모델을 fine-tuning하거나 (weight가 움직임) prompt에 넣고 (weight는 bit 단위로 그대로), "
            "pre-training만 한 모델과 정확도를 비교합니다.";
    d.paper = "Brown et al. 2020 (GPT-3)";
    d.analytic = true;
    d.params = {
        // Largest problem, every size at its max: peak 13 MiB for start + one step
        // (measured by tests/unit/test_bounds.cpp; the budget is 512 MiB of wasm's 1 GB).
        ParamSpec::choice("task", tasks::task_ids(), "antonym", "the task of the examples and queries",
                          "예시와 질문의 task"),
        ParamSpec::integer("shots", 0, 16, 8, 1, "number of examples k", "예시 수 k"),
        ParamSpec::integer("queries", 1, 32, 16, 1, "queries asked in each regime", "방식마다 물어볼 질문 수"),
        ParamSpec::integer("ft_steps", 1, 200, 10, 1, "AdamW steps of fine-tuning", "fine-tuning AdamW step 수"),
        ParamSpec::real("ft_lr", 1e-5, 0.05, 3e-4, 1e-5, "fine-tuning learning rate", "fine-tuning learning rate"),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kPretrainFtIcl);

}  // namespace
}  // namespace icl

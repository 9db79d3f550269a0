// demo_labels: what in the demonstrations matters? Min et al. 2022's ablations on the
// tiny task model: gold labels, random labels from the label space, no demonstrations,
// inputs from another distribution, labels outside the label space, and no format.
#include <cmath>
#include <cstdio>

#include "icl/demo.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace icl {
namespace {

// The bars, in order: (label id, condition, shots forced to 0?)
// (the label's words are the catalogue's "condition.<id>")
struct Condition { const char* id; tasks::DemoCondition cond; bool none; };
const Condition kConditions[] = {
    {"gold", tasks::DemoCondition::gold, false},
    {"random_labels", tasks::DemoCondition::random_labels, false},
    {"no_demos", tasks::DemoCondition::gold, true},
    {"ood_inputs", tasks::DemoCondition::ood_inputs, false},
    {"outside_labels", tasks::DemoCondition::outside_labels, false},
    {"no_format", tasks::DemoCondition::no_format, false},
};
constexpr int kN = 6;

class LabelsSession : public Session {
public:
    LabelsSession(const DemoContext& ctx, gpt::Model m) : ctx_(ctx), model_(std::move(m)) {
        task_ = tasks::suite().find_task(ctx.params.s("task"));
        seeds_ = ctx.params.i("seeds");
        acc_.assign(kN, {});
    }
    // One unit = one seed: every condition's prompts.
    void step(int budget) override {
        const tasks::Suite& s = tasks::suite();
        for (int b = 0; b < budget && !done(); ++b, ++seed_) {
            for (int c = 0; c < kN; ++c) {
                Rng rng(ctx_.seed * 7919u + (uint64_t)seed_, (uint64_t)c);
                std::vector<tasks::Sequence> seqs;
                for (int i = 0; i < ctx_.params.i("prompts"); ++i) {
                    tasks::PromptOptions o;
                    o.shots = kConditions[c].none ? 0 : ctx_.params.i("shots");
                    o.condition = kConditions[c].cond;
                    auto p = tasks::make_prompt(s, task_, o, rng);
                    if (!p) { error_ = p.error().message; return; }
                    seqs.push_back(std::move(p.value()));
                }
                auto a = tasks::evaluate(recipe::logits_fn(model_), seqs, s.vocab());
                if (!a) { error_ = a.error().message; return; }
                acc_[(size_t)c].push_back(a.value()[(size_t)seqs[0].slots[0].shots].accuracy());
            }
        }
    }
    bool done() const override { return seed_ >= seeds_ || !error_.empty(); }

    double progress() const override { return (double)seed_ / seeds_; }
    std::vector<Panel> panels() const override {
        const Texts& msg = ctx_.text;
        const tasks::Task& task = tasks::suite().tasks[(size_t)task_];
        std::vector<Panel> panels;
        std::vector<double> mean(kN, 0), sd(kN, 0);
        for (int c = 0; c < kN; ++c) {
            const auto& v = acc_[(size_t)c];
            for (double x : v) mean[(size_t)c] += x / (double)v.size();
            for (double x : v) sd[(size_t)c] += (x - mean[(size_t)c]) * (x - mean[(size_t)c]) / (double)v.size();
            sd[(size_t)c] = std::sqrt(sd[(size_t)c]);
        }
        ScalarsPanel head{msg("panel.head.title"), {}};
        for (int c = 0; c < kN; ++c)
            head.items.push_back({std::string("acc_") + kConditions[c].id, mean[(size_t)c], "", msg(std::string("condition.") + kConditions[c].id)});
        head.items.push_back({"gold_minus_random", mean[0] - mean[1], "",
                              msg("scalar.gold_minus_random.help")});
        head.items.push_back({"chance", task.chance(), "", msg("scalar.chance.help")});
        panels.push_back(head);
        panels.push_back(NotePanel{
            msg("note.guide.title"),
            msg("note.guide.text", {{"cost", 100 * (mean[0] - mean[1])}, {"gold", mean[0]}, {"random", mean[1]}})});
        BarsPanel bars{msg("panel.bars.title"), msg("panel.bars.y"), {}, mean, sd};
        for (int c = 0; c < kN; ++c) bars.labels.push_back(msg(std::string("condition.") + kConditions[c].id));
        panels.push_back(bars);
        return panels;
    }

private:
    DemoContext ctx_;
    gpt::Model model_;
    int task_ = 0, seeds_ = 1, seed_ = 0;
    std::vector<std::vector<double>> acc_;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto m = recipe::load_shipped_model("tasks");
    if (!m) return m.error();
    return std::unique_ptr<Session>(new LabelsSession(ctx, std::move(m.value())));
}

const DemoDef kDemoLabels = [] {
    DemoDef d;
    d.id = "demo_labels";
    d.paper = "Min et al. 2022";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::choice("task", {"topic", "continent", "category"}, "topic"),
        ParamSpec::integer("shots", 1, 16, 8, 1),
        ParamSpec::integer("seeds", 1, 10, 5, 1),
        ParamSpec::integer("prompts", 4, 128, 32, 1),
    };
    d.start = start;
    d.assets = {"checkpoints/tasks.json", "checkpoints/tasks.icl"};
    return d;
}();
ICL_REGISTER_DEMO(kDemoLabels);

}  // namespace
}  // namespace icl

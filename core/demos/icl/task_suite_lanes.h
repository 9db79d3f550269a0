// A few tiny GPTs trained side by side on the task suite's mixture, the training both
// fast_weights and momentum_attention run: one model per arm, each from the same init
// seed, all on the same batches of kBatch documents of `pairs` pairs (task-suite tokens,
// tasks::append_training_batch), Adam with clipping at 1. A demo says how each arm's model
// differs (arm_config), evaluates a seed and lists its lanes' fields (TrainedLanesSession).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/demo_seeded_lanes.h"
#include "icl/gpt_train.h"
#include "icl/tasks.h"

namespace icl {

// The model the arms share: the task suite's vocabulary, a context of `pairs` pairs, two
// layers of two heads, `width` wide (a parameter); a width the heads do not divide is refused.
inline Expected<gpt::Config> task_suite_config(const Params& p, int pairs) {
    gpt::Config c;
    c.vocab = tasks::suite().vocab();
    c.context = tasks::prompt_length(pairs, false);
    c.width = p.i("width");
    c.layers = 2;
    c.heads = 2;
    if (c.width % c.heads != 0) return learner_error("error.width_even", {{"width", std::to_string(c.width)}});
    if (Status s = gpt::validate(c); !s) return s.error();
    return c;
}

// DemoDef::start of a task-suite demo: its session S, made from the context and
// task_suite_config's model for documents of `pairs` pairs (refusing what that refuses).
template <class S, int pairs>
Expected<std::unique_ptr<Session>> start_task_suite(const DemoContext& ctx) {
    auto c = task_suite_config(ctx.params, pairs);
    if (!c) return c.error();
    return std::unique_ptr<Session>(new S(ctx, c.value()));
}

class TaskSuiteLanesSession : public TrainedLanesSession {
protected:
    static constexpr int kBatch = 16;

    // stream: the Rng stream of the training batches (a seed's, from run_seed); pairs: the
    // documents' pairs. The rest as TrainedLanesSession's. The demo's constructor calls
    // begin_seed() once its own members are made.
    TaskSuiteLanesSession(std::string id, const DemoContext& ctx, gpt::Config cfg, int pairs, uint64_t stream,
                          std::vector<int> lane_arms, int models, double keep, double add)
        : TrainedLanesSession(std::move(id), ctx.params.i("steps"), ctx.params.i("seeds"), ctx.lane, std::move(lane_arms),
                              models, keep, add),
          ctx_(ctx), cfg_(std::move(cfg)), models_(models), pairs_(pairs), stream_(stream) {}

    // Arm `arm`'s model: cfg_ with what sets it apart.
    virtual gpt::Config arm_config(int arm) const = 0;

    // The seed's models (every one this session trains, each from the seed's init) and batches.
    void begin_seed() override {
        const uint64_t seed = run_seed(ctx_.seed);
        rng_.emplace(seed, stream_);
        arms_.clear();
        arms_.resize((size_t)models_);
        OptimizerConfig o;
        o.lr = ctx_.params.f("lr");
        o.clip_norm = 1.0f;
        for (int i = 0; i < models_; ++i) {
            if (!trains(i)) continue;
            arms_[(size_t)i].model = gpt::make_model(arm_config(i), seed).value();
            arms_[(size_t)i].trainer.emplace(gpt::Trainer::make(arms_[(size_t)i].model, o).value());
        }
    }
    void draw_batch() override {
        tokens_.clear(), targets_.clear();
        tasks::append_training_batch(tasks::suite(), kBatch, pairs_, *rng_, tokens_, targets_);
    }
    std::optional<double> train_step(int arm) override {
        return loss_of(arms_[(size_t)arm].trainer->step(tokens_.data(), targets_.data(), kBatch, cfg_.context));
    }
    void drop_model(int arm) override { arms_[(size_t)arm].trainer.reset(); }

    struct Arm {
        gpt::Model model;
        std::optional<gpt::Trainer> trainer;  // empty: not trained here (another lane's)
    };
    DemoContext ctx_;
    gpt::Config cfg_;
    std::vector<Arm> arms_;  // [arm]: the current seed's

private:
    int models_ = 1, pairs_ = 1;
    uint64_t stream_ = 0;
    std::optional<Rng> rng_;
    std::vector<int> tokens_, targets_;  // the step's batch
};

}  // namespace icl

// The training loop the demos of lesson 4's linear self-attention layer share
// (lsa_training, preconditioner_lab). One step() unit is one Adam step on fresh tasks; a
// divergence watch keeps the last model whose loss passed it, which shown() then gives;
// the held-out curve gets a point every steps / kCurvePoints steps. A demo adds its
// held-out tasks (eval_), what it measures of the shown model, and its panels.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/demo_panels.h"
#include "icl/divergence.h"
#include "icl/linear_tasks.h"
#include "icl/lsa.h"

namespace icl {

class LsaSession : public Session {
public:
    static constexpr int kCurvePoints = 60;

    LsaSession(const DemoContext& ctx, const LsaTrainConfig& cfg)
        : ctx_(ctx), cfg_(cfg), trainer_(cfg, ctx.seed), total_steps_(ctx.params.i("steps")), good_(trainer_.model()) {}

    void step(int budget) override {
        const int every = std::max(1, total_steps_ / kCurvePoints);
        for (int b = 0; b < budget && !done(); ++b) {
            const int n = trainer_.steps() + 1;
            LsaModel before = trainer_.model();
            const double loss = trainer_.step();  // the loss of `before`
            error_ = watch_.check(n, loss, cfg_.lr, &ctx_.text);
            if (!error_.empty()) {                // result() shows good_, the curve stops at its last point
                measure();
                return;
            }
            good_ = std::move(before);
            good_steps_ = n - 1;
            if (trainer_.steps() % every == 0 || trainer_.steps() == total_steps_) record_eval();
        }
    }

    bool done() const override { return !error_.empty() || trainer_.steps() >= total_steps_; }
    double progress() const override { return double(trainer_.steps()) / total_steps_; }

protected:
    // After a divergence: the last model whose loss passed the check.
    const LsaModel& shown() const { return error_.empty() ? trainer_.model() : good_; }

    // What the demo reads of shown(): with each point of the curve and after a divergence,
    // so that its scalars describe one model and panels() only copies.
    virtual void measure() = 0;

    // A point of the held-out curve (mean ½(ŷ − y_q)² on eval_ by Adam step), then measure().
    void record_eval() {
        curve_.x.push_back(trainer_.steps());
        curve_.y.push_back(lsa_mean_loss(trainer_.model(), eval_));
        measure();
    }

    DemoContext ctx_;
    LsaTrainConfig cfg_;
    LsaTrainer trainer_;
    int total_steps_;
    std::vector<RegressionTask> eval_;  // the held-out tasks
    Series curve_;
    DivergenceWatch watch_;
    LsaModel good_;       // the model before the last step whose loss passed the watch
    int good_steps_ = 0;  // its Adam steps
};

}  // namespace icl

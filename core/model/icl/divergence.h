// Training divergence, checked after every optimizer step of every training loop in
// core: a NaN/Inf loss, or a loss that has exploded to kExplodeFactor times the first
// step's loss (at least kExplodeFactor × kLossFloor, so fine-tuning a model that starts
// near zero loss is not stopped for a merely bad step). The loop then stops, keeps its last good state, and puts the message
// in Result::error, e.g.
//   "training diverged at step 12: loss = inf (lr 5 is too large?)"
//   "training diverged at step 40: loss = 3.1e+05, 10000 times step 1's 0.52 (lr 0.5 is too large?)"
#pragma once
#include <string>

#include "icl/texts.h"

namespace icl {

class DivergenceWatch {
public:
    // Healthy training here falls or wanders within a few times its first loss;
    // 1e4 times is far past any of the demos' noise.
    static constexpr double kExplodeFactor = 1e4;
    static constexpr double kLossFloor = 0.1;

    // `loss` is the loss of step `step` (1-based) trained with learning rate `lr`.
    // Returns the message if training diverged there, "" if the step is fine: a demo's
    // catalogue words it (common.json's "diverged_nonfinite", "diverged_explode",
    // "diverged_explode_from_zero"; placeholders step, loss, first, ratio, lr); without
    // one (the core's own training loops) it is the English above.
    std::string check(int step, double loss, double lr, const Texts* text = nullptr);
    // " (lr 5 is too large?)": the tail of the English messages.
    static std::string lr_hint(double lr);
    // Its state (the first step's loss, < 0 before any), to save with a run and restore.
    double first_loss() const { return first_loss_; }
    void restore(double first_loss) { first_loss_ = first_loss; }

private:
    double first_loss_ = -1;   // < 0: no step seen yet
};

}  // namespace icl

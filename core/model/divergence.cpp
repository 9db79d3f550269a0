#include "icl/divergence.h"
#include "icl/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace icl {

namespace {
constexpr const char* kLoss = "%.3g";  // losses, ratios and learning rates in the messages
}  // namespace

std::string DivergenceWatch::lr_hint(double lr) { return " (lr " + format_number(lr, kLoss) + " is too large?)"; }

std::string DivergenceWatch::check(int step, double loss, double lr, const Texts* text) {
    if (std::isfinite(loss) && first_loss_ >= 0 && !(loss > kExplodeFactor * std::max(first_loss_, kLossFloor)))
        return "";  // the usual case, every training step: no message built (nothing allocated)
    const std::string at = std::to_string(step);
    const auto say = [&](const char* key, const std::string& english) {
        if (!text || !text->has(key)) return english;
        return (*text)(key, {{"step", step}, {"loss", std::isnan(loss) ? "nan" : std::isinf(loss) ? "inf" : format_number(loss, kLoss)}, {"lr", format_number(lr, kLoss)},
                             {"first", format_number(first_loss_, kLoss)},
                             {"ratio", first_loss_ > 0 ? format_number(loss / first_loss_, kLoss) : ""}});
    };
    if (!std::isfinite(loss))
        return say("diverged_nonfinite", "training diverged at step " + at + ": loss = " + (std::isnan(loss) ? "nan" : "inf") + lr_hint(lr));
    if (first_loss_ < 0) {
        first_loss_ = loss;
        return "";
    }
    if (loss > kExplodeFactor * std::max(first_loss_, kLossFloor)) {
        // (a first loss of exactly 0 has no ratio: say only what it was)
        if (first_loss_ > 0)
            return say("diverged_explode", "training diverged at step " + at + ": loss = " + format_number(loss, kLoss) + ", " +
                                               format_number(loss / first_loss_, kLoss) + " times step 1's " +
                                               format_number(first_loss_, kLoss) + lr_hint(lr));
        return say("diverged_explode_from_zero", "training diverged at step " + at + ": loss = " + format_number(loss, kLoss) +
                                                     ", step 1's " + format_number(first_loss_, kLoss) + lr_hint(lr));
    }
    return "";
}

}  // namespace icl

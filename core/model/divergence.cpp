#include "icl/divergence.h"
#include "icl/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace icl {

namespace {
constexpr const char* kLoss = "%.3g";  // losses, ratios and learning rates in the messages
}  // namespace

std::string DivergenceWatch::lr_hint(double lr, Lang lang) {
    return lang == Lang::ko ? " (lr " + format_number(lr, kLoss) + "이 너무 큰가요?)" : " (lr " + format_number(lr, kLoss) + " is too large?)";
}

std::string DivergenceWatch::check(int step, double loss, double lr, Lang lang) {
    if (std::isfinite(loss) && first_loss_ >= 0 && !(loss > kExplodeFactor * std::max(first_loss_, kLossFloor)))
        return "";  // the usual case, every training step: no message built (nothing allocated)
    const std::string at = std::to_string(step);
    const std::string hint = lr_hint(lr, lang);
    if (!std::isfinite(loss))
        return (lang == Lang::ko ? "학습이 step " + at + "에서 발산했습니다: loss = " : "training diverged at step " + at + ": loss = ") +
               (std::isnan(loss) ? "nan" : "inf") + hint;
    if (first_loss_ < 0) {
        first_loss_ = loss;
        return "";
    }
    if (loss > kExplodeFactor * std::max(first_loss_, kLossFloor)) {
        // (a first loss of exactly 0 has no ratio: say only what it was)
        const std::string ratio = first_loss_ > 0 ? format_number(loss / first_loss_, kLoss) : "";
        if (lang == Lang::ko)
            return "학습이 step " + at + "에서 발산했습니다: loss = " + format_number(loss, kLoss) + ", step 1의 " + format_number(first_loss_, kLoss) +
                   (ratio.empty() ? "" : "보다 " + ratio + "배") + hint;
        return "training diverged at step " + at + ": loss = " + format_number(loss, kLoss) + ", " +
               (ratio.empty() ? "" : ratio + " times ") + "step 1's " + format_number(first_loss_, kLoss) + hint;
    }
    return "";
}

}  // namespace icl

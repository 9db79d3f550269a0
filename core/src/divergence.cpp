#include "icl/divergence.h"

#include <cmath>
#include <cstdio>

namespace icl {

namespace {
std::string g(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}
}  // namespace

std::string DivergenceWatch::lr_hint(double lr, Lang lang) {
    return lang == Lang::ko ? " (lr " + g(lr) + "이 너무 큰가요?)" : " (lr " + g(lr) + " is too large?)";
}

std::string DivergenceWatch::check(int step, double loss, double lr, Lang lang) {
    const std::string at = std::to_string(step);
    const std::string hint = lr_hint(lr, lang);
    if (!std::isfinite(loss))
        return (lang == Lang::ko ? "학습이 step " + at + "에서 발산했습니다: loss = " : "training diverged at step " + at + ": loss = ") +
               (std::isnan(loss) ? "nan" : "inf") + hint;
    if (first_loss_ < 0) {
        first_loss_ = loss;
        return "";
    }
    if (first_loss_ > 0 && loss > kExplodeFactor * first_loss_)
        return (lang == Lang::ko ? "학습이 step " + at + "에서 발산했습니다: loss = " + g(loss) + ", step 1의 " + g(first_loss_) +
                                       "보다 " + g(loss / first_loss_) + "배"
                                 : "training diverged at step " + at + ": loss = " + g(loss) + ", " + g(loss / first_loss_) +
                                       " times step 1's " + g(first_loss_)) +
               hint;
    return "";
}

}  // namespace icl

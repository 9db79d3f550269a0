// Goodness of fit for the data generators' tests, computed here, not by the code under test.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

// CHECK(cond) that registers an assertion only when cond fails: for checks on every item of
// thousands of sequences, where doctest's bookkeeping per passing assertion would dominate
// the test's time (the wasm and ASan builds). cond is evaluated again on failure, so it must
// have no side effects.
#define ICL_CHECK_EACH(...)            \
    do {                               \
        if (!(__VA_ARGS__)) CHECK(__VA_ARGS__); \
    } while (0)

namespace icl::test {

// Pearson's χ² of observed counts against expected probabilities (summing to 1), after
// pooling the smallest-probability cells from the end until each pooled cell expects >= 5.
// Writes the degrees of freedom (cells − 1).
inline double chi_square(const std::vector<long>& counts, const std::vector<double>& probs, int* dof) {
    long n = 0;
    for (long c : counts) n += c;
    double stat = 0, e = 0, o = 0;
    int cells = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        e += probs[i] * n;
        o += counts[i];
        if (e >= 5 || i + 1 == counts.size()) {
            stat += (o - e) * (o - e) / e;
            ++cells;
            e = o = 0;
        }
    }
    *dof = cells - 1;
    return stat;
}

// The χ² value a statistic with `dof` degrees of freedom exceeds with probability 0.001
// (Wilson–Hilferty: within 1 % of the exact quantile for dof >= 3).
inline double chi_square_critical_999(int dof) {
    const double z = 3.090232306167813, k = dof, h = 2.0 / (9.0 * k);
    const double c = 1.0 - h + z * std::sqrt(h);
    return k * c * c * c;
}

}  // namespace icl::test

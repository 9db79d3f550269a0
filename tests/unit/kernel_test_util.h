// Helpers shared by the kernel tests (test_kernels*.cpp): random vectors, the worst
// error against a tolerance, central finite differences. Each test file compiles in a
// unity batch with others (CMakeLists.txt): the include guard keeps these to one copy a
// batch, and inline, a helper one file does not use costs nothing.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "icl/kernels.h"
#include "icl/rng.h"

using icl::AttentionMask;
using icl::Isa;

namespace {

inline std::vector<float> randv(icl::Rng& rng, size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform(lo, hi);
    return v;
}

// Largest |a − b| / (atol + rtol |b|); <= 1 means every entry is within tolerance.
inline double worst(const std::vector<float>& a, const std::vector<float>& b, double atol, double rtol) {
    REQUIRE(a.size() == b.size());
    double w = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double e = std::fabs((double)a[i] - b[i]) / (atol + rtol * std::fabs((double)b[i]));
        w = std::isnan(e) ? INFINITY : std::fmax(w, e);
    }
    return w;
}

inline std::string isa_str(Isa isa) { return icl::isa_name(isa); }

const int kAwkward[] = {1, 3, 7, 17, 63, 65, 129};

// Central differences of L = Σ W ∘ f(x) against the analytic gradient; the loss is
// summed in double. Checks every coordinate of x.
inline void check_gradient(const char* what, std::vector<float>& x, const std::vector<float>& grad,
                    const std::function<double()>& loss, float eps, double atol, double rtol) {
    REQUIRE(x.size() == grad.size());
    int bad = 0;
    double worst_err = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const float x0 = x[i];
        x[i] = x0 + eps;
        const double lp = loss();
        x[i] = x0 - eps;
        const double lm = loss();
        x[i] = x0;
        const double fd = (lp - lm) / (2.0 * eps);
        const double err = std::fabs(fd - grad[i]) / (atol + rtol * std::fabs(fd));
        worst_err = std::fmax(worst_err, err);
        bad += !(err <= 1.0);
    }
    INFO(std::string(what) << ": worst error / tolerance = " << worst_err);
    CHECK(bad == 0);
}

inline double weighted_sum(const std::vector<float>& w, const std::vector<float>& y) {
    double s = 0.0;
    for (size_t i = 0; i < y.size(); ++i) s += (double)w[i] * y[i];
    return s;
}

// grad − before, i.e. what a backward accumulated into a pre-filled buffer
inline std::vector<float> increment(const std::vector<float>& after, const std::vector<float>& before) {
    std::vector<float> d(after.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = after[i] - before[i];
    return d;
}

}  // namespace

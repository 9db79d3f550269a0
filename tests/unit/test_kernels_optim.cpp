// The optimizer kernels on every instruction set: the squared norm against a double sum,
// AdamW and SGD with momentum step for step against PyTorch's formulas.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "each_isa.h"
#include "icl/kernels.h"
#include "icl/rng.h"
#include "kernel_test_util.h"

using icl::AttentionMask;
using icl::Isa;

// ---- optimizers ------------------------------------------------------------------------------

TEST_CASE("kernels: sum_squares matches a double sum, every isa and length") {
    icl::test::EachIsa isas;
    icl::Rng rng(13);
    // past one float block (64 vectors, up to 1024 floats) and its tail; a gradient's spread
    // of magnitudes (1e-4 .. 1e2), so the float blocks lose nothing the clip could see
    for (size_t n : {(size_t)0, (size_t)1, (size_t)17, (size_t)255, (size_t)1024, (size_t)1025, (size_t)5000}) {
        std::vector<float> x(n);
        for (float& e : x) e = rng.normal(0.0f, 1.0f) * std::pow(10.0f, rng.uniform(-4.0f, 2.0f));
        double want = 0.0;
        for (float e : x) want += (double)e * e;
        double ref = -1.0;
        icl::ref::sum_squares(&ref, x.data(), n);
        CHECK(ref == want);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            double got = -1.0;
            icl::sum_squares(&got, x.data(), n);
            INFO("n=" << n << " isa=" << isa_str(isa));
            CHECK(std::fabs(got - want) <= 1e-6 * want);
        }
    }
}

TEST_CASE("kernels: AdamW follows PyTorch's AdamW step for step, every isa") {
    icl::test::EachIsa isas;
    // One step by hand: m = v = 0, g = 0.5, p = 1, lr = 0.1, wd = 0.01:
    // p = 1·(1 − 0.1·0.01) − 0.1 · 0.5 / (0.5 + 1e-8) = 0.899
    for (Isa isa : isas.list) {
        icl::set_isa(isa);
        float p = 1.0f, g = 0.5f, m = 0.0f, v = 0.0f;
        icl::adamw_update(&p, &g, &m, &v, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, 1, 1.0f);
        CHECK(p == doctest::Approx(0.899).epsilon(1e-6));
        CHECK(m == doctest::Approx(0.05));
        CHECK(v == doctest::Approx(0.00025));
        CHECK(g == 0.0f);  // consumed
    }
    // Five steps of torch.optim.AdamW's update (decay first, then the bias-corrected
    // step lr/bc1 · m / (sqrt(v)/sqrt(bc2) + eps)), in double, on awkward sizes, the
    // gradients scaled by 0.7 first (as clip_grad_norm_ would) through grad_scale.
    icl::Rng rng(12);
    const double lr = 3e-3, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
    for (int n : kAwkward) {
        const auto p0 = randv(rng, n);
        std::vector<std::vector<float>> grads;
        for (int t = 0; t < 5; ++t) grads.push_back(randv(rng, n));
        std::vector<double> pt(p0.begin(), p0.end()), mt(n, 0.0), vt(n, 0.0);
        for (int t = 1; t <= 5; ++t)
            for (int i = 0; i < n; ++i) {
                const double g = 0.7 * grads[t - 1][i];
                pt[i] *= 1.0 - lr * wd;
                mt[i] = b1 * mt[i] + (1 - b1) * g;
                vt[i] = b2 * vt[i] + (1 - b2) * g * g;
                const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
                pt[i] -= lr / bc1 * mt[i] / (std::sqrt(vt[i]) / std::sqrt(bc2) + eps);
            }
        const std::vector<float> want(pt.begin(), pt.end());
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            auto p = p0;
            std::vector<float> m(n, 0.0f), v(n, 0.0f);
            size_t left = 0;  // gradient entries not consumed
            for (int t = 1; t <= 5; ++t) {
                auto g = grads[t - 1];
                icl::adamw_update(p.data(), g.data(), m.data(), v.data(), n, (float)lr,
                                  (float)b1, (float)b2, (float)eps, (float)wd, t, 0.7f);
                for (float x : g) left += x != 0.0f;
            }
            INFO("n=" << n << " isa=" << isa_str(isa));
            CHECK(worst(p, want, 1e-6, 1e-5) <= 1.0);
            CHECK(left == 0);
        }
    }
}

TEST_CASE("kernels: SGD with momentum follows PyTorch's SGD step for step, every isa") {
    icl::test::EachIsa isas;
    // By hand: p = 1, g = 0.5, lr = 0.1, momentum = 0.9, wd = 0.1, buf = 0
    //   step 1: d = 0.5 + 0.1 = 0.6, buf = 0.6, p = 0.94
    //   step 2: d = 0.5 + 0.094 = 0.594, buf = 0.54 + 0.594 = 1.134, p = 0.8266
    for (Isa isa : isas.list) {
        icl::set_isa(isa);
        std::vector<float> p(9, 1.0f), g(9, 0.5f), buf(9, 0.0f);  // 9: vector body and tail
        icl::sgd_momentum_update(p.data(), g.data(), buf.data(), 9, 0.1f, 0.9f, 0.1f);
        CHECK(p[0] == doctest::Approx(0.94));
        CHECK(p[8] == doctest::Approx(0.94));
        icl::sgd_momentum_update(p.data(), g.data(), buf.data(), 9, 0.1f, 0.9f, 0.1f);
        CHECK(buf[0] == doctest::Approx(1.134));
        CHECK(p[0] == doctest::Approx(0.8266));
        CHECK(p[8] == doctest::Approx(0.8266));
    }
    icl::Rng rng(13);
    for (int n : kAwkward) {
        const auto p0 = randv(rng, n), g = randv(rng, n), b0 = randv(rng, n);
        auto pr = p0, br = b0;
        icl::ref::sgd_momentum_update(pr.data(), g.data(), br.data(), n, 0.05f, 0.9f, 0.01f);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            auto p = p0, b = b0;
            icl::sgd_momentum_update(p.data(), g.data(), b.data(), n, 0.05f, 0.9f, 0.01f);
            INFO("n=" << n << " isa=" << isa_str(isa));
            CHECK(worst(p, pr, 1e-7, 1e-6) <= 1.0);
            CHECK(worst(b, br, 1e-7, 1e-6) <= 1.0);
        }
    }
}

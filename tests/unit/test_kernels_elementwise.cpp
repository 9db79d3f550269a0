// The elementwise and row-wise kernels on every instruction set: layernorm, GELU (with
// the fused bias and fc2 backward) and cross-entropy, against the scalar references and
// central finite differences.
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

// ---- layernorm --------------------------------------------------------------------

TEST_CASE("kernels: layernorm forward matches the reference; output has mean beta, std gamma") {
    icl::test::EachIsa isas;
    icl::Rng rng(7);
    for (int N : {1, 3, 7})
        for (int C : kAwkward) {
            const auto x = randv(rng, (size_t)N * C, -3.0f, 5.0f);
            const auto gamma = randv(rng, C, 0.5f, 1.5f), beta = randv(rng, C);
            std::vector<float> y0((size_t)N * C), m0(N), r0(N);
            icl::ref::layernorm_forward(y0.data(), m0.data(), r0.data(), x.data(), gamma.data(),
                                        beta.data(), N, C, icl::kLayerNormEps);
            for (Isa isa : isas.list) {
                icl::set_isa(isa);
                std::vector<float> y((size_t)N * C), m(N), r(N);
                icl::layernorm_forward(y.data(), m.data(), r.data(), x.data(), gamma.data(),
                                       beta.data(), N, C, icl::kLayerNormEps);
                INFO("N=" << N << " C=" << C << " isa=" << isa_str(isa));
                CHECK(worst(y, y0, 1e-5, 1e-5) <= 1.0);
                CHECK(worst(m, m0, 1e-6, 1e-5) <= 1.0);
                CHECK(worst(r, r0, 1e-6, 1e-5) <= 1.0);
            }
        }
    // With gamma = 1, beta = 0 a row comes out with mean 0 and variance var/(var+eps).
    const int C = 64;
    std::vector<float> x(C), y(C), one(C, 1.0f), zero(C, 0.0f);
    for (int c = 0; c < C; ++c) x[c] = 10.0f + 0.5f * c;
    float mean, rstd;
    icl::layernorm_forward(y.data(), &mean, &rstd, x.data(), one.data(), zero.data(), 1, C, icl::kLayerNormEps);
    double s = 0, s2 = 0;
    for (float v : y) s += v, s2 += (double)v * v;
    CHECK(mean == doctest::Approx(10.0f + 0.5f * 31.5f));
    CHECK(std::fabs(s / C) < 1e-5);
    CHECK(s2 / C == doctest::Approx(1.0).epsilon(1e-4));
}

TEST_CASE("kernels: layernorm backward matches finite differences and accumulates, every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(8);
    for (Isa isa : isas.list) {
        icl::set_isa(isa);
        for (int C : {1, 3, 17}) {
            const int N = 3;
            auto x = randv(rng, (size_t)N * C, -2.0f, 2.0f);
            auto gamma = randv(rng, C, 0.5f, 1.5f), beta = randv(rng, C);
            const auto Wt = randv(rng, (size_t)N * C);
            std::vector<float> y((size_t)N * C), mean(N), rstd(N);
            icl::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(),
                                   beta.data(), N, C, icl::kLayerNormEps);
            const auto dx0 = randv(rng, (size_t)N * C), dg0 = randv(rng, C), db0 = randv(rng, C);
            auto dx = dx0, dg = dg0, db = db0;
            icl::layernorm_backward(dx.data(), dg.data(), db.data(), Wt.data(), x.data(), mean.data(),
                                    rstd.data(), gamma.data(), N, C);
            auto loss = [&] {
                std::vector<float> yy((size_t)N * C), mm(N), rr(N);
                icl::layernorm_forward(yy.data(), mm.data(), rr.data(), x.data(), gamma.data(),
                                       beta.data(), N, C, icl::kLayerNormEps);
                return weighted_sum(Wt, yy);
            };
            INFO("C=" << C << " isa=" << isa_str(isa));
            check_gradient("layernorm dx", x, increment(dx, dx0), loss, 3e-3f, 5e-4, 1e-2);
            check_gradient("layernorm dgamma", gamma, increment(dg, dg0), loss, 3e-3f, 5e-4, 1e-2);
            check_gradient("layernorm dbeta", beta, increment(db, db0), loss, 3e-3f, 5e-4, 1e-2);
        }
    }
}

TEST_CASE("kernels: layernorm backward matches the reference on awkward sizes") {
    icl::test::EachIsa isas;
    icl::Rng rng(9);
    for (int C : kAwkward) {
        const int N = 5;
        const auto x = randv(rng, (size_t)N * C), gamma = randv(rng, C), beta = randv(rng, C);
        const auto dy = randv(rng, (size_t)N * C);
        std::vector<float> y((size_t)N * C), mean(N), rstd(N);
        icl::ref::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(),
                                    beta.data(), N, C, icl::kLayerNormEps);
        std::vector<float> dx0((size_t)N * C, 0.5f), dg0(C, 0.25f), db0(C, -0.5f);
        auto dx = dx0, dg = dg0, db = db0;
        icl::ref::layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(),
                                     mean.data(), rstd.data(), gamma.data(), N, C);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            auto gx = dx0, gg = dg0, gb = db0;
            icl::layernorm_backward(gx.data(), gg.data(), gb.data(), dy.data(), x.data(),
                                    mean.data(), rstd.data(), gamma.data(), N, C);
            INFO("C=" << C << " isa=" << isa_str(isa));
            CHECK(worst(gx, dx, 1e-4, 1e-4) <= 1.0);
            CHECK(worst(gg, dg, 1e-5, 1e-5) <= 1.0);
            CHECK(worst(gb, db, 1e-5, 1e-5) <= 1.0);
        }
    }
}

// ---- GELU ----------------------------------------------------------------------------

TEST_CASE("kernels: gelu forward/backward match the reference and finite differences") {
    icl::test::EachIsa isas;
    icl::Rng rng(10);
    for (int n : kAwkward) {
        auto x = randv(rng, n, -5.0f, 5.0f);
        const auto dy = randv(rng, n);
        std::vector<float> y0(n), dx0(n, 0.5f), dxr = dx0;
        icl::ref::gelu_forward(y0.data(), x.data(), n);
        icl::ref::gelu_backward(dxr.data(), x.data(), dy.data(), n);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            std::vector<float> y(n), dx = dx0;
            icl::gelu_forward(y.data(), x.data(), n);
            icl::gelu_backward(dx.data(), x.data(), dy.data(), n);
            INFO("n=" << n << " isa=" << isa_str(isa));
            CHECK(worst(y, y0, 1e-6, 1e-5) <= 1.0);
            CHECK(worst(dx, dxr, 1e-6, 1e-5) <= 1.0);
            auto loss = [&] {
                std::vector<float> yy(n);
                icl::gelu_forward(yy.data(), x.data(), n);
                return weighted_sum(dy, yy);
            };
            check_gradient("gelu dx", x, increment(dx, dx0), loss, 1e-2f, 2e-4, 1e-2);
        }
    }
    // Known values: gelu(0) = 0, gelu(1) = 0.841192 (tanh form), gelu(-3) ≈ -0.003637
    const float xs[] = {0.0f, 1.0f, -3.0f};
    float ys[3];
    icl::gelu_forward(ys, xs, 3);
    CHECK(ys[0] == 0.0f);
    CHECK(ys[1] == doctest::Approx(0.841192).epsilon(1e-5));
    CHECK(ys[2] == doctest::Approx(-0.00363739).epsilon(1e-3));
}

TEST_CASE("kernels: bias + gelu forward matches the reference, every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(12);
    const int N = 3;
    for (int F : {1, 7, 17, 65}) {
        const auto pre0 = randv(rng, (size_t)N * F, -4.0f, 4.0f), bias = randv(rng, F);
        std::vector<float> prer = pre0, yr((size_t)N * F);
        icl::ref::bias_gelu_forward(yr.data(), prer.data(), bias.data(), N, F);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            std::vector<float> pre = pre0, y((size_t)N * F);
            icl::bias_gelu_forward(y.data(), pre.data(), bias.data(), N, F);
            INFO("F=" << F << " isa=" << isa_str(isa));
            CHECK(pre == prer);
            CHECK(worst(y, yr, 1e-6, 1e-5) <= 1.0);
        }
    }
}

TEST_CASE("kernels: the GELU's backward with fc2's weight gradient matches the reference and, in "
          "each isa, the weight gradient of the forward's own gelu(pre), bit for bit") {
    icl::test::EachIsa isas;
    icl::Rng rng(13);
    // (N, F, C): small (the unfused path); past a K block (N > 512) with F not a multiple
    // of any vector; F within one vector (one-vector panels); F past a column block (2048)
    const int shapes[][3] = {{3, 7, 5}, {600, 65, 12}, {40, 16, 9}, {70, 2100, 6}, {64, 128, 32}};
    for (const auto& s : shapes) {
        const int N = s[0], F = s[1], C = s[2];
        const auto pre = randv(rng, (size_t)N * F, -4.0f, 4.0f), dgelu = randv(rng, (size_t)N * F);
        const auto dY = randv(rng, (size_t)N * C), db10 = randv(rng, F);
        const auto dW0 = randv(rng, (size_t)C * F), db20 = randv(rng, C);
        for (bool acc : {true, false}) {
            std::vector<float> dr = dgelu, db1r = db10, dWr = dW0, db2r = db20, yr((size_t)N * F);
            icl::ref::gelu_linear_backward(dr.data(), db1r.data(), dWr.data(), db2r.data(), yr.data(),
                                           pre.data(), dY.data(), N, F, C, acc);
            // the reference writes the forward's gelu(pre) into y, bit for bit
            std::vector<float> yfr((size_t)N * F), zr(F, 0.0f), prer = pre;
            icl::ref::bias_gelu_forward(yfr.data(), prer.data(), zr.data(), N, F);
            CHECK(yr == yfr);
            for (Isa isa : isas.list) {
                icl::set_isa(isa);
                INFO("N=" << N << " F=" << F << " C=" << C << " accumulate=" << acc << " isa=" << isa_str(isa));
                // without accumulate, dW2 and db2 start as NaN, which would spread if read
                std::vector<float> d = dgelu, db1 = db10, dW = acc ? dW0 : std::vector<float>(dW0.size(), NAN);
                std::vector<float> db2 = acc ? db20 : std::vector<float>(db20.size(), NAN), y((size_t)N * F);
                icl::gelu_linear_backward(d.data(), db1.data(), dW.data(), db2.data(), y.data(), pre.data(),
                                          dY.data(), N, F, C, acc);
                CHECK(worst(d, dr, 1e-6, 1e-5) <= 1.0);
                CHECK(worst(db1, db1r, 1e-6 * N, 1e-5) <= 1.0);
                CHECK(worst(dW, dWr, 2e-7 * (N + 4), 1e-5) <= 1.0);
                CHECK(worst(db2, db2r, 2e-7 * (N + 4), 1e-5) <= 1.0);
                // the same isa's forward gelu and weight gradient, unfused: bit for bit (the
                // fused path must compute the very gelu(pre) the forward's fc2 used)
                std::vector<float> y_fwd((size_t)N * F), zero(F, 0.0f), pre_copy = pre;
                icl::bias_gelu_forward(y_fwd.data(), pre_copy.data(), zero.data(), N, F);
                std::vector<float> dWu = acc ? dW0 : std::vector<float>(dW0.size(), NAN);
                std::vector<float> db2u = acc ? db20 : std::vector<float>(db20.size(), NAN);
                icl::linear_weight_grad(dWu.data(), db2u.data(), dY.data(), y_fwd.data(), N, F, C, acc);
                CHECK(dW == dWu);
                CHECK(db2 == db2u);
            }
        }
    }
}

// ---- cross-entropy ------------------------------------------------------------------------

TEST_CASE("kernels: cross-entropy matches the reference and finite differences, every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(11);
    for (int V : kAwkward) {
        const int N = 4;
        auto logits = randv(rng, (size_t)N * V, -3.0f, 3.0f);
        std::vector<int> targets(N);
        for (int& t : targets) t = (int)rng.below(V);
        const auto dl = randv(rng, N);
        std::vector<float> l0(N), p0((size_t)N * V), g0((size_t)N * V, 0.25f), gr = g0;
        icl::ref::crossentropy_forward(l0.data(), p0.data(), logits.data(), targets.data(), N, V);
        icl::ref::crossentropy_backward(gr.data(), p0.data(), targets.data(), dl.data(), N, V);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            std::vector<float> l(N), p((size_t)N * V), g = g0;
            icl::crossentropy_forward(l.data(), p.data(), logits.data(), targets.data(), N, V);
            icl::crossentropy_backward(g.data(), p.data(), targets.data(), dl.data(), N, V);
            INFO("V=" << V << " isa=" << isa_str(isa));
            CHECK(worst(l, l0, 1e-6, 1e-5) <= 1.0);
            CHECK(worst(p, p0, 1e-7, 1e-5) <= 1.0);
            CHECK(worst(g, gr, 1e-6, 1e-5) <= 1.0);
            if (V > 17) continue;  // finite differences on the small vocabularies
            auto loss = [&] {
                std::vector<float> ll(N), pp((size_t)N * V);
                icl::crossentropy_forward(ll.data(), pp.data(), logits.data(), targets.data(), N, V);
                return weighted_sum(dl, ll);
            };
            check_gradient("cross-entropy dlogits", logits, increment(g, g0), loss, 1e-2f, 2e-4, 1e-2);
        }
    }
    // V = 4, uniform logits: loss = log 4 whatever the target; huge logits stay finite.
    const float logits[] = {0, 0, 0, 0, 1000, 0, 0, 0};
    const int targets[] = {2, 1};
    float losses[2], probs[8];
    icl::crossentropy_forward(losses, probs, logits, targets, 2, 4);
    CHECK(losses[0] == doctest::Approx(std::log(4.0)));
    CHECK(probs[3] == doctest::Approx(0.25));
    CHECK(losses[1] == doctest::Approx(1000.0));
    CHECK(probs[4] == 1.0f);
}

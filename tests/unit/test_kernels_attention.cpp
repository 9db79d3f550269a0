// The attention kernels on every instruction set: the masked softmax and its backward
// (against the references and central finite differences), the masks' definitions, and
// the banded form against the masked dense one.
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

// ---- attention softmax ------------------------------------------------------------------

namespace {

std::vector<AttentionMask> masks() {
    std::vector<AttentionMask> m;
    m.push_back({AttentionMask::causal, 0, 0});
    for (int w : {1, 3, 8}) m.push_back({AttentionMask::banded, w, 0});
    for (int s : {1, 3, 4}) m.push_back({AttentionMask::strided, 0, s});
    return m;
}

}  // namespace

TEST_CASE("kernels: attention softmax: masked entries exactly 0, rows sum to 1, every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(4);
    for (int T : {1, 3, 7, 17, 65})
        for (const AttentionMask& mask : masks()) {
            auto S = randv(rng, (size_t)T * T, -4.0f, 4.0f);
            for (int i = 0; i < T; ++i)  // NaN above the diagonal: never read (matmul_nt_lower
                for (int j = i + 1; j < T; ++j) S[(size_t)i * T + j] = NAN;  // leaves it unspecified)
            std::vector<float> want((size_t)T * T, -1.0f);
            icl::ref::attention_softmax(want.data(), S.data(), T, 0.7f, mask);
            for (Isa isa : isas.list) {
                icl::set_isa(isa);
                std::vector<float> P((size_t)T * T, -1.0f);  // garbage the kernel must overwrite
                icl::attention_softmax(P.data(), S.data(), T, 0.7f, mask);
                INFO("T=" << T << " kind=" << mask.kind << " window=" << mask.window
                          << " stride=" << mask.stride << " isa=" << isa_str(isa));
                CHECK(worst(P, want, 1e-7, 1e-5) <= 1.0);
                int bad_zero = 0, bad_sum = 0, bad_allowed = 0;
                for (int i = 0; i < T; ++i) {
                    double sum = 0.0;
                    for (int j = 0; j < T; ++j) {
                        const float p = P[(size_t)i * T + j];
                        if (!mask.allows(i, j)) bad_zero += p != 0.0f;
                        else bad_allowed += !(p > 0.0f);
                        sum += p;
                    }
                    bad_sum += std::fabs(sum - 1.0) > 1e-5;
                }
                CHECK(bad_zero == 0);
                CHECK(bad_sum == 0);
                CHECK(bad_allowed == 0);
            }
        }
}

TEST_CASE("kernels: the masks allow what their definitions say") {
    const AttentionMask causal{AttentionMask::causal, 0, 0}, band{AttentionMask::banded, 2, 0},
        strided{AttentionMask::strided, 0, 3};
    CHECK(causal.allows(5, 0));
    CHECK(!causal.allows(2, 3));
    CHECK(band.allows(5, 4));
    CHECK(!band.allows(5, 3));
    CHECK(strided.allows(7, 5));   // local: 7 - 5 < 3
    CHECK(!strided.allows(7, 3));  // 4 is neither < 3 nor a multiple of 3
    CHECK(strided.allows(7, 1));   // 6 is a multiple of 3
}

TEST_CASE("kernels: attention softmax backward matches finite differences, all masks, every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(5);
    const float scale = 0.6f;
    for (Isa isa : isas.list) {
        icl::set_isa(isa);
        for (int T : {1, 5, 9})
            for (const AttentionMask& mask : masks()) {
                auto S = randv(rng, (size_t)T * T, -2.0f, 2.0f);
                const auto Wt = randv(rng, (size_t)T * T);
                std::vector<float> P((size_t)T * T);
                icl::attention_softmax(P.data(), S.data(), T, scale, mask);
                // dP in (NaN above the diagonal, never read: matmul_nt_lower leaves it
                // unspecified, and the loss does not depend on Wt there, P being 0), dS out
                auto grad = Wt;
                for (int i = 0; i < T; ++i)
                    for (int j = i + 1; j < T; ++j) grad[(size_t)i * T + j] = NAN;
                icl::attention_softmax_backward(grad.data(), P.data(), T, scale);
                auto loss = [&] {
                    std::vector<float> p((size_t)T * T);
                    icl::attention_softmax(p.data(), S.data(), T, scale, mask);
                    return weighted_sum(Wt, p);
                };
                INFO("T=" << T << " kind=" << mask.kind << " isa=" << isa_str(isa));
                check_gradient("softmax dS", S, grad, loss, 1e-2f, 2e-4, 1e-2);
                int masked_nonzero = 0;
                for (int i = 0; i < T; ++i)
                    for (int j = 0; j < T; ++j)
                        masked_nonzero += !mask.allows(i, j) && grad[(size_t)i * T + j] != 0.0f;
                CHECK(masked_nonzero == 0);
            }
    }
}

TEST_CASE("kernels: attention softmax backward matches the reference on awkward sizes") {
    icl::test::EachIsa isas;
    icl::Rng rng(6);
    for (int T : kAwkward) {
        const auto S = randv(rng, (size_t)T * T);
        auto dP = randv(rng, (size_t)T * T);
        for (int i = 0; i < T; ++i)  // never read above the diagonal (unspecified there)
            for (int j = i + 1; j < T; ++j) dP[(size_t)i * T + j] = NAN;
        std::vector<float> P((size_t)T * T);
        icl::ref::attention_softmax(P.data(), S.data(), T, 1.0f, {AttentionMask::causal, 0, 0});
        auto want = dP;
        icl::ref::attention_softmax_backward(want.data(), P.data(), T, 0.3f);
        for (Isa isa : isas.list) {
            icl::set_isa(isa);
            auto got = dP;
            icl::attention_softmax_backward(got.data(), P.data(), T, 0.3f);
            INFO("T=" << T << " isa=" << isa_str(isa));
            CHECK(worst(got, want, 1e-6, 1e-5) <= 1.0);
            size_t upper_nonzero = 0;  // dS is 0 above the diagonal, every entry of it
            for (int i = 0; i < T; ++i)
                for (int j = i + 1; j < T; ++j) upper_nonzero += got[(size_t)i * T + j] != 0.0f;
            CHECK(upper_nonzero == 0);
        }
    }
}

// ---- banded attention ------------------------------------------------------------------

TEST_CASE("kernels: banded attention matches the masked dense reference and every isa") {
    icl::test::EachIsa isas;
    icl::Rng rng(41);
    for (int T : {1, 5, 17, 40})
        for (int hs : {1, 7, 16, 17})
            for (int w : {1, 3, 8, 64}) {
                const float scale = 1.0f / std::sqrt((float)hs);
                const size_t TT = (size_t)T * T, Th = (size_t)T * hs;
                const auto q = randv(rng, Th), k = randv(rng, Th), v = randv(rng, Th), dO = randv(rng, Th);
                INFO("T=" << T << " hs=" << hs << " w=" << w);
                // Independent: the dense path's reference kernels under the banded mask.
                AttentionMask mask;
                mask.kind = AttentionMask::banded;
                mask.window = w;
                std::vector<float> S(TT), Pd(TT), Od(Th), dP(TT), dS(TT), dqd(Th), dkd(Th), dvd(Th);
                icl::ref::matmul_nt(S.data(), q.data(), k.data(), T, hs, T, false);
                icl::ref::attention_softmax(Pd.data(), S.data(), T, scale, mask);
                icl::ref::matmul_nn(Od.data(), Pd.data(), v.data(), T, T, hs, false);
                icl::ref::matmul_nt(dP.data(), dO.data(), v.data(), T, hs, T, false);
                icl::ref::matmul_tn(dvd.data(), Pd.data(), dO.data(), T, T, hs, false);
                dS = dP;  // the reference computes every entry: dS is 0 wherever P is
                icl::ref::attention_softmax_backward(dS.data(), Pd.data(), T, scale);
                icl::ref::matmul_nn(dqd.data(), dS.data(), k.data(), T, T, hs, false);
                icl::ref::matmul_tn(dkd.data(), dS.data(), q.data(), T, T, hs, false);
                // The kernels read q, k, v in place as the GPT has them, one head's slices of
                // qkv rows (ld = 3 hs + 2 here), take dO and write O in rows ldo = hs + 1
                // apart, and write dq, dk, dv into dqkv rows as q, k, v sit in qkv. Every
                // float between the slices holds a sentinel that must survive, and the
                // outputs start as 7.0: written, not added to.
                const size_t ld = 3 * (size_t)hs + 2, ldo = (size_t)hs + 1;
                const float sentinel = -123.0f;
                std::vector<float> qkv((size_t)T * ld, sentinel), dOs((size_t)T * ldo, sentinel);
                for (int t = 0; t < T; ++t)
                    for (int c = 0; c < hs; ++c) {
                        qkv[(size_t)t * ld + c] = q[(size_t)t * hs + c];
                        qkv[(size_t)t * ld + hs + c] = k[(size_t)t * hs + c];
                        qkv[(size_t)t * ld + 2 * hs + c] = v[(size_t)t * hs + c];
                        dOs[(size_t)t * ldo + c] = dO[(size_t)t * hs + c];
                    }
                const auto fresh = [&](size_t n, size_t stride, int slices) {  // 7.0 in the slices
                    std::vector<float> x(n, sentinel);
                    for (int t = 0; t < T; ++t)
                        for (int c = 0; c < slices * hs; ++c) x[(size_t)t * stride + c] = 7.0f;
                    return x;
                };
                // a slice of strided rows, contiguous (T,hs); the floats outside every slice
                // that are not the sentinel
                const auto slice = [&](const std::vector<float>& x, size_t stride, int at) {
                    std::vector<float> y(Th);
                    for (int t = 0; t < T; ++t)
                        for (int c = 0; c < hs; ++c) y[(size_t)t * hs + c] = x[(size_t)t * stride + at * hs + c];
                    return y;
                };
                const auto gaps_changed = [&](const std::vector<float>& x, size_t stride, int slices) {
                    size_t n = 0;
                    for (size_t i = 0; i < x.size(); ++i) n += (int)(i % stride) >= slices * hs && x[i] != sentinel;
                    return n;
                };
                const float *qs = qkv.data(), *ks = qs + hs, *vs = qs + 2 * hs;
                // The banded reference.
                std::vector<float> P0(TT, 7.0f), O0 = fresh((size_t)T * ldo, ldo, 1), dp(w);
                std::vector<float> dg0 = fresh((size_t)T * ld, ld, 3);
                icl::ref::banded_attention_forward(P0.data(), O0.data(), ldo, qs, ks, vs, ld, T, hs, w, scale);
                icl::ref::banded_attention_backward(dg0.data(), dg0.data() + hs, dg0.data() + 2 * hs, ld, dp.data(),
                                                    dOs.data(), ldo, qs, ks, vs, ld, P0.data(), T, hs, w, scale);
                // Sums of at most max(w, hs) products of numbers in [-1, 1] and of P <= 1,
                // in another order: float rounding of about 1e-7 per term.
                const double atol = 2e-7 * (std::min(w, T) + hs + 4);
                CHECK(worst(P0, Pd, atol, 1e-5) <= 1.0);
                CHECK(worst(slice(O0, ldo, 0), Od, atol, 1e-5) <= 1.0);
                CHECK(worst(slice(dg0, ld, 0), dqd, atol, 1e-5) <= 1.0);
                CHECK(worst(slice(dg0, ld, 1), dkd, atol, 1e-5) <= 1.0);
                CHECK(worst(slice(dg0, ld, 2), dvd, atol, 1e-5) <= 1.0);
                CHECK(gaps_changed(O0, ldo, 1) == 0);
                CHECK(gaps_changed(dg0, ld, 3) == 0);
                for (Isa isa : isas.list) {
                    icl::set_isa(isa);
                    INFO("isa=" << isa_str(isa));
                    std::vector<float> P(TT, 7.0f), O = fresh((size_t)T * ldo, ldo, 1);
                    std::vector<float> dg = fresh((size_t)T * ld, ld, 3);
                    std::fill(dp.begin(), dp.end(), 0.0f);
                    icl::banded_attention_forward(P.data(), O.data(), ldo, qs, ks, vs, ld, T, hs, w, scale);
                    icl::banded_attention_backward(dg.data(), dg.data() + hs, dg.data() + 2 * hs, ld, dp.data(),
                                                   dOs.data(), ldo, qs, ks, vs, ld, P.data(), T, hs, w, scale);
                    size_t outside = 0;  // exactly 0 outside the band
                    for (int i = 0; i < T; ++i)
                        for (int j = 0; j < T; ++j)
                            if (!mask.allows(i, j)) outside += P[(size_t)i * T + j] != 0.0f;
                    CHECK(outside == 0);
                    // the fast exp is within 2 ulp of std::exp; the rest as above
                    CHECK(worst(P, P0, atol, 1e-5) <= 1.0);
                    CHECK(worst(O, O0, atol, 1e-5) <= 1.0);
                    CHECK(worst(dg, dg0, atol, 1e-5) <= 1.0);
                    CHECK(gaps_changed(O, ldo, 1) == 0);
                    CHECK(gaps_changed(dg, ld, 3) == 0);
                }
            }
}

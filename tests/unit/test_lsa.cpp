#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "icl/lsa.h"

using namespace icl;

namespace {

LsaModel random_model(Rng& rng, int dim, int layers, float std) {
    LsaModel m;
    for (int l = 0; l < layers; ++l) {
        LsaLayer layer{matrix(dim, dim), matrix(dim, dim)};
        for (float& w : layer.w_kq.storage()) w = rng.normal(0.0f, std);
        for (float& w : layer.w_pv.storage()) w = rng.normal(0.0f, std);
        m.push_back(layer);
    }
    return m;
}

// ½(ŷ − y)² in double from a float forward pass.
double loss_of(const LsaModel& m, const RegressionTask& t) {
    const double r = double(lsa_predict(m, t)) - t.y_query;
    return 0.5 * r * r;
}

}  // namespace

TEST_CASE("lsa: one constructed layer equals one GD step (von Oswald et al. 2023)") {
    Rng rng(5);
    TaskConfig cfg;  // d = 10, x ~ U(−0.5, 0.5)
    const float eta = 6.0f;
    double max_diff = 0.0;
    for (int k = 0; k < 50; ++k) {
        const RegressionTask t = sample_task(rng, cfg, 10);
        const LsaModel model{combine(gd_construction(cfg.d, eta, 10))};
        // GD written out here: ΔW = −η ∇L(0) = (η/N) Σ y_i x_iᵀ, prediction ΔW x_q.
        double gd = 0.0;
        for (int i = 0; i < 10; ++i) {
            double xq = 0.0;
            for (int c = 0; c < cfg.d; ++c) xq += double(t.x(i, c)) * t.x_query[c];
            gd += eta / 10.0 * t.y[i] * xq;
        }
        max_diff = std::max(max_diff, std::fabs(lsa_predict(model, t) - gd));
    }
    CHECK(max_diff < 1e-5);
}

TEST_CASE("lsa: K constructed layers equal K GD steps") {
    Rng rng(6);
    TaskConfig cfg;
    cfg.d = 4;
    const float eta = 3.0f;
    for (int layers = 1; layers <= 4; ++layers) {
        LsaModel model(static_cast<size_t>(layers), combine(gd_construction(cfg.d, eta, 8)));
        for (int k = 0; k < 10; ++k) {
            const RegressionTask t = sample_task(rng, cfg, 8);
            const std::vector<float> w = gd_weights(t, eta, layers);
            const float gd = dot(w.data(), t.x_query.data(), cfg.d);
            CHECK(lsa_predict(model, t) == doctest::Approx(gd).epsilon(1e-4).scale(1.0));
        }
    }
}

TEST_CASE("lsa: hand-written backward matches central finite differences (1 and 3 layers)") {
    Rng rng(9);
    TaskConfig cfg;
    cfg.d = 3;
    for (int layers : {1, 3}) {
        LsaModel model = random_model(rng, cfg.d + 1, layers, 0.6f);
        const RegressionTask t = sample_task(rng, cfg, 5);
        const LsaForward fwd = lsa_forward(model, regression_tokens(t), 5);
        const float r = lsa_prediction(fwd.output) - t.y_query;
        LsaModel grads = random_model(rng, cfg.d + 1, layers, 0.0f);
        const Matrix dtokens = lsa_backward(model, fwd, 5, r, grads);
        const double h = 1e-2;  // inputs are O(0.5), float forward: a wide step keeps rounding small
        auto check = [&](float& param, float analytic) {
            const float keep = param;
            param = keep + float(h);
            const double up = loss_of(model, t);
            param = keep - float(h);
            const double down = loss_of(model, t);
            param = keep;
            const double numeric = (up - down) / (2 * h);
            CHECK(analytic == doctest::Approx(numeric).epsilon(2e-2).scale(1e-3));
        };
        for (int l = 0; l < layers; ++l)
            for (size_t i = 0; i < model[l].w_kq.size(); ++i) {
                check(model[l].w_kq.storage()[i], grads[l].w_kq.storage()[i]);
                check(model[l].w_pv.storage()[i], grads[l].w_pv.storage()[i]);
            }
        // ∂/∂x_q by finite differences on the query input.
        RegressionTask moved = t;
        const std::vector<float> sens = lsa_query_sensitivity(model, t);
        for (int c = 0; c < cfg.d; ++c) {
            moved.x_query[c] = t.x_query[c] + float(h);
            const double up = lsa_predict(model, moved);
            moved.x_query[c] = t.x_query[c] - float(h);
            const double down = lsa_predict(model, moved);
            moved.x_query[c] = t.x_query[c];
            CHECK(sens[c] == doctest::Approx((up - down) / (2 * h)).epsilon(2e-2).scale(1e-3));
            CHECK(dtokens(5, c) == doctest::Approx(r * sens[c]).epsilon(1e-4).scale(1e-6));
        }
    }
}

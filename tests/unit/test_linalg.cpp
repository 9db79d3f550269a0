#include <doctest/doctest.h>

#include <cmath>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>

#include "icl/linalg.h"
#include "icl/rng.h"

using namespace icl;

TEST_CASE("linalg: minimum-norm least squares interpolates and lies in the row space; ridge solves its normal equations") {
    Rng rng(31);
    const int k = 4, d = 7;
    Matrix x = matrix(k, d);
    for (float& v : x.storage()) v = rng.normal();
    const float y[k] = {0.5f, -1.0f, 2.0f, 0.25f};
    auto w = least_squares(x, y, 0.0);
    REQUIRE(w.ok());
    for (int i = 0; i < k; ++i) {
        double p = 0;
        for (int c = 0; c < d; ++c) p += w.value()[c] * x(i, c);
        CHECK(p == doctest::Approx(y[i]).epsilon(1e-9));
    }
    // Row space: the residual of w after projecting on the rows of x is 0. Project via
    // ridge with a tiny λ, which converges to the minimum-norm solution as λ → 0.
    auto w_ridge = least_squares(x, y, 1e-9);
    REQUIRE(w_ridge.ok());
    for (int c = 0; c < d; ++c) CHECK(w.value()[c] == doctest::Approx(w_ridge.value()[c]).epsilon(1e-5).scale(1e-6));
    // Ridge: (XᵀX + λI) w = Xᵀ y, checked entrywise.
    const double lambda = 0.7;
    auto wr = least_squares(x, y, lambda);
    REQUIRE(wr.ok());
    for (int a = 0; a < d; ++a) {
        double lhs = lambda * wr.value()[a], rhs = 0;
        for (int i = 0; i < k; ++i) {
            double xi_w = 0;
            for (int c = 0; c < d; ++c) xi_w += x(i, c) * wr.value()[c];
            lhs += x(i, a) * xi_w;
            rhs += x(i, a) * y[i];
        }
        CHECK(lhs == doctest::Approx(rhs).epsilon(1e-9).scale(1e-9));
    }
}

TEST_CASE("linalg: a singular system is an error value, not a crash") {
    auto z = solve_linear({1, 2, 2, 4}, {1, 1}, 2);
    CHECK_FALSE(z.ok());
    CHECK(z.error().message.find("singular") != std::string::npos);
    auto ok = solve_linear({0, 1, 1, 0}, {2, 3}, 2);  // needs a pivot swap
    REQUIRE(ok.ok());
    CHECK(ok.value()[0] == doctest::Approx(3));
    CHECK(ok.value()[1] == doctest::Approx(2));
}

TEST_CASE("linalg: Matrix is an xtensor: row(), transpose and matmul agree with xtensor's own views") {
    Rng rng(32);
    Matrix a = matrix(3, 5, 2.0f);
    CHECK(rows(a) == 3);
    CHECK(cols(a) == 5);
    CHECK(xt::all(xt::equal(a, 2.0f)));
    for (float& v : a.storage()) v = rng.normal();
    for (int i = 0; i < rows(a); ++i) {
        const auto r = xt::row(a, i);  // xtensor's view of row i, against row()'s pointer
        for (int j = 0; j < cols(a); ++j) CHECK(row(a, i)[j] == r(j));
    }
    CHECK(transpose(a) == Matrix(xt::transpose(a)));
    // matmul against an xtensor expression of the same product: Σ_k a(i,k) b(k,j)
    Matrix b = matrix(5, 4);
    for (float& v : b.storage()) v = rng.normal();
    const Matrix c = matmul(a, b);
    const Matrix want = xt::sum(xt::view(a, xt::all(), xt::all(), xt::newaxis()) *
                                    xt::view(b, xt::newaxis(), xt::all(), xt::all()),
                                {1});
    REQUIRE(c.shape() == want.shape());
    CHECK(xt::allclose(c, want, 1e-5, 1e-6));
}

// The xtensor-level wrappers: right answers on good shapes, an error value naming
// both shapes on bad ones (natively and in wasm; nothing throws or aborts).
#include <doctest/doctest.h>

#include <string>

#include "icl/tensor.h"

using icl::Matrix;
using icl::Vector;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("tensor: matmul wrappers compute the product in all three layouts") {
    const Matrix a = {{1, 2, 3}, {4, 5, 6}};      // 2x3
    const Matrix b = {{1, 0}, {0, 1}, {1, 1}};    // 3x2
    const Matrix want = {{4, 5}, {10, 11}};
    auto nn = icl::matmul(a, b);
    REQUIRE(nn.ok());
    CHECK(nn.value() == want);
    auto nt = icl::matmul_nt(a, Matrix(xt::transpose(b)));
    REQUIRE(nt.ok());
    CHECK(nt.value() == want);
    auto tn = icl::matmul_tn(Matrix(xt::transpose(a)), b);
    REQUIRE(tn.ok());
    CHECK(tn.value() == want);
}

TEST_CASE("tensor: shape mismatches come back as errors naming both shapes") {
    const Matrix a = xt::zeros<float>({3, 4}), b = xt::zeros<float>({5, 2});
    auto r = icl::matmul(a, b);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "matmul: A is 3x4 but B is 5x2; A's columns must equal B's rows");

    auto nt = icl::matmul_nt(a, b);  // needs B's columns (2) == A's columns (4)
    REQUIRE(!nt.ok());
    CHECK(contains(nt.error().message, "A is 3x4 but B is 5x2"));
    auto tn = icl::matmul_tn(a, b);  // needs A's rows (3) == B's rows (5)
    REQUIRE(!tn.ok());
    CHECK(contains(tn.error().message, "A is 3x4 but B is 5x2"));
    CHECK(icl::matmul_tn(Matrix(xt::zeros<float>({5, 4})), b).ok());

    auto sm = icl::attention_softmax(Matrix(xt::zeros<float>({3, 4})), 1.0f, {});
    REQUIRE(!sm.ok());
    CHECK(contains(sm.error().message, "3x4"));
    auto band = icl::attention_softmax(Matrix(xt::zeros<float>({3, 3})), 1.0f,
                                       {icl::AttentionMask::banded, 0, 0});
    REQUIRE(!band.ok());
    CHECK(contains(band.error().message, "window is 0"));
    auto strided = icl::attention_softmax(Matrix(xt::zeros<float>({3, 3})), 1.0f,
                                          {icl::AttentionMask::strided, 0, -2});
    REQUIRE(!strided.ok());
    CHECK(contains(strided.error().message, "stride is -2"));

    auto ln = icl::layernorm(Matrix(xt::zeros<float>({2, 8})), Vector(xt::ones<float>({7})),
                             Vector(xt::zeros<float>({8})));
    REQUIRE(!ln.ok());
    CHECK(contains(ln.error().message, "x is 2x8 but gamma is 7 and beta is 8"));

    const xt::xtensor<int, 1> targets = {0, 5};
    auto ce = icl::cross_entropy(Matrix(xt::zeros<float>({2, 5})), targets);
    REQUIRE(!ce.ok());
    CHECK(contains(ce.error().message, "target 5 at row 1"));
    auto ce2 = icl::cross_entropy(Matrix(xt::zeros<float>({3, 5})), targets);
    REQUIRE(!ce2.ok());
    CHECK(contains(ce2.error().message, "logits are 3x5 but targets are 2"));
}

TEST_CASE("tensor: softmax, layernorm and cross-entropy wrappers return the kernel results") {
    const Matrix s = {{1, 9, 9}, {0, 0, 9}, {1, 2, 3}};
    auto p = icl::attention_softmax(s, 1.0f, {});
    REQUIRE(p.ok());
    CHECK(p.value()(0, 0) == 1.0f);
    CHECK(p.value()(0, 1) == 0.0f);
    CHECK(p.value()(1, 0) == doctest::Approx(0.5));
    CHECK(p.value()(1, 2) == 0.0f);

    const Matrix x = {{1, 2, 3, 4}, {-1, -1, 1, 1}};
    auto ln = icl::layernorm(x, Vector(xt::ones<float>({4})), Vector(xt::zeros<float>({4})));
    REQUIRE(ln.ok());
    CHECK(ln.value().mean(0) == doctest::Approx(2.5));
    CHECK(ln.value().mean(1) == doctest::Approx(0.0));
    CHECK(ln.value().y(1, 0) == doctest::Approx(-1.0).epsilon(1e-4));

    auto ce = icl::cross_entropy(Matrix(xt::zeros<float>({2, 4})), xt::xtensor<int, 1>{1, 3});
    REQUIRE(ce.ok());
    CHECK(ce.value().losses(0) == doctest::Approx(std::log(4.0)));
    CHECK(ce.value().probs(1, 2) == doctest::Approx(0.25));
}

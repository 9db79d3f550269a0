// The exact inference of icl/hmm.h against brute-force sums over every state path.
#include <doctest/doctest.h>

#include <cmath>

#include "icl/hmm.h"
#include "icl/hmm_frequencies.h"

using namespace icl;

TEST_CASE("hmm: forward likelihood equals the sum over all state paths") {
    Rng rng(3);
    const hmm::Hmm h = hmm::random_hmm(3, 4, 1.5, rng);
    REQUIRE(hmm::validate(h).ok());
    for (int len : {1, 2, 5, 7}) {
        const std::vector<int> xs = hmm::sample(h, len, rng);
        const double brute = hmm::brute_force_likelihood(h, xs);
        CHECK(std::exp(hmm::log_likelihood(h, xs)) == doctest::Approx(brute).epsilon(1e-10));
    }
}

TEST_CASE("hmm: symbol frequencies are the expected share of each symbol over every sequence, by brute force") {
    Rng rng(7);
    const hmm::Hmm h = hmm::random_hmm(3, 4, 1.5, rng);
    const int n = 4, O = h.symbols;
    std::vector<double> expect((size_t)O, 0.0);
    double total = 0;
    for (int code = 0; code < 256; ++code) {  // every sequence of 4 symbols out of 4
        std::vector<int> xs;
        for (int t = 0, c = code; t < n; ++t, c /= O) xs.push_back(c % O);
        const double p = hmm::brute_force_likelihood(h, xs);
        total += p;
        for (int x : xs) expect[(size_t)x] += p / n;
    }
    CHECK(total == doctest::Approx(1.0).epsilon(1e-12));
    const std::vector<double> got = hmm::symbol_frequencies(h, n);
    REQUIRE(got.size() == expect.size());
    for (int o = 0; o < O; ++o) CHECK(got[(size_t)o] == doctest::Approx(expect[(size_t)o]).epsilon(1e-12));
}

TEST_CASE("hmm: predictive is the ratio of brute-force likelihoods p(x, o) / p(x)") {
    Rng rng(5);
    const hmm::Hmm h = hmm::random_hmm(3, 4, 1.0, rng);
    for (int len : {0, 1, 4}) {
        std::vector<int> xs = hmm::sample(h, len, rng);
        const std::vector<double> pred = hmm::predictive(h, xs);
        double sum = 0;
        for (int o = 0; o < h.symbols; ++o) {
            std::vector<int> ext = xs;
            ext.push_back(o);
            const double expect = hmm::brute_force_likelihood(h, ext) / hmm::brute_force_likelihood(h, xs);
            CHECK(pred[(size_t)o] == doctest::Approx(expect).epsilon(1e-10));
            sum += pred[(size_t)o];
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    }
}

TEST_CASE("hmm: concept posterior and Bayes predictive equal Bayes' rule over brute-force likelihoods") {
    const hmm::Mixture m = hmm::make_mixture(3, 2, 3, 1.5, 4, 11);
    Rng rng(2);
    const hmm::Prompt p = hmm::make_prompt(m.concepts[1], 2, m.segment_length, rng);
    const hmm::Inference inf = hmm::infer(m, p);
    std::vector<double> joint(3);
    double z = 0;
    for (size_t c = 0; c < 3; ++c) {
        double l = m.prior[c] * hmm::brute_force_likelihood(m.concepts[c], p.query);
        for (const auto& seg : p.segments) l *= hmm::brute_force_likelihood(m.concepts[c], seg);
        z += joint[c] = l;
    }
    for (size_t c = 0; c < 3; ++c) CHECK(inf.posterior[c] == doctest::Approx(joint[c] / z).epsilon(1e-9));
    for (int o = 0; o < 3; ++o) {
        double num = 0;
        std::vector<int> ext = p.query;
        ext.push_back(o);
        for (size_t c = 0; c < 3; ++c)
            num += joint[c] / hmm::brute_force_likelihood(m.concepts[c], p.query) *
                   hmm::brute_force_likelihood(m.concepts[c], ext);
        CHECK(inf.predictive[(size_t)o] == doctest::Approx(num / z).epsilon(1e-9));
    }
}

TEST_CASE("hmm: more demonstrations from a concept concentrate the posterior on it") {
    const hmm::Mixture m = hmm::make_mixture(5, 4, 10, 2.0, 6, 7);
    double entropy_1 = 0, entropy_8 = 0, right_8 = 0;
    for (int i = 0; i < 200; ++i) {
        for (int k : {1, 8}) {
            Rng rng(1000 + (uint64_t)i, (uint64_t)k);
            const size_t c = (size_t)(i % 5);
            const hmm::Inference inf = hmm::infer(m, hmm::make_prompt(m.concepts[c], k, 6, rng));
            double e = 0;
            for (double q : inf.posterior) e -= q > 0 ? q * std::log(q) : 0;
            (k == 1 ? entropy_1 : entropy_8) += e / 200;
            if (k == 8) right_8 += (inf.posterior[c] > 0.5) / 200.0;
        }
    }
    CHECK(entropy_8 < 0.5 * entropy_1);
    CHECK(right_8 > 0.9);
}

TEST_CASE("hmm: documents are BOS, segments and delimiters; only symbols are scored") {
    const hmm::Mixture m = hmm::make_mixture(2, 3, 5, 1.0, 4, 1);
    Rng rng(9);
    std::vector<int> tokens, targets;
    hmm::make_document(m, 3, rng, tokens, targets);
    REQUIRE(tokens.size() == 1 + 3 * 5);
    CHECK(tokens[0] == hmm::kBos);
    for (size_t t = 0; t < tokens.size(); ++t) {
        CHECK((t % 5 == 0) == (tokens[t] == (t == 0 ? hmm::kBos : hmm::kDelimiter)));
        if (t + 1 < tokens.size()) CHECK(targets[t] == (tokens[t + 1] == hmm::kDelimiter ? -1 : tokens[t + 1]));
    }
    hmm::Hmm bad = m.concepts[0];
    bad.transition[1] += 0.5;
    CHECK(!hmm::validate(bad).ok());
}

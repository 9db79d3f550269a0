// The few-shot classification data (icl/fewshot.h): every statistic the knobs promise,
// counted or fitted here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "icl/fewshot.h"
#include "stats_test_util.h"

using namespace icl;

namespace fewshot_test {

fewshot::World world_of(const fewshot::Knobs& k, uint64_t seed = 1) {
    auto w = fewshot::make_world(k, seed);
    REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
    return w.value();
}

// Counts of each class among the context items of one sequence.
std::map<int, int> context_counts(const fewshot::Batch& b, int s) {
    std::map<int, int> m;
    for (int i = 0; i < b.pairs; ++i) ++m[b.item_class[(size_t)b.at(s, i)]];
    return m;
}

// Zipf probabilities written from the formula, not from the world.
std::vector<double> zipf_probs(int K, double alpha) {
    std::vector<double> p((size_t)K);
    double z = 0;
    for (int k = 0; k < K; ++k) z += p[(size_t)k] = std::pow(k + 1.0, -alpha);
    for (double& v : p) v /= z;
    return p;
}

}  // namespace fewshot_test

using namespace fewshot_test;

TEST_CASE("fewshot: bursty contexts hold each bursty class exactly B times, the query's among them (Reddy and Chan layouts)") {
    for (int layout = 0; layout < 2; ++layout) {
        fewshot::Knobs k;
        k.classes = 64;
        k.labels = 8;
        k.dim = 8;
        k.zipf = 1.0;
        if (layout == 0) {
            k.burstiness = 2;  // Reddy: 4 classes x 2, no remainder
        } else {
            k.burstiness = 3;  // Chan: 2 classes x 3, two remainder items of other classes
            k.ways = 2;
        }
        CAPTURE(layout);
        const fewshot::World w = world_of(k);
        const fewshot::Batch b = fewshot::sample(w, fewshot::Split::train, 500, 3);
        for (int s = 0; s < b.count; ++s) {
            ICL_CHECK_EACH(b.bursty[(size_t)s]);
            const auto counts = context_counts(b, s);
            int exact_b = 0, others = 0;
            for (const auto& [cls, n] : counts) {
                if (n == k.burstiness) ++exact_b;
                else others += n;
            }
            ICL_CHECK_EACH(exact_b == k.ways_used());
            ICL_CHECK_EACH(others == k.pairs - k.ways_used() * k.burstiness);
            const int q = b.query_class(s);
            ICL_CHECK_EACH(counts.count(q) == 1);
            ICL_CHECK_EACH(counts.at(q) == k.burstiness);
            for (int i = 0; i <= k.pairs; ++i) ICL_CHECK_EACH(b.item_label[(size_t)b.at(s, i)] == b.item_class[(size_t)b.at(s, i)] % k.labels);
        }
    }
}

TEST_CASE("fewshot: query and i.i.d. context classes follow Zipf(alpha) by a chi-square test, which rejects a wrong alpha") {
    for (double alpha : {0.0, 1.0, 2.0}) {
        CAPTURE(alpha);
        fewshot::Knobs k;
        k.classes = 60;
        k.labels = 6;
        k.dim = 2;
        k.zipf = alpha;
        k.p_bursty = 0.0;  // contexts i.i.d. from Zipf
        const fewshot::World w = world_of(k);
        const fewshot::Batch b = fewshot::sample(w, fewshot::Split::train, 3000, 5);
        std::vector<long> queries(60, 0), context(60, 0);
        for (int s = 0; s < b.count; ++s) {
            ++queries[(size_t)b.query_class(s)];
            for (int i = 0; i < k.pairs; ++i) ++context[(size_t)b.item_class[(size_t)b.at(s, i)]];
        }
        // (each statistic before its critical value: the degrees of freedom come with it)
        int dof = 0;
        double chi = test::chi_square(queries, zipf_probs(60, alpha), &dof);
        CHECK(chi < test::chi_square_critical_999(dof));
        chi = test::chi_square(context, zipf_probs(60, alpha), &dof);
        CHECK(chi < test::chi_square_critical_999(dof));
        // the test has the power to tell: the same context counts against alpha + 0.15
        chi = test::chi_square(context, zipf_probs(60, alpha + 0.15), &dof);
        CHECK(chi > test::chi_square_critical_999(dof));
        // bursty sequences draw the query's class first, from Zipf itself
        k.p_bursty = 1.0;
        const fewshot::Batch bb = fewshot::sample(world_of(k), fewshot::Split::train, 3000, 6);
        std::fill(queries.begin(), queries.end(), 0);
        for (int s = 0; s < bb.count; ++s) ++queries[(size_t)bb.query_class(s)];
        chi = test::chi_square(queries, zipf_probs(60, alpha), &dof);
        CHECK(chi < test::chi_square_critical_999(dof));
    }
}

TEST_CASE("fewshot: the shares of bursty and of novel training sequences are p_bursty and p_novel") {
    fewshot::Knobs k;
    k.classes = 32;
    k.labels = 8;
    k.dim = 2;
    k.p_bursty = 0.3;
    k.p_novel = 0.2;
    const fewshot::Batch b = fewshot::sample(world_of(k), fewshot::Split::train, 4000, 8);
    long bursty = 0, novel = 0, bursty_of_rest = 0;
    for (int s = 0; s < b.count; ++s) {
        novel += b.novel[(size_t)s];
        if (b.novel[(size_t)s]) ICL_CHECK_EACH(b.bursty[(size_t)s]);
        else bursty_of_rest += b.bursty[(size_t)s];
        bursty += b.bursty[(size_t)s];
    }
    const double n = b.count;
    CHECK(std::fabs(novel / n - 0.2) < 4 * std::sqrt(0.2 * 0.8 / n));
    const double rest = n - novel;
    CHECK(std::fabs(bursty_of_rest / rest - 0.3) < 4 * std::sqrt(0.3 * 0.7 / rest));
}

TEST_CASE("fewshot: items scatter around their class mean with within-class variance eps^2 / (D (1 + eps^2)) and E|x|^2 = 1") {
    for (double eps : {0.0, 0.5, 2.0}) {
        CAPTURE(eps);
        fewshot::Knobs k;
        k.classes = 4;
        k.labels = 2;
        k.pairs = 4;
        k.burstiness = 2;
        k.dim = 16;
        k.noise = eps;
        const fewshot::World w = world_of(k);
        const double shrink = 1.0 / std::sqrt(1.0 + eps * eps), var = eps * eps / (k.dim * (1.0 + eps * eps));
        for (fewshot::Split split : {fewshot::Split::train, fewshot::Split::icl_novel}) {
            const fewshot::Batch b = fewshot::sample(w, split, 1000, 9);
            double ss = 0;
            long n = 0;
            for (int s = 0; s < b.count; ++s)
                for (int i = 0; i < k.pairs; ++i) {
                    const int cls = b.item_class[(size_t)b.at(s, i)];
                    if (cls >= k.classes) continue;  // novel: the means are not kept
                    const float* x = &b.items[(size_t)b.at(s, i) * k.dim];
                    for (int c = 0; c < k.dim; ++c, ++n) {
                        const double e = x[c] - shrink * w.class_means(cls, c);
                        ss += e * e;
                    }
                }
            if (split == fewshot::Split::train) {
                REQUIRE(n > 0);
                if (eps == 0.0) CHECK(ss < 1e-10);
                else CHECK(ss / n == doctest::Approx(var).epsilon(4 * std::sqrt(2.0 / n)));
            } else {
                CHECK(n == 0);  // every icl_novel class is a new one
                // novel items: E|x|^2 = (|mu|^2 + eps^2 |eta|^2) / (1 + eps^2) = 1, and two items of one
                // novel class differ by the within-class noise alone: E|x1 - x2|^2 = 2 eps^2 / (1 + eps^2)
                double norm2 = 0, diff2 = 0;
                long items = 0, pairs = 0;
                for (int s = 0; s < b.count; ++s) {
                    const int q = b.query_class(s);
                    const float* xq = &b.items[(size_t)b.at(s, k.pairs) * k.dim];
                    for (int i = 0; i < k.pairs; ++i) {
                        const float* x = &b.items[(size_t)b.at(s, i) * k.dim];
                        for (int c = 0; c < k.dim; ++c) norm2 += (double)x[c] * x[c];
                        ++items;
                        if (b.item_class[(size_t)b.at(s, i)] != q) continue;
                        for (int c = 0; c < k.dim; ++c) diff2 += (double)(x[c] - xq[c]) * (x[c] - xq[c]);
                        ++pairs;
                    }
                }
                CHECK(norm2 / items == doctest::Approx(1.0).epsilon(0.03));
                CHECK(diff2 / pairs == doctest::Approx(2 * eps * eps / (1 + eps * eps)).epsilon(0.05).scale(1e-9));
            }
        }
    }
}

TEST_CASE("fewshot: icl_permuted relabels every item through one derangement a sequence, so only the context gives the answer") {
    fewshot::Knobs k;
    k.classes = 40;
    k.labels = 5;
    k.dim = 4;
    k.burstiness = 2;
    const fewshot::Batch b = fewshot::sample(world_of(k), fewshot::Split::icl_permuted, 2000, 10);
    std::map<std::pair<int, int>, long> seen;  // (trained label, shown label) -> sequences
    for (int s = 0; s < b.count; ++s) {
        std::map<int, int> perm;  // trained label -> shown label, as this sequence shows it
        for (int i = 0; i <= k.pairs; ++i) {
            const int trained = b.item_class[(size_t)b.at(s, i)] % k.labels, shown = b.item_label[(size_t)b.at(s, i)];
            ICL_CHECK_EACH(shown != trained);
            if (perm.count(trained)) ICL_CHECK_EACH(perm[trained] == shown);
            perm[trained] = shown;
        }
        std::set<int> images;
        for (const auto& [from, to] : perm) images.insert(to), seen[{from, to}] += 1;
        ICL_CHECK_EACH(images.size() == perm.size());  // one-to-one
        // the answer is the label the context shows with the query's class
        bool found = false;
        for (int i = 0; i < k.pairs; ++i)
            if (b.item_class[(size_t)b.at(s, i)] == b.query_class(s)) {
                ICL_CHECK_EACH(b.item_label[(size_t)b.at(s, i)] == b.answer(s));
                found = true;
            }
        ICL_CHECK_EACH(found);
    }
    // every label goes to every other label sometimes
    for (int from = 0; from < k.labels; ++from)
        for (int to = 0; to < k.labels; ++to)
            if (to != from) CHECK(seen[{from, to}] > 0);
}

TEST_CASE("fewshot: icl_novel sequences use only new classes, the bursty ones with distinct labels, the query's shown B times") {
    fewshot::Knobs k;
    k.classes = 100;
    k.labels = 10;
    k.dim = 4;
    k.burstiness = 3;
    k.ways = 2;  // and two remainder items
    const fewshot::Batch b = fewshot::sample(world_of(k), fewshot::Split::icl_novel, 500, 12);
    std::set<float> first_coordinates;
    for (int s = 0; s < b.count; ++s) {
        ICL_CHECK_EACH(b.novel[(size_t)s]);
        const auto counts = context_counts(b, s);
        std::map<int, int> label_of;
        for (int i = 0; i <= k.pairs; ++i) {
            const int cls = b.item_class[(size_t)b.at(s, i)];
            ICL_CHECK_EACH(cls >= k.classes);
            ICL_CHECK_EACH(cls < k.classes + k.pairs);
            if (label_of.count(cls)) ICL_CHECK_EACH(label_of[cls] == b.item_label[(size_t)b.at(s, i)]);
            label_of[cls] = b.item_label[(size_t)b.at(s, i)];
        }
        ICL_CHECK_EACH(counts.at(b.query_class(s)) == 3);
        std::set<int> bursty_labels;
        for (const auto& [cls, n] : counts)
            if (n == 3) bursty_labels.insert(label_of[cls]);
        ICL_CHECK_EACH(bursty_labels.size() == 2);
        first_coordinates.insert(b.items[(size_t)b.at(s, b.pairs) * k.dim]);
    }
    CHECK(first_coordinates.size() > 450);  // new means every sequence
}

TEST_CASE("fewshot: iwl contexts hold neither the query's class nor its label, so only the weights can answer") {
    fewshot::Knobs k;
    k.classes = 48;
    k.labels = 4;
    k.dim = 4;
    k.zipf = 2.0;  // the query is often class 0: its label's classes carry most of the weight
    const fewshot::Batch b = fewshot::sample(world_of(k), fewshot::Split::iwl, 2000, 13);
    for (int s = 0; s < b.count; ++s) {
        ICL_CHECK_EACH(!b.bursty[(size_t)s]);
        ICL_CHECK_EACH(b.answer(s) == b.query_class(s) % k.labels);
        for (int i = 0; i < k.pairs; ++i) {
            ICL_CHECK_EACH(b.item_class[(size_t)b.at(s, i)] != b.query_class(s));
            ICL_CHECK_EACH(b.item_label[(size_t)b.at(s, i)] != b.answer(s));
        }
    }
}

TEST_CASE("fewshot: a batch is a pure function of (knobs, seed); the vector and token forms lay out item, label, ..., query") {
    fewshot::Knobs k;
    k.classes = 16;
    k.labels = 4;
    k.pairs = 4;
    k.burstiness = 2;
    k.dim = 3;
    k.p_bursty = 0.5;
    k.p_novel = 0.5;
    const fewshot::World w1 = world_of(k, 5), w2 = world_of(k, 5), w3 = world_of(k, 6);
    CHECK(w1.class_means == w2.class_means);
    CHECK(w1.label_vectors == w2.label_vectors);
    CHECK(w1.class_means != w3.class_means);
    const fewshot::Batch a = fewshot::sample(w1, fewshot::Split::train, 20, 42), b = fewshot::sample(w2, fewshot::Split::train, 20, 42);
    const fewshot::Batch c = fewshot::sample(w1, fewshot::Split::train, 20, 43);
    CHECK(a.items == b.items);
    CHECK(a.item_class == b.item_class);
    CHECK(a.item_label == b.item_label);
    CHECK(a.items != c.items);

    const std::vector<float> v = fewshot::vectors(w1, a);
    const std::vector<int> t = fewshot::tokens(k, a);
    const int T = 2 * k.pairs + 1;
    REQUIRE(v.size() == (size_t)a.count * T * k.dim);
    REQUIRE(t.size() == (size_t)a.count * T);
    for (int s = 0; s < a.count; ++s)
        for (int i = 0; i <= k.pairs; ++i) {
            const int cls = a.item_class[(size_t)a.at(s, i)], lab = a.item_label[(size_t)a.at(s, i)];
            for (int c = 0; c < k.dim; ++c) ICL_CHECK_EACH(v[((size_t)s * T + 2 * i) * k.dim + c] == a.items[(size_t)a.at(s, i) * k.dim + c]);
            ICL_CHECK_EACH(t[(size_t)s * T + 2 * i] == k.labels + cls);
            ICL_CHECK_EACH(t[(size_t)s * T + 2 * i] < fewshot::vocab(k));
            if (i == k.pairs) continue;
            for (int c = 0; c < k.dim; ++c) ICL_CHECK_EACH(v[((size_t)s * T + 2 * i + 1) * k.dim + c] == w1.label_vectors(lab, c));
            ICL_CHECK_EACH(t[(size_t)s * T + 2 * i + 1] == lab);
        }
}

TEST_CASE("fewshot: bad knobs are errors naming the knob and its range") {
    fewshot::Knobs k;
    k.burstiness = 3;  // 8 pairs, ways 0: 2 classes x 3 + 2 remainder is fine
    CHECK(fewshot::validate(k).ok());
    k.burstiness = 9;
    auto w = fewshot::make_world(k, 1);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().message == "few-shot data: burstiness = 9 is out of range: expected an integer in [1, 8] (at most the pairs)");
    k = {};
    k.labels = 600;
    CHECK(fewshot::validate(k).error().message.find("labels = 600") != std::string::npos);
    k = {};
    k.zipf = std::nan("");
    CHECK(fewshot::validate(k).error().message.find("zipf = nan") != std::string::npos);
    k = {};
    k.ways = 3;  // 3 x 4 > 8
    CHECK(fewshot::validate(k).error().message.find("ways = 3") != std::string::npos);
    k = {};
    k.labels = 2;
    k.burstiness = 1;  // 8 bursty classes would need 8 distinct labels
    CHECK(fewshot::validate(k).error().message.find("ways = 8") != std::string::npos);
}

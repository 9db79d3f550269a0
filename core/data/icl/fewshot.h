// Few-shot classification sequences whose statistics decide whether a model learns in
// context or in its weights (Chan et al. 2022; Reddy 2024), as pure functions of their
// knobs and a seed.
//
// A world: K classes, each a mean μ_k ~ N(0, I/D) in D dimensions, class k carrying label
// k mod L; L label vectors ~ N(0, I/D). An item of class k is (μ_k + ε η) / √(1 + ε²),
// η ~ N(0, I/D) drawn afresh for every item, so ε is the within-class noise and E|x|² = 1.
// Classes are drawn with Zipf weights P(k) ∝ (k + 1)^−α (class 0 the most common).
//
// A sequence: N context (item, label) pairs, then a query item whose label is the answer.
//   bursty (probability p_bursty): the query's class q from Zipf, then ways − 1 further
//     distinct classes from Zipf; each of these `ways` classes fills exactly B context
//     places, and the N − ways·B remaining places hold items of other classes, each drawn
//     from Zipf without the bursty ones; the context is shuffled. Reddy: ways = N/B, no
//     remainder; Chan: N = 8, B = 3, ways = 2 and two remainder items.
//   not bursty: q and the N context classes all independently from Zipf.
//   novel (probability p_novel, Reddy's p_C; always bursty): the classes are new ones,
//     their means drawn afresh for the sequence, the `ways` bursty ones given distinct
//     labels at random (the remainder ones any label).
// Evaluation splits, each holding one thing fixed so that one route alone answers:
//   icl_novel     every sequence bursty and novel: no weight knows these classes, only
//                 the context can give the label.
//   icl_permuted  bursty sequences of training classes whose labels (context and answer)
//                 all pass through one random derangement of the L labels, drawn per
//                 sequence: the label the weights learnt is never the answer.
//   iwl           the query's class from Zipf, the N context items from Zipf but never of
//                 a class carrying the query's label (so neither its class nor its label
//                 is in the context): only the weights can give the answer.
#pragma once
#include <cstdint>
#include <vector>

#include "icl/expected.h"
#include "icl/linalg.h"

namespace icl::fewshot {

struct Knobs {
    int classes = 512;      // K (class k has label k mod L)
    int labels = 32;        // L, 2 <= L <= K
    int pairs = 8;          // N context pairs before the query
    int burstiness = 4;     // B, 1 <= B <= N: places each bursty class fills
    int ways = 0;           // bursty classes in a bursty context; 0: N / B (Reddy)
    double p_bursty = 1.0;  // share of bursty training sequences
    double p_novel = 0.0;   // share of training sequences made of novel classes
    double zipf = 0.0;      // α in [0, 4]
    double noise = 0.1;     // ε in [0, 10]
    int dim = 63;           // D
    int ways_used() const { return ways > 0 ? ways : pairs / burstiness; }
};
// Names the first knob out of range (and what it must be).
Status validate(const Knobs& k);

// What the seed fixes once: the class means, the label vectors, the Zipf weights.
struct World {
    Knobs knobs;
    Matrix class_means;        // K × D
    Matrix label_vectors;      // L × D
    std::vector<double> zipf;  // K: P(class k)
    std::vector<double> cdf;   // K: Σ_{j<=k} P(j), the last exactly 1
};
Expected<World> make_world(const Knobs& knobs, uint64_t seed);

enum class Split { train, icl_novel, icl_permuted, iwl };

// `count` sequences of N + 1 items each (context items 0..N−1, then the query).
struct Batch {
    int count = 0, pairs = 0, dim = 0;
    // count × (N + 1): the class of each item. A novel class is K + s, s in [0, N) a slot
    // chosen at random for the sequence (distinct novel classes, distinct slots).
    std::vector<int> item_class;
    // count × (N + 1): the label shown with each context item; the last is the answer.
    std::vector<int> item_label;
    std::vector<float> items;     // count × (N + 1) × D
    std::vector<uint8_t> bursty;  // count
    std::vector<uint8_t> novel;   // count
    int at(int seq, int i) const { return seq * (pairs + 1) + i; }
    int answer(int seq) const { return item_label[(size_t)at(seq, pairs)]; }
    int query_class(int seq) const { return item_class[(size_t)at(seq, pairs)]; }
};
Batch sample(const World& world, Split split, int count, uint64_t seed);

// The vector form (Reddy): 2N + 1 positions of D, item_0, label_0, ..., item_{N−1},
// label_{N−1}, query item; a label position holds its label's vector. count × (2N+1) × D.
std::vector<float> vectors(const World& world, const Batch& batch);

// The token form: labels are tokens [0, L), training classes L + k, novel slots
// L + K + s (an item stands for its class; the within-class noise is not in it).
int vocab(const Knobs& k);
// count × (2N + 1), the positions of vectors().
std::vector<int> tokens(const Knobs& k, const Batch& batch);

}  // namespace icl::fewshot

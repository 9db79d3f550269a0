// A mixture of hidden Markov "concepts" (Xie et al. 2022, GINC at lesson scale) and
// exact Bayesian inference over it.
//
// A document: a concept c ~ prior, then segments, each a fresh run of concept c's HMM
// (state from `initial`, then `transition`; each state emits a symbol) of a fixed
// length, separated by a delimiter. A prompt is k complete segments (the
// "demonstrations") and the first L-1 symbols of one more; the question is its last
// symbol. Segments are independent given c, so the exact posterior over concepts is
//   p(c | prompt) ∝ prior_c · Π_segments p(segment | c) · p(query prefix | c)
// (each factor by the forward algorithm), and the Bayes-optimal next symbol is
//   p(next | prompt) = Σ_c p(c | prompt) · p(next | query prefix, c).
//
// GPT token ids: 0 = BOS, 1 = delimiter, symbol s = s + 2.
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/rng.h"

namespace icl::hmm {

struct Hmm {
    int states = 0, symbols = 0;   // S, O
    std::vector<double> initial;     // (S)
    std::vector<double> transition;  // (S,S) row i: p(next state | state i)
    std::vector<double> emission;    // (S,O) row i: p(symbol | state i)
};

// A random HMM whose rows are softmax(sharpness · N(0,1)) draws: larger sharpness,
// more predictable sequences.
Hmm random_hmm(int states, int symbols, double sharpness, Rng& rng);

// Checks shapes and that every row is a distribution (error names the row).
Status validate(const Hmm& h);

std::vector<int> sample(const Hmm& h, int length, Rng& rng);  // symbols

// log p(symbols | h), forward algorithm with scaling.
double log_likelihood(const Hmm& h, const std::vector<int>& symbols);
// p(next symbol | prefix, h) (O), forward algorithm; prefix may be empty.
std::vector<double> predictive(const Hmm& h, const std::vector<int>& prefix);

// The same two by summing over every state path (S^n terms): the tests' reference.
double brute_force_likelihood(const Hmm& h, const std::vector<int>& symbols);

struct Mixture {
    std::vector<Hmm> concepts;
    std::vector<double> prior;   // (concepts)
    int segment_length = 0;      // L symbols a segment
    int symbols() const { return concepts.empty() ? 0 : concepts[0].symbols; }
    int vocab() const { return symbols() + 2; }  // GPT vocabulary
};

// `count` random concepts (uniform prior) sharing S and O, drawn from one Rng.
Mixture make_mixture(int count, int states, int symbols, double sharpness, int segment_length, uint64_t seed);

constexpr int kBos = 0;
constexpr int kDelimiter = 1;
inline int token_of(int symbol) { return symbol + 2; }

struct Prompt {
    std::vector<std::vector<int>> segments;  // k complete segments (symbols)
    std::vector<int> query;                  // the first q symbols of one more segment (q < L)
    int answer = 0;                          // the sampled last symbol
    std::vector<int> tokens() const;         // BOS seg ; seg ; ... ; query (GPT ids)
};
// A prompt with k demonstrations from concept `h`; the query is the first
// `query_symbols` symbols of one more segment (default L - 1: all but its last).
Prompt make_prompt(const Hmm& h, int k, int segment_length, Rng& rng, int query_symbols = -1);

struct Inference {
    std::vector<double> posterior;   // p(c | prompt) (concepts)
    std::vector<double> predictive;  // p(next symbol | prompt) (O), Bayes-optimal
};
Inference infer(const Mixture& m, const Prompt& p);

// A training document: a concept from the prior, `segments` segments; tokens (GPT ids)
// and next-token targets (every symbol scored, delimiters not; -1 = unscored).
void make_document(const Mixture& m, int segments, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets);

}  // namespace icl::hmm

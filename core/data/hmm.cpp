#include "icl/hmm.h"

#include "icl/hmm_frequencies.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace icl::hmm {

namespace {

void random_row(double* row, int n, double sharpness, Rng& rng) {
    double mx = -1e300;
    std::vector<double> z((size_t)n);
    for (int i = 0; i < n; ++i) mx = std::max(mx, z[(size_t)i] = sharpness * rng.normal());
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += row[i] = std::exp(z[(size_t)i] - mx);
    for (int i = 0; i < n; ++i) row[i] /= sum;
}

int draw(const double* p, int n, Rng& rng) {
    const double u = rng.uniform();
    double c = 0;
    for (int i = 0; i < n; ++i)
        if (u < (c += p[i])) return i;
    return n - 1;
}

// Forward pass: alpha (S) ends as p(state_t | x_1..t) after the last symbol; returns
// log p(x_1..n). With no symbols alpha is the initial distribution.
double forward(const Hmm& h, const std::vector<int>& xs, std::vector<double>& alpha) {
    const int S = h.states, O = h.symbols;
    alpha = h.initial;
    std::vector<double> next((size_t)S);
    double logp = 0;
    for (size_t t = 0; t < xs.size(); ++t) {
        if (t > 0) {  // propagate: alpha <- alpha · A
            std::fill(next.begin(), next.end(), 0.0);
            for (int i = 0; i < S; ++i)
                for (int j = 0; j < S; ++j) next[(size_t)j] += alpha[(size_t)i] * h.transition[(size_t)(i * S + j)];
            alpha = next;
        }
        double z = 0;  // condition on x_t
        for (int i = 0; i < S; ++i) z += alpha[(size_t)i] *= h.emission[(size_t)(i * O + xs[t])];
        logp += std::log(z);
        for (double& a : alpha) a /= z;
    }
    return logp;
}

}  // namespace

Hmm random_hmm(int states, int symbols, double sharpness, Rng& rng) {
    Hmm h;
    h.states = states;
    h.symbols = symbols;
    h.initial.resize((size_t)states);
    h.transition.resize((size_t)(states * states));
    h.emission.resize((size_t)(states * symbols));
    random_row(h.initial.data(), states, sharpness, rng);
    for (int i = 0; i < states; ++i) random_row(h.transition.data() + i * states, states, sharpness, rng);
    for (int i = 0; i < states; ++i) random_row(h.emission.data() + i * symbols, symbols, sharpness, rng);
    return h;
}

Status validate(const Hmm& h) {
    const int S = h.states, O = h.symbols;
    if (S < 1 || O < 1) return make_error("hmm: states and symbols must be >= 1");
    if (h.initial.size() != (size_t)S || h.transition.size() != (size_t)(S * S) || h.emission.size() != (size_t)(S * O))
        return make_error("hmm: a table's size disagrees with states = " + std::to_string(S) + ", symbols = " + std::to_string(O));
    auto row_ok = [](const double* r, int n) {
        double s = 0;
        for (int i = 0; i < n; ++i) {
            if (!(r[i] >= 0)) return false;
            s += r[i];
        }
        return std::fabs(s - 1) < 1e-9;
    };
    if (!row_ok(h.initial.data(), S)) return make_error("hmm: the initial distribution does not sum to 1");
    for (int i = 0; i < S; ++i) {
        if (!row_ok(h.transition.data() + i * S, S)) return make_error("hmm: transition row " + std::to_string(i) + " is not a distribution");
        if (!row_ok(h.emission.data() + i * O, O)) return make_error("hmm: emission row " + std::to_string(i) + " is not a distribution");
    }
    return Ok{};
}

std::vector<int> sample(const Hmm& h, int length, Rng& rng) {
    std::vector<int> xs;
    int s = draw(h.initial.data(), h.states, rng);
    for (int t = 0; t < length; ++t) {
        if (t > 0) s = draw(h.transition.data() + s * h.states, h.states, rng);
        xs.push_back(draw(h.emission.data() + s * h.symbols, h.symbols, rng));
    }
    return xs;
}

double log_likelihood(const Hmm& h, const std::vector<int>& symbols) {
    std::vector<double> alpha;
    return forward(h, symbols, alpha);
}

std::vector<double> symbol_frequencies(const Hmm& h, int length) {
    const int S = h.states, O = h.symbols;
    std::vector<double> out((size_t)O, 0.0), p = h.initial, next((size_t)S);
    for (int t = 0; t < length; ++t) {
        for (int i = 0; i < S; ++i)
            for (int o = 0; o < O; ++o) out[(size_t)o] += p[(size_t)i] * h.emission[(size_t)i * O + o];
        std::fill(next.begin(), next.end(), 0.0);
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j) next[(size_t)j] += p[(size_t)i] * h.transition[(size_t)i * S + j];
        p.swap(next);
    }
    for (double& v : out) v /= std::max(1, length);
    return out;
}

std::vector<double> predictive(const Hmm& h, const std::vector<int>& prefix) {
    const int S = h.states, O = h.symbols;
    std::vector<double> alpha;
    forward(h, prefix, alpha);
    std::vector<double> state((size_t)S, 0.0);
    if (prefix.empty()) {
        state = alpha;  // the first symbol's state is drawn from `initial`
    } else {
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j) state[(size_t)j] += alpha[(size_t)i] * h.transition[(size_t)(i * S + j)];
    }
    std::vector<double> out((size_t)O, 0.0);
    for (int j = 0; j < S; ++j)
        for (int o = 0; o < O; ++o) out[(size_t)o] += state[(size_t)j] * h.emission[(size_t)(j * O + o)];
    return out;
}

double brute_force_likelihood(const Hmm& h, const std::vector<int>& xs) {
    const int S = h.states, n = (int)xs.size();
    if (n == 0) return 1.0;
    std::vector<int> path((size_t)n, 0);
    double total = 0;
    while (true) {
        double p = h.initial[(size_t)path[0]] * h.emission[(size_t)(path[0] * h.symbols + xs[0])];
        for (int t = 1; t < n; ++t)
            p *= h.transition[(size_t)(path[(size_t)t - 1] * S + path[(size_t)t])] *
                 h.emission[(size_t)(path[(size_t)t] * h.symbols + xs[(size_t)t])];
        total += p;
        int t = 0;  // next path, like an odometer
        while (t < n && ++path[(size_t)t] == S) path[(size_t)t++] = 0;
        if (t == n) break;
    }
    return total;
}

Mixture make_mixture(int count, int states, int symbols, double sharpness, int segment_length, uint64_t seed) {
    Rng rng(seed);
    Mixture m;
    for (int c = 0; c < count; ++c) m.concepts.push_back(random_hmm(states, symbols, sharpness, rng));
    m.prior.assign((size_t)count, 1.0 / count);
    m.segment_length = segment_length;
    return m;
}

std::vector<int> Prompt::tokens() const {
    std::vector<int> t{kBos};
    for (const auto& seg : segments) {
        for (int x : seg) t.push_back(token_of(x));
        t.push_back(kDelimiter);
    }
    for (int x : query) t.push_back(token_of(x));
    return t;
}

Prompt make_prompt(const Hmm& h, int k, int segment_length, Rng& rng, int query_symbols) {
    Prompt p;
    for (int i = 0; i < k; ++i) p.segments.push_back(sample(h, segment_length, rng));
    p.query = sample(h, (query_symbols < 0 ? segment_length - 1 : query_symbols) + 1, rng);
    p.answer = p.query.back();
    p.query.pop_back();
    return p;
}

Inference infer(const Mixture& m, const Prompt& p) {
    const size_t C = m.concepts.size();
    std::vector<double> logpost(C);
    for (size_t c = 0; c < C; ++c) {
        double lp = std::log(m.prior[c]) + log_likelihood(m.concepts[c], p.query);
        for (const auto& seg : p.segments) lp += log_likelihood(m.concepts[c], seg);
        logpost[c] = lp;
    }
    const double mx = *std::max_element(logpost.begin(), logpost.end());
    Inference inf;
    double z = 0;
    for (double lp : logpost) z += std::exp(lp - mx);
    for (double lp : logpost) inf.posterior.push_back(std::exp(lp - mx) / z);
    inf.predictive.assign((size_t)m.symbols(), 0.0);
    for (size_t c = 0; c < C; ++c) {
        const std::vector<double> pc = predictive(m.concepts[c], p.query);
        for (size_t o = 0; o < pc.size(); ++o) inf.predictive[o] += inf.posterior[c] * pc[o];
    }
    return inf;
}

void make_document(const Mixture& m, int segments, Rng& rng, std::vector<int>& tokens, std::vector<int>& targets) {
    const Hmm& h = m.concepts[(size_t)draw(m.prior.data(), (int)m.prior.size(), rng)];
    tokens.assign(1, kBos);
    for (int i = 0; i < segments; ++i) {
        for (int x : sample(h, m.segment_length, rng)) tokens.push_back(token_of(x));
        tokens.push_back(kDelimiter);
    }
    // position t predicts tokens[t + 1]; score symbols only
    targets.assign(tokens.size(), -1);
    for (size_t t = 0; t + 1 < tokens.size(); ++t)
        if (tokens[t + 1] != kDelimiter) targets[t] = tokens[t + 1];
}

}  // namespace icl::hmm

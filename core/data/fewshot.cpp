#include "icl/fewshot.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "icl/format.h"
#include "icl/rng.h"

namespace icl::fewshot {

namespace {

// Rng streams, so that the world and each split draw from streams of their own.
constexpr uint64_t kWorldStream = 0x5eed0001, kBatchStream = 0x5eed0010;

Error out_of_range(const char* knob, double value, const std::string& expected) {
    return make_error(std::string("few-shot data: ") + knob + " = " + format_number(value) + " is out of range: expected " +
                      expected);
}

Status check_int(const char* knob, int v, int lo, int hi, const std::string& why = "") {
    if (v >= lo && v <= hi) return Ok{};
    return out_of_range(knob, v, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" + why);
}

Status check_real(const char* knob, double v, double lo, double hi) {
    if (v >= lo && v <= hi) return Ok{};  // false for NaN
    return out_of_range(knob, v, "a number in [" + format_number(lo) + ", " + format_number(hi) + "]");
}

// Uniform in [0, 1) with 53 random bits (Rng::uniform has 24, too coarse for the rarest
// of 10^5 Zipf classes).
double uniform53(Rng& rng) {
    const double hi = rng.next_u32() >> 5, lo = rng.next_u32() >> 6;
    return (hi * 67108864.0 + lo) / 9007199254740992.0;
}

bool contains(const std::vector<int>& sorted, int v) { return std::binary_search(sorted.begin(), sorted.end(), v); }
void insert_sorted(std::vector<int>& sorted, int v) { sorted.insert(std::lower_bound(sorted.begin(), sorted.end(), v), v); }

// A class from the Zipf weights restricted to the classes not in `excluded` (sorted, small):
// the smallest k whose restricted cumulative weight g(k) = cdf[k] − Σ_{e in excluded, e <= k} P(e)
// exceeds u, u uniform below the restricted total. No rejection, so a draw costs the same
// however much weight the excluded classes carry.
int zipf_draw(const World& w, Rng& rng, const std::vector<int>& excluded) {
    const int K = (int)w.cdf.size();
    double out = 0.0;
    for (int e : excluded) out += w.zipf[(size_t)e];
    const double u = uniform53(rng) * (1.0 - out);
    auto g = [&](int k) {
        double s = w.cdf[(size_t)k];
        for (int e : excluded) {
            if (e > k) break;
            s -= w.zipf[(size_t)e];
        }
        return s;
    };
    int lo = 0, hi = K - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (g(mid) > u) hi = mid;
        else lo = mid + 1;
    }
    // g is flat across an excluded class, so only rounding can land on one: step off it.
    while (lo < K && contains(excluded, lo)) ++lo;
    if (lo == K)
        for (lo = K - 1; contains(excluded, lo);) --lo;
    return lo;
}

void shuffle(std::vector<int>& v, Rng& rng) {
    for (int i = (int)v.size() - 1; i > 0; --i) std::swap(v[(size_t)i], v[rng.below((uint32_t)i + 1)]);
}

// The first `take` entries of a uniformly random permutation of [0, n).
std::vector<int> random_distinct(int n, int take, Rng& rng) {
    std::vector<int> p((size_t)n);
    for (int i = 0; i < n; ++i) p[(size_t)i] = i;
    for (int i = 0; i < take; ++i) std::swap(p[(size_t)i], p[(size_t)i + rng.below((uint32_t)(n - i))]);
    p.resize((size_t)take);
    return p;
}

// A uniformly random derangement of [0, n), n >= 2: random permutations until one has no
// fixed point (about e tries on average).
std::vector<int> random_derangement(int n, Rng& rng) {
    for (;;) {
        std::vector<int> p = random_distinct(n, n, rng);
        bool fixed = false;
        for (int i = 0; i < n && !fixed; ++i) fixed = p[(size_t)i] == i;
        if (!fixed) return p;
    }
}

}  // namespace

Status validate(const Knobs& k) {
    if (auto s = check_int("classes", k.classes, 2, 1 << 20); !s) return s;
    if (auto s = check_int("labels", k.labels, 2, k.classes, " (at most the classes)"); !s) return s;
    if (auto s = check_int("pairs", k.pairs, 1, 512); !s) return s;
    if (auto s = check_int("burstiness", k.burstiness, 1, k.pairs, " (at most the pairs)"); !s) return s;
    if (auto s = check_int("ways", k.ways, 0, k.pairs / k.burstiness, " (0, or ways x burstiness at most the pairs)"); !s)
        return s;
    const int ways = k.ways_used(), remainder = k.pairs - ways * k.burstiness;
    if (auto s = check_int("ways", ways, 1, std::min(k.labels, k.classes - (remainder > 0 ? 1 : 0)),
                           " (distinct bursty classes with distinct labels, other classes left for the rest)");
        !s)
        return s;
    if (auto s = check_real("p_bursty", k.p_bursty, 0.0, 1.0); !s) return s;
    if (auto s = check_real("p_novel", k.p_novel, 0.0, 1.0); !s) return s;
    if (auto s = check_real("zipf", k.zipf, 0.0, 4.0); !s) return s;
    if (auto s = check_real("noise", k.noise, 0.0, 10.0); !s) return s;
    if (auto s = check_int("dim", k.dim, 1, 4096); !s) return s;
    // the class means are K × D floats: at most 2^25 of them (128 MiB)
    return check_int("classes", k.classes, 2, (1 << 25) / k.dim, " (classes x dim at most 2^25)");
}

Expected<World> make_world(const Knobs& knobs, uint64_t seed) {
    if (auto s = validate(knobs); !s) return s.error();
    World w;
    w.knobs = knobs;
    Rng rng(seed, kWorldStream);
    const float scale = 1.0f / std::sqrt((float)knobs.dim);
    w.class_means = matrix(knobs.classes, knobs.dim);
    for (float& v : w.class_means.storage()) v = scale * rng.normal();
    w.label_vectors = matrix(knobs.labels, knobs.dim);
    for (float& v : w.label_vectors.storage()) v = scale * rng.normal();
    w.zipf.resize((size_t)knobs.classes);
    double total = 0.0;
    for (int c = 0; c < knobs.classes; ++c) total += w.zipf[(size_t)c] = std::pow(c + 1.0, -knobs.zipf);
    w.cdf.resize(w.zipf.size());
    double run = 0.0;
    for (size_t c = 0; c < w.zipf.size(); ++c) {
        w.zipf[c] /= total;
        w.cdf[c] = run += w.zipf[c];
    }
    w.cdf.back() = 1.0;
    return w;
}

Batch sample(const World& world, Split split, int count, uint64_t seed) {
    const Knobs& k = world.knobs;
    const int N = k.pairs, D = k.dim, K = k.classes, L = k.labels, B = k.burstiness;
    const int ways = k.ways_used(), remainder = N - ways * B;
    Batch b;
    b.count = count;
    b.pairs = N;
    b.dim = D;
    b.item_class.resize((size_t)count * (N + 1));
    b.item_label.resize(b.item_class.size());
    b.items.resize(b.item_class.size() * (size_t)D);
    b.bursty.resize((size_t)count);
    b.novel.resize((size_t)count);
    Rng rng(seed, kBatchStream + (uint64_t)split);
    const float item_scale = 1.0f / std::sqrt(1.0f + (float)(k.noise * k.noise));
    const float eta_scale = (float)k.noise / std::sqrt((float)D);
    const float mean_scale = 1.0f / std::sqrt((float)D);
    Matrix novel_means = matrix(N, D);  // by slot, drawn afresh for each novel sequence
    std::vector<int> ctx, excluded;
    ctx.reserve((size_t)N);
    for (int s = 0; s < count; ++s) {
        const bool novel = split == Split::icl_novel || (split == Split::train && uniform53(rng) < k.p_novel);
        const bool bursty = novel || split == Split::icl_permuted || (split == Split::train && uniform53(rng) < k.p_bursty);
        int* cls = &b.item_class[(size_t)b.at(s, 0)];
        int* lab = &b.item_label[(size_t)b.at(s, 0)];
        ctx.clear();
        excluded.clear();
        int query = 0;
        if (novel) {
            const std::vector<int> slots = random_distinct(N, ways + remainder, rng);
            const std::vector<int> names = random_distinct(L, ways, rng);
            for (int i = 0; i < ways; ++i)
                for (int r = 0; r < B; ++r) ctx.push_back(K + slots[(size_t)i]);
            for (int r = 0; r < remainder; ++r) ctx.push_back(K + slots[(size_t)(ways + r)]);
            shuffle(ctx, rng);
            query = K + slots[0];
            std::vector<int> label_of((size_t)N);
            for (int i = 0; i < ways + remainder; ++i)
                label_of[(size_t)slots[(size_t)i]] = i < ways ? names[(size_t)i] : (int)rng.below((uint32_t)L);
            for (int i = 0; i < N; ++i) lab[i] = label_of[(size_t)(ctx[(size_t)i] - K)];
            lab[N] = label_of[(size_t)(query - K)];
            for (int i = 0; i < ways + remainder; ++i)
                for (int c = 0; c < D; ++c) novel_means(slots[(size_t)i], c) = mean_scale * rng.normal();
        } else if (bursty) {
            query = zipf_draw(world, rng, excluded);
            insert_sorted(excluded, query);
            std::vector<int> chosen{query};
            for (int i = 1; i < ways; ++i) {
                const int c = zipf_draw(world, rng, excluded);
                chosen.push_back(c);
                insert_sorted(excluded, c);
            }
            for (int c : chosen)
                for (int r = 0; r < B; ++r) ctx.push_back(c);
            for (int r = 0; r < remainder; ++r) ctx.push_back(zipf_draw(world, rng, excluded));
            shuffle(ctx, rng);
        } else {
            query = zipf_draw(world, rng, excluded);
            for (int i = 0; i < N; ++i) {
                int c = zipf_draw(world, rng, excluded);
                // iwl: redraw every class carrying the query's label (the query's own among
                // them); at least one other label exists (L >= 2), so this ends
                while (split == Split::iwl && c % L == query % L) c = zipf_draw(world, rng, excluded);
                ctx.push_back(c);
            }
        }
        for (int i = 0; i < N; ++i) cls[i] = ctx[(size_t)i];
        cls[N] = query;
        if (!novel) {
            for (int i = 0; i <= N; ++i) lab[i] = cls[i] % L;
            if (split == Split::icl_permuted) {
                const std::vector<int> perm = random_derangement(L, rng);
                for (int i = 0; i <= N; ++i) lab[i] = perm[(size_t)lab[i]];
            }
        }
        b.bursty[(size_t)s] = bursty;
        b.novel[(size_t)s] = novel;
        for (int i = 0; i <= N; ++i) {
            const float* mean = cls[i] < K ? row(world.class_means, cls[i]) : row(novel_means, cls[i] - K);
            float* x = &b.items[(size_t)b.at(s, i) * D];
            for (int c = 0; c < D; ++c) x[c] = item_scale * (mean[c] + eta_scale * rng.normal());
        }
    }
    return b;
}

std::vector<float> vectors(const World& world, const Batch& batch) {
    const int N = batch.pairs, D = batch.dim, T = 2 * N + 1;
    std::vector<float> out((size_t)batch.count * T * D);
    for (int s = 0; s < batch.count; ++s)
        for (int i = 0; i <= N; ++i) {
            const float* x = &batch.items[(size_t)batch.at(s, i) * D];
            std::copy(x, x + D, &out[((size_t)s * T + 2 * i) * D]);
            if (i < N) {
                const float* l = row(world.label_vectors, batch.item_label[(size_t)batch.at(s, i)]);
                std::copy(l, l + D, &out[((size_t)s * T + 2 * i + 1) * D]);
            }
        }
    return out;
}

int vocab(const Knobs& k) { return k.labels + k.classes + k.pairs; }

std::vector<int> tokens(const Knobs& k, const Batch& batch) {
    const int N = batch.pairs, T = 2 * N + 1;
    std::vector<int> out((size_t)batch.count * T);
    for (int s = 0; s < batch.count; ++s)
        for (int i = 0; i <= N; ++i) {
            out[(size_t)s * T + 2 * i] = k.labels + batch.item_class[(size_t)batch.at(s, i)];
            if (i < N) out[(size_t)s * T + 2 * i + 1] = batch.item_label[(size_t)batch.at(s, i)];
        }
    return out;
}

}  // namespace icl::fewshot

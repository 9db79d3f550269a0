#include "icl/tasks.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace icl::tasks {

namespace {

struct AntonymRow { const char *a, *b, *category; };
// 14 antonym pairs; both words share a category word.
const AntonymRow kAdjectives[] = {
    {"hot", "cold", "temperature"}, {"big", "small", "size"},      {"fast", "slow", "speed"},
    {"long", "short", "length"},    {"heavy", "light", "weight"},  {"happy", "sad", "mood"},
    {"loud", "quiet", "sound"},     {"old", "young", "age"},       {"rich", "poor", "wealth"},
    {"strong", "weak", "strength"}, {"early", "late", "time"},     {"full", "empty", "amount"},
    {"wet", "dry", "moisture"},     {"bright", "dark", "brightness"},
};
constexpr int kNumbers = 30;  // "0" .. "29"
struct CountryRow { const char *country, *capital, *continent; };
const CountryRow kCountries[] = {
    {"France", "Paris", "Europe"},      {"Germany", "Berlin", "Europe"},   {"Italy", "Rome", "Europe"},
    {"Spain", "Madrid", "Europe"},      {"Poland", "Warsaw", "Europe"},    {"Greece", "Athens", "Europe"},
    {"Japan", "Tokyo", "Asia"},         {"China", "Beijing", "Asia"},      {"Korea", "Seoul", "Asia"},
    {"India", "Delhi", "Asia"},         {"Thailand", "Bangkok", "Asia"},   {"Vietnam", "Hanoi", "Asia"},
    {"Egypt", "Cairo", "Africa"},       {"Kenya", "Nairobi", "Africa"},    {"Ghana", "Accra", "Africa"},
    {"Morocco", "Rabat", "Africa"},     {"Senegal", "Dakar", "Africa"},    {"Brazil", "Brasilia", "Americas"},
    {"Peru", "Lima", "Americas"},       {"Chile", "Santiago", "Americas"}, {"Canada", "Ottawa", "Americas"},
    {"Cuba", "Havana", "Americas"},     {"Australia", "Canberra", "Oceania"}, {"Fiji", "Suva", "Oceania"},
};
struct TopicRow { const char* label; const char* words[6]; };
const TopicRow kTopics[] = {
    {"sports", {"soccer", "tennis", "golf", "hockey", "boxing", "rugby"}},
    {"food", {"bread", "rice", "soup", "cheese", "pasta", "salad"}},
    {"animal", {"dog", "cat", "horse", "tiger", "rabbit", "eagle"}},
    {"music", {"piano", "guitar", "drum", "violin", "flute", "trumpet"}},
};

class Builder {
public:
    Suite s;
    Builder() { s.words = {"<s>", "→", ";"}; }
    int word(const std::string& w) {
        auto it = ids_.find(w);
        if (it != ids_.end()) return it->second;
        s.words.push_back(w);
        return ids_[w] = (int)s.words.size() - 1;
    }
    void task(const char* id, const char* domain, std::vector<Pair> pairs,
              bool remapped = false) {
        Task t;
        t.id = id;
        t.domain = domain;
        for (size_t i = 0; i < pairs.size(); ++i) pairs[i].held_out = i % 5 == 1;  // every fifth pair, from the second
        for (const Pair& p : pairs)
            if (std::find(t.outputs.begin(), t.outputs.end(), p.y) == t.outputs.end()) t.outputs.push_back(p.y);
        t.pairs = std::move(pairs);
        t.remapped = remapped;
        s.tasks.push_back(std::move(t));
    }

private:
    std::map<std::string, int> ids_;
};

Suite build_suite() {
    Builder b;
    std::vector<Pair> antonym, category, succ, pred, capital, continent, topic;
    for (const AntonymRow& r : kAdjectives) {
        const int a = b.word(r.a), o = b.word(r.b);
        antonym.push_back({a, o});
        antonym.push_back({o, a});
    }
    for (const AntonymRow& r : kAdjectives) {
        const int c = b.word(r.category);
        category.push_back({b.word(r.a), c});
        category.push_back({b.word(r.b), c});
    }
    for (int n = 0; n < kNumbers; ++n) b.word(std::to_string(n));
    for (int n = 0; n + 1 < kNumbers; ++n) succ.push_back({b.word(std::to_string(n)), b.word(std::to_string(n + 1))});
    for (int n = 1; n < kNumbers; ++n) pred.push_back({b.word(std::to_string(n)), b.word(std::to_string(n - 1))});
    for (const CountryRow& r : kCountries) capital.push_back({b.word(r.country), b.word(r.capital)});
    for (const CountryRow& r : kCountries) continent.push_back({b.word(r.country), b.word(r.continent)});
    // Topic words interleaved across topics, so the held-out fifth spreads over them.
    for (int i = 0; i < 6; ++i)
        for (const TopicRow& r : kTopics) topic.push_back({b.word(r.words[i]), b.word(r.label)});
    b.task("antonym", "adjectives", antonym);
    b.task("category", "adjectives", category);
    b.task("successor", "numbers", succ);
    b.task("predecessor", "numbers", pred);
    b.task("capital", "countries", capital);
    b.task("continent", "countries", continent);
    b.task("topic", "topics", topic);
    b.task("topic_remap", "topics", topic,
           true);
    return b.s;
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The label map of one prompt: identity, or a random permutation of the label space.
std::vector<int> label_map(const Task& t, int vocab, Rng& rng) {
    std::vector<int> map((size_t)vocab);
    for (int i = 0; i < vocab; ++i) map[(size_t)i] = i;
    if (t.remapped) {
        std::vector<int> perm = t.outputs;
        shuffle(perm, rng);
        for (size_t i = 0; i < perm.size(); ++i) map[(size_t)t.outputs[i]] = perm[i];
    }
    return map;
}

std::vector<int> pair_indices(const Task& t, Split split) {
    std::vector<int> idx;
    for (size_t i = 0; i < t.pairs.size(); ++i)
        if (t.pairs[i].held_out == (split == Split::held_out)) idx.push_back((int)i);
    return idx;
}

// Scores the prediction after the span's → (without format, after its x).
void score(Sequence& seq, const Span& at, int target, int shots) {
    seq.slots.push_back({at.arrow >= 0 ? at.arrow : at.x, target, shots, at.x});
}

}  // namespace

int Suite::find_word(const std::string& w) const {
    for (size_t i = 0; i < words.size(); ++i)
        if (words[i] == w) return (int)i;
    return -1;
}

int Suite::find_task(const std::string& id) const {
    for (size_t i = 0; i < tasks.size(); ++i)
        if (tasks[i].id == id) return (int)i;
    return -1;
}

std::string Suite::text(const std::vector<int>& tokens, int from, int to) const {
    std::string out;
    for (int i = from; i < (to < 0 ? (int)tokens.size() : to); ++i)
        out += (out.empty() ? "" : " ") + words[(size_t)tokens[(size_t)i]];
    return out;
}

std::vector<int> Suite::words_of_domain(const std::string& domain, bool inputs) const {
    std::vector<int> out;
    for (const Task& t : tasks) {
        if (t.domain != domain) continue;
        for (const Pair& p : t.pairs) {
            const int w = inputs ? p.x : p.y;
            if (!contains(out, w)) out.push_back(w);
        }
    }
    return out;
}

Sequence format_prompt(const std::vector<Pair>& pairs, int query_x, bool format) {
    Sequence seq;
    seq.tokens.reserve((size_t)prompt_length((int)pairs.size(), query_x >= 0));
    auto put = [&seq](int token) {
        seq.tokens.push_back(token);
        return (int)seq.tokens.size() - 1;
    };
    put(kBos);
    for (const Pair& p : pairs) {
        Span sp;
        sp.x = put(p.x);
        if (format) sp.arrow = put(kArrow);
        sp.y = put(p.y);
        if (format) sp.sep = put(kSep);
        seq.pairs.push_back(sp);
    }
    if (query_x >= 0) {
        seq.query.x = put(query_x);
        seq.query.arrow = put(kArrow);
    }
    return seq;
}

const Suite& suite() {
    static const Suite s = build_suite();
    return s;
}

const char* condition_id(DemoCondition c) {
    switch (c) {
        case DemoCondition::gold: return "gold";
        case DemoCondition::random_labels: return "random_labels";
        case DemoCondition::ood_inputs: return "ood_inputs";
        case DemoCondition::outside_labels: return "outside_labels";
        case DemoCondition::no_format: return "no_format";
    }
    return "?";
}

void shuffle(std::vector<int>& v, Rng& rng) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below((uint32_t)i)]);
}

Expected<Sequence> make_prompt(const Suite& s, int task, const PromptOptions& o, Rng& rng) {
    if (task < 0 || task >= (int)s.tasks.size())
        return make_error("task index " + std::to_string(task) + " is outside [0, " + std::to_string(s.tasks.size() - 1) + "]");
    const Task& t = s.tasks[(size_t)task];
    if (o.shots < 0 || o.shots > kMaxShots)
        return make_error("shots = " + std::to_string(o.shots) + " is outside [0, " + std::to_string(kMaxShots) + "]");
    const std::vector<int> queries = pair_indices(t, o.query_split);
    const Pair& q = t.pairs[(size_t)queries[rng.below((uint32_t)queries.size())]];
    std::vector<int> demos;
    for (int i : pair_indices(t, Split::train))
        if (t.pairs[(size_t)i].x != q.x) demos.push_back(i);
    if ((int)demos.size() < o.shots)
        return make_error("task " + t.id + " has " + std::to_string(demos.size()) + " training pairs, fewer than " +
                          std::to_string(o.shots) + " shots");
    shuffle(demos, rng);
    demos.resize((size_t)o.shots);
    const std::vector<int> map = label_map(t, s.vocab(), rng);

    // Words for Min et al.'s conditions: other domains' inputs, and labels outside the space.
    std::vector<int> ood, outside;
    if (o.condition == DemoCondition::ood_inputs)
        for (const Task& other : s.tasks)
            if (other.domain != t.domain)
                for (int w : s.words_of_domain(other.domain, true))
                    if (!contains(ood, w)) ood.push_back(w);
    if (o.condition == DemoCondition::outside_labels)
        for (int w = kSep + 1; w < s.vocab(); ++w)
            if (!contains(t.outputs, w) && !contains(s.words_of_domain(t.domain, true), w)) outside.push_back(w);
    if (!ood.empty()) shuffle(ood, rng);

    const int in_context_at = o.query_in_context && o.shots > 0 ? (int)rng.below((uint32_t)o.shots) : -1;
    std::vector<Pair> shown;
    for (int i = 0; i < o.shots; ++i) {
        const Pair& d = i == in_context_at ? q : t.pairs[(size_t)demos[(size_t)i]];
        int x = d.x, y = map[(size_t)d.y];
        switch (o.condition) {
            case DemoCondition::random_labels: y = t.outputs[rng.below((uint32_t)t.outputs.size())]; break;
            case DemoCondition::ood_inputs:
                x = ood[(size_t)i];
                y = t.outputs[rng.below((uint32_t)t.outputs.size())];
                break;
            case DemoCondition::outside_labels: y = outside[rng.below((uint32_t)outside.size())]; break;
            default: break;
        }
        shown.push_back({x, y});
    }
    Sequence seq = format_prompt(shown, q.x, o.condition != DemoCondition::no_format);
    score(seq, seq.query, map[(size_t)q.y], o.shots);
    return seq;
}

Expected<Sequence> make_curve_sequence(const Suite& s, int task, int n, Rng& rng) {
    if (task < 0 || task >= (int)s.tasks.size())
        return make_error("task index " + std::to_string(task) + " is outside [0, " + std::to_string(s.tasks.size() - 1) + "]");
    const Task& t = s.tasks[(size_t)task];
    std::vector<int> idx = pair_indices(t, Split::train);
    if (n < 0 || n > kMaxShots || n + 1 > (int)idx.size())
        return make_error("curve length " + std::to_string(n) + " is outside [0, " +
                          std::to_string(std::min(kMaxShots, (int)idx.size() - 1)) + "] for task " + t.id);
    shuffle(idx, rng);
    const std::vector<int> map = label_map(t, s.vocab(), rng);
    std::vector<Pair> pairs;
    for (int i = 0; i <= n; ++i) {
        const Pair& p = t.pairs[(size_t)idx[(size_t)i]];
        pairs.push_back({p.x, map[(size_t)p.y]});
    }
    const Pair last = pairs.back();  // the query: its answer is the model's to predict
    pairs.pop_back();
    Sequence seq = format_prompt(pairs, last.x);
    for (int i = 0; i < n; ++i) score(seq, seq.pairs[(size_t)i], pairs[(size_t)i].y, i);
    score(seq, seq.query, last.y, n);
    return seq;
}

Sequence make_training_sequence(const Suite& s, int task, int pairs, Rng& rng) {
    const Task& t = s.tasks[(size_t)task];
    const std::vector<int> map = label_map(t, s.vocab(), rng);
    std::vector<Pair> drawn;
    for (int i = 0; i < pairs; ++i) {
        const Pair& p = t.pairs[rng.below((uint32_t)t.pairs.size())];
        drawn.push_back({p.x, map[(size_t)p.y], p.held_out});
    }
    Sequence seq = format_prompt(drawn);
    for (int i = 0; i < pairs; ++i)
        if (!drawn[(size_t)i].held_out) score(seq, seq.pairs[(size_t)i], drawn[(size_t)i].y, i);
    return seq;
}

Sequence make_remapped_sequence(const Suite& s, int task, int pairs, Rng& rng) {
    const Task& t = s.tasks[(size_t)task];
    std::vector<int> idx((size_t)t.pairs.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = (int)i;
    shuffle(idx, rng);
    const int m = std::min((int)idx.size(), 3 + (int)rng.below(6));
    std::vector<int> ys((size_t)m);
    for (int& y : ys) y = t.outputs[rng.below((uint32_t)t.outputs.size())];
    std::vector<bool> seen((size_t)m, false);
    std::vector<Pair> drawn;
    std::vector<bool> scored;
    for (int i = 0; i < pairs; ++i) {
        const int j = (int)rng.below((uint32_t)m);
        drawn.push_back({t.pairs[(size_t)idx[(size_t)j]].x, ys[(size_t)j]});
        scored.push_back(seen[(size_t)j]);  // an answer can be known only once its x has appeared
        seen[(size_t)j] = true;
    }
    Sequence seq = format_prompt(drawn);
    for (int i = 0; i < pairs; ++i)
        if (scored[(size_t)i]) score(seq, seq.pairs[(size_t)i], drawn[(size_t)i].y, i);
    return seq;
}

std::vector<int> slot_targets(const Sequence& seq) {
    std::vector<int> targets(seq.tokens.size(), -1);
    for (const Slot& sl : seq.slots) targets[(size_t)sl.pos] = sl.target;
    return targets;
}

void append_training_batch(const Suite& s, int batch, int pairs, Rng& rng, std::vector<int>& tokens,
                           std::vector<int>& targets) {
    for (int b = 0; b < batch; ++b) {
        const int task = (int)rng.below((uint32_t)s.tasks.size());
        const Sequence seq = make_training_sequence(s, task, pairs, rng);
        const std::vector<int> t = slot_targets(seq);
        tokens.insert(tokens.end(), seq.tokens.begin(), seq.tokens.end());
        targets.insert(targets.end(), t.begin(), t.end());
    }
}

SlotScore score_logits(const float* logits, int V, int target) {
    float mx = logits[0];
    for (int v = 1; v < V; ++v) mx = std::max(mx, logits[v]);
    double z = 0;
    int rank = 0;
    for (int v = 0; v < V; ++v) {
        z += std::exp((double)logits[v] - mx);
        if (logits[v] > logits[target] || (logits[v] == logits[target] && v < target)) ++rank;
    }
    SlotScore s;
    s.rank = rank;
    s.correct = rank == 0;
    s.prob = std::exp((double)logits[target] - mx) / z;
    return s;
}

Expected<std::vector<Accuracy>> evaluate(const LogitsFn& model, const std::vector<Sequence>& seqs, int V, int batch) {
    std::vector<Accuracy> by_shots((size_t)kMaxShots + 1);
    if (seqs.empty()) return by_shots;
    const int T = (int)seqs[0].tokens.size();
    std::vector<int> tokens;
    std::vector<float> logits;
    for (size_t start = 0; start < seqs.size(); start += (size_t)batch) {
        const size_t end = std::min(seqs.size(), start + (size_t)batch);
        tokens.clear();
        for (size_t i = start; i < end; ++i) {
            if ((int)seqs[i].tokens.size() != T)
                return make_error("evaluate: sequence " + std::to_string(i) + " has " +
                                  std::to_string(seqs[i].tokens.size()) + " tokens, the first has " + std::to_string(T));
            tokens.insert(tokens.end(), seqs[i].tokens.begin(), seqs[i].tokens.end());
        }
        const int B = (int)(end - start);
        if (Status st = model(tokens, B, T, logits); !st) return st.error();
        for (int b = 0; b < B; ++b)
            for (const Slot& sl : seqs[start + (size_t)b].slots) {
                if (sl.shots > kMaxShots) continue;
                by_shots[(size_t)sl.shots].add(
                    score_logits(logits.data() + ((size_t)b * T + (size_t)sl.pos) * (size_t)V, V, sl.target));
            }
    }
    return by_shots;
}

std::vector<std::string> task_ids() {
    std::vector<std::string> ids;
    for (const Task& t : suite().tasks) ids.push_back(t.id);
    return ids;
}

std::vector<std::string> unremapped_task_ids() {
    std::vector<std::string> ids;
    for (const Task& t : suite().tasks)
        if (!t.remapped) ids.push_back(t.id);
    return ids;
}

}  // namespace icl::tasks

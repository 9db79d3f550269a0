// The task suite's prompts, splits and evaluator (no model needed).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "icl/tasks.h"

using namespace icl;
using namespace icl::tasks;

namespace {
const Pair* find_pair(const Task& t, int x) {
    for (const Pair& p : t.pairs)
        if (p.x == x) return &p;
    return nullptr;
}
}  // namespace

TEST_CASE("tasks: the suite pairs each input domain with two tasks, and the facts are right") {
    const Suite& s = suite();
    CHECK(s.words[kArrow] == "→");
    CHECK(s.words[kSep] == ";");
    std::map<std::string, int> per_domain;
    for (const Task& t : s.tasks) per_domain[t.domain]++;
    for (const auto& domain : per_domain) CHECK_MESSAGE(domain.second == 2, domain.first);
    auto answer = [&](const char* task, const char* x) {
        const Task& t = s.tasks[(size_t)s.find_task(task)];
        const Pair* p = find_pair(t, s.find_word(x));
        return p ? s.words[(size_t)p->y] : std::string("?");
    };
    CHECK(answer("antonym", "hot") == "cold");
    CHECK(answer("antonym", "cold") == "hot");
    CHECK(answer("category", "hot") == "temperature");
    CHECK(answer("successor", "7") == "8");
    CHECK(answer("predecessor", "7") == "6");
    CHECK(answer("capital", "France") == "Paris");
    CHECK(answer("continent", "Korea") == "Asia");
    CHECK(answer("topic", "piano") == "music");
    for (const Task& t : s.tasks) {
        int held = 0;
        for (const Pair& p : t.pairs) held += p.held_out;
        CHECK(held == ((int)t.pairs.size() + 3) / 5);  // indices 1, 6, 11, ...
        CHECK((int)t.pairs.size() - held >= kMaxShots + 1);  // room for a distinct 16-shot curve
    }
}

TEST_CASE("tasks: a k-shot prompt is BOS (x → y ;)^k x →, demonstrations distinct and not the query") {
    const Suite& s = suite();
    Rng rng(4);
    for (int t = 0; t < (int)s.tasks.size(); ++t) {
        PromptOptions o;
        o.shots = 5;
        auto seq = make_prompt(s, t, o, rng);
        REQUIRE(seq.ok());
        const std::vector<int>& tk = seq.value().tokens;
        REQUIRE(tk.size() == 4 * 5 + 3);
        CHECK(tk[0] == kBos);
        std::set<int> xs;
        for (int i = 0; i < 5; ++i) {
            CHECK(tk[(size_t)(2 + 4 * i)] == kArrow);
            CHECK(tk[(size_t)(4 + 4 * i)] == kSep);
            xs.insert(tk[(size_t)(1 + 4 * i)]);
        }
        CHECK(xs.size() == 5);
        CHECK(xs.count(tk[21]) == 0);
        CHECK(tk.back() == kArrow);
        REQUIRE(seq.value().slots.size() == 1);
        CHECK(seq.value().slots[0].pos == (int)tk.size() - 1);
        const Task& task = s.tasks[(size_t)t];
        if (!task.remapped) CHECK(find_pair(task, tk[21])->y == seq.value().slots[0].target);
    }
    PromptOptions bad;
    bad.shots = kMaxShots + 1;
    CHECK(!make_prompt(s, 0, bad, rng).ok());
}

TEST_CASE("tasks: topic_remap keeps one permutation of the label space per prompt") {
    const Suite& s = suite();
    const int t = s.find_task("topic_remap");
    const Task& task = s.tasks[(size_t)t];
    Rng rng(8);
    int differs = 0;
    for (int i = 0; i < 20; ++i) {
        auto seq = make_curve_sequence(s, t, kMaxShots, rng);
        REQUIRE(seq.ok());
        std::map<int, int> label_of;  // true label -> shown label
        for (const Slot& sl : seq.value().slots) {
            const int truth = find_pair(task, seq.value().tokens[(size_t)sl.pos - 1])->y;
            auto [it, fresh] = label_of.emplace(truth, sl.target);
            CHECK(it->second == sl.target);  // consistent within the prompt
            differs += fresh && truth != sl.target;
        }
    }
    CHECK(differs > 20);  // and not the identity
}

TEST_CASE("tasks: training documents never score a held-out pair; curve slots count their shots") {
    const Suite& s = suite();
    Rng rng(1);
    int held_seen = 0;
    for (int t = 0; t < (int)s.tasks.size(); ++t) {
        const Task& task = s.tasks[(size_t)t];
        for (int i = 0; i < 30; ++i) {
            const Sequence seq = make_training_sequence(s, t, 16, rng);
            CHECK(seq.tokens.size() == 1 + 4 * 16);
            const std::vector<int> targets = slot_targets(seq);
            for (int j = 0; j < 16; ++j) {
                const int x = seq.tokens[(size_t)(1 + 4 * j)];
                const bool held = find_pair(task, x)->held_out;
                held_seen += held;
                CHECK((targets[(size_t)(2 + 4 * j)] != -1) == !held);
            }
        }
        auto curve = make_curve_sequence(s, t, kMaxShots, rng);
        REQUIRE(curve.ok());
        CHECK(curve.value().tokens.size() == 4 * kMaxShots + 3);
        for (int k = 0; k <= kMaxShots; ++k) CHECK(curve.value().slots[(size_t)k].shots == k);
    }
    CHECK(held_seen > 0);  // held-out pairs do appear in context
}

TEST_CASE("tasks: a remapped document keeps one mapping, scores only repeats, and differs from the task") {
    const Suite& s = suite();
    Rng rng(3);
    int scored = 0, unlike_task = 0;
    for (int t = 0; t < (int)s.tasks.size(); ++t) {
        const Task& task = s.tasks[(size_t)t];
        for (int i = 0; i < 30; ++i) {
            const Sequence seq = make_remapped_sequence(s, t, 17, rng);
            REQUIRE(seq.tokens.size() == 1 + 4 * 17);
            const std::vector<int> targets = slot_targets(seq);
            std::map<int, int> answer;  // x -> its y in this document
            for (int j = 0; j < 17; ++j) {
                const int x = seq.tokens[(size_t)(1 + 4 * j)], y = seq.tokens[(size_t)(3 + 4 * j)];
                REQUIRE(find_pair(task, x) != nullptr);  // inputs of the task
                CHECK(std::find(task.outputs.begin(), task.outputs.end(), y) != task.outputs.end());
                const bool repeat = answer.count(x) > 0;
                if (repeat) CHECK(answer[x] == y);  // one mapping per document
                answer[x] = y;
                CHECK((targets[(size_t)(2 + 4 * j)] == y) == repeat);  // scored only when x was seen
                CHECK((targets[(size_t)(2 + 4 * j)] == -1) == !repeat);
                scored += repeat;
                unlike_task += repeat && find_pair(task, x)->y != y;
            }
        }
    }
    CHECK(scored > 1000);
    CHECK(unlike_task > scored / 2);  // mostly not the task's own answer: only the prompt knows it
}

TEST_CASE("tasks: the lecture's pairs (hot → cold, big → small, fast → slow) are training pairs") {
    const Suite& s = suite();
    const Task& task = s.tasks[(size_t)s.find_task("antonym")];
    for (const char* w : {"hot", "big", "fast"}) {
        CAPTURE(w);
        const Pair* p = find_pair(task, s.find_word(w));
        REQUIRE(p != nullptr);
        CHECK(!p->held_out);
    }
}

TEST_CASE("tasks: Min et al. conditions change what they say and keep the query") {
    const Suite& s = suite();
    const int t = s.find_task("topic");
    const Task& task = s.tasks[(size_t)t];
    Rng rng(6);
    auto in_space = [&](int w) { return std::find(task.outputs.begin(), task.outputs.end(), w) != task.outputs.end(); };
    PromptOptions o;
    o.shots = 8;
    o.condition = DemoCondition::outside_labels;
    auto out = make_prompt(s, t, o, rng).value();
    for (int i = 0; i < 8; ++i) CHECK(!in_space(out.tokens[(size_t)(3 + 4 * i)]));
    o.condition = DemoCondition::ood_inputs;
    auto ood = make_prompt(s, t, o, rng).value();
    for (int i = 0; i < 8; ++i) {
        CHECK(find_pair(task, ood.tokens[(size_t)(1 + 4 * i)]) == nullptr);
        CHECK(in_space(ood.tokens[(size_t)(3 + 4 * i)]));
    }
    o.condition = DemoCondition::no_format;
    auto nf = make_prompt(s, t, o, rng).value();
    CHECK(nf.tokens.size() == 1 + 2 * 8 + 2);
    CHECK(std::count(nf.tokens.begin(), nf.tokens.end(), kArrow) == 1);
    o.condition = DemoCondition::gold;
    o.query_split = Split::held_out;
    o.query_in_context = true;
    auto ctx = make_prompt(s, t, o, rng).value();
    const int q = ctx.tokens[ctx.tokens.size() - 2];
    CHECK(find_pair(task, q)->held_out);
    bool shown = false;
    for (int i = 0; i < 8; ++i) shown |= ctx.tokens[(size_t)(1 + 4 * i)] == q;
    CHECK(shown);
}

TEST_CASE("tasks: score_logits ranks the target; evaluate groups slots by shots") {
    const float logits[4] = {0.0f, 2.0f, 1.0f, -1.0f};
    CHECK(score_logits(logits, 4, 1).correct);
    CHECK(score_logits(logits, 4, 2).rank == 1);
    const double z = std::exp(0.0) + std::exp(2.0) + std::exp(1.0) + std::exp(-1.0);
    CHECK(score_logits(logits, 4, 2).prob == doctest::Approx(std::exp(1.0) / z));
    // An oracle that puts the answer at every slot scores 1; one that always says the
    // arrow scores 0.
    const Suite& s = suite();
    Rng rng(2);
    std::vector<Sequence> seqs;
    for (int i = 0; i < 3; ++i) seqs.push_back(make_curve_sequence(s, 2, 4, rng).value());
    auto oracle = [&](const std::vector<int>& tokens, int B, int T, std::vector<float>& out) -> Status {
        out.assign((size_t)B * T * s.vocab(), 0.0f);
        for (int b = 0; b < B; ++b)
            for (const Slot& sl : seqs[(size_t)b].slots) out[((size_t)b * T + sl.pos) * s.vocab() + sl.target] = 1.0f;
        (void)tokens;
        return Ok{};
    };
    auto acc = evaluate(oracle, seqs, s.vocab()).value();
    for (int k = 0; k <= 4; ++k) CHECK(acc[(size_t)k].accuracy() == 1.0);
    CHECK(acc[5].n == 0);
}

TEST_CASE("tasks: format_prompt lays out BOS x → y ; … x → and names every pair's positions") {
    const Suite& s = suite();
    const int hot = s.find_word("hot"), cold = s.find_word("cold"), big = s.find_word("big"),
              small = s.find_word("small"), fast = s.find_word("fast");
    REQUIRE(std::min({hot, cold, big, small, fast}) > kSep);
    auto same_span = [](const Span& a, const Span& b) {
        return a.x == b.x && a.arrow == b.arrow && a.y == b.y && a.sep == b.sep;
    };
    // Todd et al.'s example prompt, written out by hand
    const Sequence p = format_prompt({{hot, cold}, {big, small}}, fast);
    CHECK(p.tokens == std::vector<int>{0, hot, 1, cold, 2, big, 1, small, 2, fast, 1});
    CHECK(s.text(p.tokens) == "<s> hot → cold ; big → small ; fast →");
    REQUIRE(p.pairs.size() == 2);
    CHECK(same_span(p.pairs[0], Span{1, 2, 3, 4}));
    CHECK(same_span(p.pairs[1], Span{5, 6, 7, 8}));
    CHECK(same_span(p.query, Span{9, 10, -1, -1}));
    CHECK(p.demos_begin() == 1);
    CHECK(p.demos_end() == 9);
    CHECK((int)p.tokens.size() == prompt_length(2, true));
    CHECK(p.slots.empty());
    // zero-shot: BOS x →
    const Sequence z = format_prompt({}, fast);
    CHECK(z.tokens == std::vector<int>{0, fast, 1});
    CHECK(same_span(z.query, Span{1, 2, -1, -1}));
    CHECK(z.demos_end() == 1);
    // a training document: pairs, no query
    const Sequence d = format_prompt({{hot, cold}});
    CHECK(d.tokens == std::vector<int>{0, hot, 1, cold, 2});
    CHECK(same_span(d.query, Span{}));
    CHECK(d.demos_end() == 5);
    CHECK((int)d.tokens.size() == prompt_length(1, false));
    // without format (Min et al.): x y x y, and the query keeps its arrow
    const Sequence n = format_prompt({{hot, cold}, {big, small}}, fast, false);
    CHECK(n.tokens == std::vector<int>{0, hot, cold, big, small, fast, 1});
    CHECK(same_span(n.pairs[1], Span{3, -1, 4, -1}));
    CHECK(same_span(n.query, Span{5, 6, -1, -1}));
    // the sequences the suite makes carry the same spans, and each slot names its x
    Rng rng(7);
    const Sequence c = make_curve_sequence(s, s.find_task("antonym"), 3, rng).value();
    REQUIRE(c.slots.size() == 4);
    for (int i = 0; i < 3; ++i) {
        CHECK(same_span(c.pairs[(size_t)i], Span{1 + 4 * i, 2 + 4 * i, 3 + 4 * i, 4 + 4 * i}));
        CHECK(c.slots[(size_t)i].pos == 2 + 4 * i);
        CHECK(c.slots[(size_t)i].x == 1 + 4 * i);
    }
    CHECK(c.slots[3].pos == 14);
    CHECK(c.slots[3].x == 13);
    CHECK(same_span(c.query, Span{13, 14, -1, -1}));
}

// The task suite: a word-level vocabulary and few-shot prompts in the GPT-3 format
//
//     BOS x → y ; x → y ; x →            (the model's next token should be the query's y)
//
// Every x and y is one token, so a prompt with k demonstrations is 4k + 3 tokens and
// prompts with the same k batch without padding.
//
// Task families share input domains on purpose, so that a query alone is ambiguous
// and the demonstrations carry the information (task inference, Xie et al. 2022):
//   adjectives: antonym (hot → cold)       vs category (hot → temperature)
//   numbers:    successor (7 → 8)          vs predecessor (7 → 6)
//   countries:  capital (France → Paris)   vs continent (France → Europe)
//   topic words: topic (piano → music)     vs topic_remap: the four topic labels
//                 permuted afresh in every prompt, so the mapping exists only in context.
//
// Splits: every fifth pair of a task, starting with the second, is held out (so the
// lecture's hot → cold, big → small, fast → slow are training pairs). In training a
// held-out pair may appear as a demonstration but its answer is never scored, so the
// model never learns to produce it from its weights; a held-out query can only be
// answered by reading the prompt (see PromptOptions::query_in_context).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/rng.h"

namespace icl::tasks {

// Special tokens (fixed ids).
constexpr int kBos = 0;    // start of a prompt ("<s>")
constexpr int kArrow = 1;  // "→"
constexpr int kSep = 2;    // ";"

struct Pair {
    int x = 0, y = 0;      // token ids
    bool held_out = false;
};

struct Task {
    std::string id;                  // "antonym", "successor", ...
    // (its name, shown in legends, is the catalogue's "task.<id>": lessons/<lang>/catalogue/common.json)
    std::string domain;              // "adjectives", "numbers", "countries", "topics"
    std::vector<Pair> pairs;
    std::vector<int> outputs;        // the task's label space: distinct y ids
    bool remapped = false;           // topic_remap: outputs permuted per prompt
    // Chance accuracy of a guesser that knows the label space: 1 / |outputs|.
    double chance() const { return 1.0 / (double)outputs.size(); }
};

struct Suite {
    std::vector<std::string> words;  // id -> word
    std::vector<Task> tasks;
    int vocab() const { return (int)words.size(); }
    int find_word(const std::string& w) const;   // -1 if absent
    int find_task(const std::string& id) const;  // -1 if absent
    // The words of tokens[from, to) joined by spaces (to = -1: to the end).
    std::string text(const std::vector<int>& tokens, int from = 0, int to = -1) const;
    // Input words of the other domains (Min et al.'s "inputs from another distribution")
    // and their words usable as labels outside a task's label space.
    std::vector<int> words_of_domain(const std::string& domain, bool inputs) const;
};

// The one suite (built once; deterministic).
const Suite& suite();
// The ids of suite()'s tasks, in order (a demo's "task" choices).
std::vector<std::string> task_ids();
// The same without the remapped tasks (topic_remap: outputs permuted per prompt):
// the tasks a function vector is extracted from.
std::vector<std::string> unremapped_task_ids();

// ---- prompts --------------------------------------------------------------------

// A token sequence with the positions whose next-token prediction is scored.
struct Slot {
    int pos = 0;      // index of the "→" (or, without format, the x) token
    int target = 0;   // the token that should follow
    int shots = 0;    // demonstrations before this query
    int x = 0;        // index of the input x this slot answers
};
// Where one pair's tokens sit in a sequence; -1 where a token is absent (a pair without
// format has no → and ;, the query no y and ;).
struct Span {
    int x = -1, arrow = -1, y = -1, sep = -1;
};
struct Sequence {
    std::vector<int> tokens;
    std::vector<Slot> slots;
    std::vector<Span> pairs;  // the demonstrations (a training document's pairs), in order
    Span query;               // the query "x →" (x = -1: none, as in a training document)
    // The demonstrations' positions [demos_begin, demos_end): from after BOS to the query
    // (or the end).
    int demos_begin() const { return 1; }
    int demos_end() const { return query.x >= 0 ? query.x : (int)tokens.size(); }
};

// The one writer of the prompt format: BOS, each pair as "x → y ;" (or "x y" without
// format), then, when query_x >= 0, the query "x →" (always with its arrow). Returns the
// tokens with every pair's span and the query's; no slot is scored (the callers below
// add theirs). Length prompt_length(pairs, query) with format.
Sequence format_prompt(const std::vector<Pair>& pairs, int query_x = -1, bool format = true);
constexpr int prompt_length(int pairs, bool query) { return 1 + 4 * pairs + (query ? 2 : 0); }

enum class Split { train, held_out };

// How the demonstrations are made (Min et al. 2022's conditions, plus the default).
enum class DemoCondition {
    gold,            // inputs and labels of the task
    random_labels,   // task inputs, labels uniformly from the task's label space
    ood_inputs,      // inputs from another domain, labels random from the label space
    outside_labels,  // task inputs, labels random words outside the label space
    no_format,       // "x y x y": neither → nor ;  (the query keeps "x →")
};
constexpr int kDemoConditions = 5;
const char* condition_id(DemoCondition c);

struct PromptOptions {
    int shots = 4;                       // k demonstrations before the query
    Split query_split = Split::train;    // the query pair's split
    bool query_in_context = false;       // one demonstration (random place) is the query pair
    DemoCondition condition = DemoCondition::gold;
};

// k demonstrations from the task's training pairs (distinct inputs, none equal to the
// query unless query_in_context), then the query; one slot at the final "→".
// Errors: shots outside [0, kMaxShots], a split too small for distinct demonstrations.
constexpr int kMaxShots = 16;
Expected<Sequence> make_prompt(const Suite& s, int task, const PromptOptions& o, Rng& rng);

// The shots curve in one sequence: n + 1 training pairs with distinct inputs; slot i
// (i = 0..n) is the query x_i after i demonstrations. One forward pass gives the
// 0..n-shot predictions (each with its own query). For topic_remap one permutation
// holds for the whole sequence.
Expected<Sequence> make_curve_sequence(const Suite& s, int task, int n, Rng& rng);

// A training document: `pairs` pairs of one task, drawn with replacement from all its
// pairs (repeats teach copying from context); every answer is scored except those of
// held-out pairs. Length 1 + 4 * pairs.
Sequence make_training_sequence(const Suite& s, int task, int pairs, Rng& rng);

// A remapped training document: 3..8 inputs of the task, each given an answer drawn
// from the task's label space afresh for every document (hot → loud, say), so the
// mapping exists only in this prompt; `pairs` pairs drawn from them with replacement.
// An answer is scored only when its x has appeared before (the first time it cannot be
// known). The tasks alone can be solved from memory; these documents are what teaches
// the model to read a mapping from its prompt and let it override what it remembers
// (copying, as induction heads do, Olsson et al. 2022). Length 1 + 4 * pairs.
Sequence make_remapped_sequence(const Suite& s, int task, int pairs, Rng& rng);

// Next-token targets (length T, -1 = not scored) for a sequence's slots.
std::vector<int> slot_targets(const Sequence& seq);

// A training batch: `batch` documents, each of a task drawn uniformly from the suite and
// `pairs` pairs (make_training_sequence), appended to tokens and their slot targets to
// targets; each is prompt_length(pairs, false) long.
void append_training_batch(const Suite& s, int batch, int pairs, Rng& rng, std::vector<int>& tokens,
                           std::vector<int>& targets);

// ---- evaluation against any next-token model ---------------------------------------

// The model interface: logits (B*T*V, row-major) for a (B,T) batch of token ids.
using LogitsFn = std::function<Status(const std::vector<int>& tokens, int B, int T, std::vector<float>& logits)>;

struct SlotScore {
    bool correct = false;   // argmax over the whole vocabulary == target
    double prob = 0;        // softmax probability of the target
    int rank = 0;           // 0 = the target has the largest logit
};
// logits (V) -> the target's score
SlotScore score_logits(const float* logits, int V, int target);

struct Accuracy {
    double correct = 0, prob = 0, rank = 0;  // sums
    int n = 0;
    void add(const SlotScore& s) { correct += s.correct; prob += s.prob; rank += s.rank; ++n; }
    double accuracy() const { return n ? correct / n : 0; }
    double mean_prob() const { return n ? prob / n : 0; }
    double mean_rank() const { return n ? rank / n : 0; }
};

// Scores every slot of the sequences (all of the same length) in batches of at most
// `batch`. by_shots[k] gathers slots with k demonstrations (size kMaxShots + 1).
Expected<std::vector<Accuracy>> evaluate(const LogitsFn& model, const std::vector<Sequence>& seqs, int V,
                                         int batch = 16);

// In-place Fisher–Yates shuffle from rng.
void shuffle(std::vector<int>& v, Rng& rng);

}  // namespace icl::tasks

// Checkpoint recipes: how a shipped model is trained, deterministically, and the
// evaluation figures recorded for it. A recipe is a JSON file in lessons/checkpoints/
// (<name>.json beside <name>.icl):
//
//   {"name": "tasks", "data": "tasks" | "hmm" | "regression",
//    "storage": "f16",          (how <name>.icl stores the weights: "f32" (default) or
//                                "f16", half the bytes; see icl/checkpoint.h)
//    "model": {"width": 64, "layers": 4, "heads": 4, "mlp_ratio": 4,
//              "attention": "dense" | "alternating", "window": 8,
//              "attention_only": false,   (true: no MLP, no LN2)
//              "init_std": 0.02},         (std of the weight matrices at initialisation;
//                                 GPT-2's 0.02 by default)
//    "train": {"steps": 1500, "batch": 32, "lr": 0.003, "warmup": 100,
//              "weight_decay": 0.01, "clip": 1.0, "seed": 1,
//              "pairs": 17,     (tasks: pairs per document; 17 trains every position
//                                 a 16-shot prompt uses)
//              "remap_fraction": 0.25},  (tasks: share of documents whose mapping
//                                 exists only in context, tasks::make_remapped_sequence)
//    "hmm":   {"concepts": 5, "states": 4, "symbols": 10, "sharpness": 2.0,
//              "segment_length": 6, "segments": 8, "seed": 7},   (data "hmm" only)
//    "regression": {"dim": 4, "pairs": 12, "noise_var": 0.0625},   (data "regression" only:
//                                 fresh tasks w ~ N(0, I) in Garg's vector encoding,
//                                 icl/task_pool.h; the model reads vectors of dim + 1 and
//                                 predicts each y_k at x_k's position)
//    "eval":  {"seed": 100, "sequences": 32, "tolerance": 0.03},
//    "figures": {"antonym.k0": 0.41, ...},          (written by `icl train`)
//    "train_seconds": 95.2}                          (written by `icl train`)
//
// The vocabulary and the context follow from the data (the task suite; the HMM
// mixture; 2 · pairs vector positions for regression). Training draws every document
// from one Rng seeded with train.seed, so the
// same recipe and build give the same bits.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/checkpoint.h"
#include "icl/expected.h"
#include "icl/file_read.h"
#include "icl/gpt.h"
#include "icl/hmm.h"
#include "icl/optim.h"
#include "icl/rng.h"
#include "icl/task_pool.h"
#include "icl/tasks.h"

namespace icl::recipe {

struct HmmSpec {
    int concepts = 5, states = 4, symbols = 10, segment_length = 6, segments = 8;
    double sharpness = 2.0;
    uint64_t seed = 7;
    hmm::Mixture mixture() const;
};

struct RegressionSpec {
    int dim = 4, pairs = 12;
    double noise_var = 0.0625;
    task_pool::Knobs knobs() const { return {dim, pairs, noise_var, 1}; }
};

struct Recipe {
    std::string name;
    std::string data = "tasks";          // "tasks" | "hmm" | "regression"
    checkpoint::Encoding storage = checkpoint::Encoding::f32;  // how the checkpoint stores weights
    gpt::Config model;                   // vocab and context filled in from the data
    int steps = 1000, batch = 32, warmup = 100, pairs = tasks::kMaxShots + 1;
    double remap_fraction = 0;
    double init_std = 0.02;              // the weight matrices' std at initialisation           // tasks: share of documents from make_remapped_sequence
    float lr = 3e-3f, weight_decay = 0.01f, clip = 1.0f;
    uint64_t seed = 1;
    HmmSpec hmm;
    RegressionSpec regression;
    uint64_t eval_seed = 100;
    int eval_sequences = 32;
    double tolerance = 0.03;             // |recorded - reproduced| allowed per figure
    std::map<std::string, double> figures;
    double train_seconds = 0;
    // the checkpoint's asset name: "checkpoints/<name>.icl"
    std::string checkpoint() const { return "checkpoints/" + name + ".icl"; }
};

// Bounds of a recipe text, checked before it is parsed: its size (the limit it is read
// with, icl/file_read.h) and how deeply its arrays and objects nest (a shipped recipe
// nests 2 deep; a teacher's note may add a few levels).
constexpr size_t kMaxBytes = file_limits::kRecipe;
constexpr int kMaxDepth = 32;

// Parses a recipe; errors name the file and the field.
Expected<Recipe> parse(const std::string& json_text, const std::string& file);
nlohmann::json to_json(const Recipe& r);

// Context length the data needs: tasks 1 + 4·(kMaxShots + 1); hmm 1 + segments·(L + 1);
// regression 2 · pairs.
int data_context(const Recipe& r);

// The model training starts from: make_model with the recipe's seed, its weight matrices
// scaled from GPT-2's std 0.02 to init_std (an untrained baseline is exactly this).
Expected<gpt::Model> initial_model(const Recipe& r);

// Trains a fresh model step by step (warmup, then cosine decay to 10% of lr).
class Training {
public:
    static Expected<std::unique_ptr<Training>> make(const Recipe& r);
    // One optimizer step on a fresh batch; returns its loss, or an error naming the step.
    Expected<float> step();
    int steps_done() const { return done_; }
    gpt::Model& model() { return model_; }

private:
    Training(const Recipe& r, gpt::Model m, Optimizer opt);
    void batch(std::vector<int>& tokens, std::vector<int>& targets, int& T);
    Status forward_batch();  // a fresh batch of the recipe's data through the model, with its loss
    Recipe recipe_;
    gpt::Model model_;
    Optimizer optimizer_;
    hmm::Mixture mixture_;
    Rng rng_;
    gpt::Activations acts_;
    std::vector<float> grads_, before_;
    int done_ = 0;
};

// The GPT as the task suite's model interface (full-sequence forward).
tasks::LogitsFn logits_fn(const gpt::Model& model);

// The recorded figures, recomputed for `model` from the recipe's eval seed.
//  tasks: "<task>.k0|k1|k4|k16" (accuracy on the shots curve of training pairs),
//         "<task>.heldout_k8" (held-out query, 8 demonstrations without it),
//         "<task>.heldout_ctx_k8" (held-out query whose pair is one of the 8),
//         "mean.k0", "mean.k16".
//  regression: "mse.k<k>" (the model's mean squared error on y_k, predicted from k pairs
//         and x_k) and "ols.k<k>" (least squares on the same k pairs; the minimum-norm fit
//         while k < dim) for k = 0, 1, dim, pairs − 1.
//  hmm:   "acc.k<k>", "bayes_acc.k<k>", "kl.k<k>" for k = 0, 1, 2, 4 and the most
//         the context holds (segments − 1), and "unseen_acc.k<that>" (a concept
//         outside the mixture).
Expected<std::map<std::string, double>> evaluate(const Recipe& r, const gpt::Model& model);

// The model against the exact Bayesian answer on n prompts with k demonstrations drawn
// from `source` (a mixture concept, or one outside it), each query `query_symbols` long
// (default: all of a segment but its last symbol). Means over the prompts.
struct HmmScores {
    double model_acc = 0;          // model's argmax over the symbols == the sampled answer
    double bayes_acc = 0;          // Bayes-optimal argmax == the sampled answer
    double agreement = 0;          // the two argmaxes agree
    double kl = 0;                 // KL(Bayes-optimal || model) over the symbols, nats
    double posterior_entropy = 0;  // of p(concept | prompt), nats
    std::string error;             // non-empty: the forward pass failed
};
// acts is the forward's workspace, kept by the caller across calls: its memory is reused
// (a fresh one per call made bayes_posterior spend half its native time in page faults).
HmmScores score_hmm(const gpt::Model& model, gpt::Activations& acts, const hmm::Mixture& mixture,
                    const hmm::Hmm& source, int k, int n, Rng& rng, int query_symbols = -1);

// Regression batches: `count` fresh sequences of the spec drawn from `seed`, as the model's
// input vectors (count, 2·pairs, dim + 1), targets (count, 2·pairs, 1: y_k at x_k's
// position, 0 elsewhere) and the MSE mask (1 at the x positions). The sequences are
// returned too (for exact baselines and probes).
std::vector<task_pool::Sequence> regression_batch(const RegressionSpec& spec, int count, uint64_t seed,
                                                  std::vector<float>& vectors, std::vector<float>& targets,
                                                  std::vector<uint8_t>& mask);
// The model a regression recipe trains: vectors in, one regression output, no tokens.
gpt::Config regression_config(const RegressionSpec& spec, gpt::Config model);
Expected<std::map<std::string, double>> evaluate_regression(const Recipe& r, const gpt::Model& model);

// The concept kept out of training for the "unseen concept" contrast.
hmm::Hmm unseen_concept(const HmmSpec& spec);

// Loads a recipe's checkpoint through the asset store and checks that it fits the
// recipe (vocab, context, width, layers) and is stored as the recipe says (so the
// figures checked on it are the stored form's). Errors name the asset and say how to
// remake it.
Expected<gpt::Model> load_checkpoint(const Recipe& r);

// A shipped recipe read through the asset store ("checkpoints/<name>.json"), so the
// web worker can hand it over like the checkpoint. Errors name the file.
Expected<Recipe> load_shipped(const std::string& name);

// load_shipped then load_checkpoint: the trained model of a shipped recipe.
Expected<gpt::Model> load_shipped_model(const std::string& name);

}  // namespace icl::recipe

#include "icl/recipe.h"

#include <algorithm>
#include <cmath>

#include "icl/assets.h"
#include "icl/checkpoint.h"
#include "icl/file_read.h"
#include "icl/json_depth.h"
#include "icl/recipe_file.h"

namespace icl::recipe {

namespace {

using nlohmann::json;

// Reads an optional numeric field of `obj` into `out`, checking its range.
template <class T>
Status field(const json& obj, const std::string& section, const char* key, T& out, double lo, double hi,
             const std::string& file) {
    if (!obj.contains(key)) return Ok{};
    const json& v = obj[key];
    const std::string where = file + ": " + section + "." + key;
    if (!v.is_number()) return make_error(where + " must be a number");
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi))
        return make_error(where + " = " + v.dump() + " is outside [" + json(lo).dump() + ", " + json(hi).dump() + "]");
    if (std::is_integral<T>::value && d != std::floor(d)) return make_error(where + " must be an integer");
    out = static_cast<T>(d);
    return Ok{};
}

Status object(const json& j, const char* key, const std::string& file) {
    if (j.contains(key) && !j[key].is_object()) return make_error(file + ": " + key + " must be an object");
    return Ok{};
}

}  // namespace

hmm::Mixture HmmSpec::mixture() const {
    return hmm::make_mixture(concepts, states, symbols, sharpness, segment_length, seed);
}

hmm::Hmm unseen_concept(const HmmSpec& spec) {
    // Drawn from the same family as the mixture's concepts, from a stream the mixture never uses.
    Rng rng(spec.seed, 9001u);
    return hmm::random_hmm(spec.states, spec.symbols, spec.sharpness, rng);
}

int data_context(const Recipe& r) {
    if (r.data == "hmm") return 1 + r.hmm.segments * (r.hmm.segment_length + 1);
    if (r.data == "regression") return 2 * r.regression.pairs;
    return tasks::prompt_length(tasks::kMaxShots + 1, false);  // a 16-shot prompt plus its answer
}

Expected<Recipe> parse(const std::string& text, const std::string& file) {
    if (text.size() > kMaxBytes)
        return make_error(file + ": it is " + std::to_string(text.size()) + " bytes, more than the " +
                          std::to_string(kMaxBytes) + " a recipe may have");
    if (const int depth = json_depth(text); depth > kMaxDepth)
        return make_error(file + ": it is nested " + std::to_string(depth) + " deep, more than the " +
                          std::to_string(kMaxDepth) + " a recipe may have");
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return make_error(file + ": not a JSON object");
    Recipe r;
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
        return make_error(file + ": name must be a non-empty string");
    r.name = j["name"].get<std::string>();
    for (char c : r.name)
        if (!(std::isalnum((unsigned char)c) || c == '-' || c == '_'))
            return make_error(file + ": name '" + r.name + "' may hold only letters, digits, '-' and '_'");
    if (j.contains("data")) {
        if (!j["data"].is_string()) return make_error(file + ": data must be \"tasks\", \"hmm\" or \"regression\"");
        r.data = j["data"].get<std::string>();
        if (r.data != "tasks" && r.data != "hmm" && r.data != "regression")
            return make_error(file + ": data = '" + r.data + "' is not \"tasks\", \"hmm\" or \"regression\"");
    }
    if (j.contains("storage")) {
        auto e = checkpoint::parse_encoding(j["storage"].is_string() ? j["storage"].get<std::string>() : "");
        if (!e) return make_error(file + ": storage: " + e.error().message);
        r.storage = e.value();
    }
    for (const char* k : {"model", "train", "hmm", "regression", "eval", "figures"})
        if (Status s = object(j, k, file); !s) return s.error();
    const json none = json::object();
    const json& m = j.contains("model") ? j["model"] : none;
    const json& t = j.contains("train") ? j["train"] : none;
    const json& h = j.contains("hmm") ? j["hmm"] : none;
    const json& e = j.contains("eval") ? j["eval"] : none;
    const json& g = j.contains("regression") ? j["regression"] : none;
    gpt::Config& c = r.model;
    int window = 8;
    for (Status s : {field(m, "model", "width", c.width, 8, 256, file), field(m, "model", "layers", c.layers, 1, 8, file),
                     field(m, "model", "heads", c.heads, 1, 16, file), field(m, "model", "mlp_ratio", c.mlp_ratio, 1, 8, file),
                     field(m, "model", "window", window, 1, 1024, file),
                     field(m, "model", "init_std", r.init_std, 1e-4, 1, file),
                     field(t, "train", "steps", r.steps, 1, 100000, file), field(t, "train", "batch", r.batch, 1, 256, file),
                     field(t, "train", "warmup", r.warmup, 0, 100000, file),
                     field(t, "train", "pairs", r.pairs, 1, tasks::kMaxShots + 1, file),
                     field(t, "train", "remap_fraction", r.remap_fraction, 0, 1, file),
                     field(t, "train", "lr", r.lr, 1e-6, 1.0, file), field(t, "train", "weight_decay", r.weight_decay, 0, 1, file),
                     field(t, "train", "clip", r.clip, 0, 1000, file), field(t, "train", "seed", r.seed, 0, 9e15, file),
                     field(h, "hmm", "concepts", r.hmm.concepts, 1, 32, file), field(h, "hmm", "states", r.hmm.states, 1, 16, file),
                     field(h, "hmm", "symbols", r.hmm.symbols, 2, 64, file),
                     field(h, "hmm", "segment_length", r.hmm.segment_length, 2, 32, file),
                     field(h, "hmm", "segments", r.hmm.segments, 1, 32, file),
                     field(h, "hmm", "sharpness", r.hmm.sharpness, 0, 10, file), field(h, "hmm", "seed", r.hmm.seed, 0, 9e15, file),
                     field(g, "regression", "dim", r.regression.dim, 1, 32, file),
                     field(g, "regression", "pairs", r.regression.pairs, 2, 64, file),
                     field(g, "regression", "noise_var", r.regression.noise_var, 0, 10, file),
                     field(e, "eval", "seed", r.eval_seed, 0, 9e15, file), field(e, "eval", "sequences", r.eval_sequences, 1, 4096, file),
                     field(e, "eval", "tolerance", r.tolerance, 0, 1, file)})
        if (!s) return s.error();
    if (m.contains("attention")) {
        const std::string a = m["attention"].is_string() ? m["attention"].get<std::string>() : "";
        if (a == "alternating") c.attention = gpt::alternating_dense_banded(c.layers, window);
        else if (a != "dense") return make_error(file + ": model.attention must be \"dense\" or \"alternating\"");
    }
    if (m.contains("attention_only")) {
        if (!m["attention_only"].is_boolean()) return make_error(file + ": model.attention_only must be true or false");
        c.attention_only = m["attention_only"].get<bool>();
    }
    c.vocab = r.data == "hmm" ? r.hmm.mixture().vocab() : tasks::suite().vocab();
    c.context = data_context(r);
    if (r.data == "regression") c = regression_config(r.regression, c);
    if (Status s = gpt::validate(c); !s) return make_error(file + ": " + s.error().message);
    if (j.contains("figures"))
        for (auto it = j["figures"].begin(); it != j["figures"].end(); ++it) {
            if (!it.value().is_number()) return make_error(file + ": figures." + it.key() + " must be a number");
            r.figures[it.key()] = it.value().get<double>();
        }
    if (j.contains("train_seconds") && j["train_seconds"].is_number()) r.train_seconds = j["train_seconds"].get<double>();
    return r;
}

json to_json(const Recipe& r) {
    json j;
    j["name"] = r.name;
    j["data"] = r.data;
    j["storage"] = checkpoint::encoding_name(r.storage);
    const gpt::Config& c = r.model;
    j["model"] = {{"width", c.width}, {"layers", c.layers}, {"heads", c.heads}, {"mlp_ratio", c.mlp_ratio},
                  {"attention", c.attention.empty() ? "dense" : "alternating"}};
    if (!c.attention.empty()) j["model"]["window"] = c.attention.size() > 1 ? c.attention[1].window : 8;
    if (c.attention_only) j["model"]["attention_only"] = true;
    if (r.init_std != 0.02) j["model"]["init_std"] = r.init_std;
    j["train"] = {{"steps", r.steps}, {"batch", r.batch}, {"lr", r.lr}, {"warmup", r.warmup},
                  {"weight_decay", r.weight_decay}, {"clip", r.clip}, {"seed", r.seed}};
    if (r.data == "tasks") {
        j["train"]["pairs"] = r.pairs;
        j["train"]["remap_fraction"] = r.remap_fraction;
    }
    if (r.data == "hmm")
        j["hmm"] = {{"concepts", r.hmm.concepts}, {"states", r.hmm.states}, {"symbols", r.hmm.symbols},
                    {"sharpness", r.hmm.sharpness}, {"segment_length", r.hmm.segment_length},
                    {"segments", r.hmm.segments}, {"seed", r.hmm.seed}};
    j["eval"] = {{"seed", r.eval_seed}, {"sequences", r.eval_sequences}, {"tolerance", r.tolerance}};
    json f = json::object();
    for (const auto& [k, v] : r.figures) f[k] = std::round(v * 1e4) / 1e4;
    j["figures"] = f;
    if (r.train_seconds > 0) j["train_seconds"] = std::round(r.train_seconds * 10) / 10;
    return j;
}

namespace {
void merge_into(json& into, const json& from) {
    for (auto it = from.begin(); it != from.end(); ++it) {
        json& slot = into[it.key()];
        if (slot.is_object() && it.value().is_object() && it.key() != "figures") merge_into(slot, it.value());
        else slot = it.value();
    }
}
}  // namespace

json to_json_over(const Recipe& r, const json& original) {
    json j = original.is_object() ? original : json::object();
    merge_into(j, to_json(r));
    return j;
}

Expected<std::string> rewrite(const Recipe& r, const std::string& original_text, const std::string& file) {
    // The original was read by parse(), so it is within the bounds and parses.
    if (json_depth(original_text) > kMaxDepth) return make_error(file + ": nested too deep to rewrite");
    const json original = json::parse(original_text, nullptr, /*allow_exceptions=*/false);
    const json j = to_json_over(r, original.is_discarded() ? json::object() : original);
    // Indented for a reader; compact when the indentation would push it past the bound
    // (each level indents every line below it), and refused when even that does not fit.
    std::string out = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    if (out.size() > kMaxBytes) out = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    if (out.size() > kMaxBytes)
        return make_error(file + ": the recipe with its new figures would be " + std::to_string(out.size()) +
                          " bytes, more than the " + std::to_string(kMaxBytes) +
                          " a recipe may have; shorten the fields icl does not know");
    if (auto again = parse(out, file); !again) return make_error(file + ": the rewritten recipe would not read back (" +
                                                                  again.error().message + ")");
    return out;
}

// ---- training ----------------------------------------------------------------------

Training::Training(const Recipe& r, gpt::Model m, Optimizer opt)
    : recipe_(r), model_(std::move(m)), optimizer_(std::move(opt)), rng_(r.seed, 1u),
      grads_(model_.params.size(), 0.0f) {
    if (r.data == "hmm") mixture_ = r.hmm.mixture();
}

Expected<gpt::Model> initial_model(const Recipe& r) {
    Expected<gpt::Model> m = gpt::make_model(r.model, r.seed);
    if (!m || r.init_std == 0.02) return m;
    // GPT-2's init (std 0.02) can leave a regression model on the plateau where it predicts
    // y = 0 for thousands of steps; weight matrices drawn larger leave it sooner.
    const float scale = (float)(r.init_std / 0.02);
    for (const gpt::TensorInfo& t : m.value().layout.tensors)
        if (t.shape.size() == 2)
            for (size_t q = 0; q < t.size; ++q) m.value().params[t.offset + q] *= scale;
    return m;
}

Expected<std::unique_ptr<Training>> Training::make(const Recipe& r) {
    Expected<gpt::Model> m = initial_model(r);
    if (!m) return m.error();
    OptimizerConfig oc;
    oc.kind = OptimizerConfig::adamw;
    oc.lr = r.lr;
    oc.beta2 = 0.99f;
    oc.weight_decay = r.weight_decay;
    oc.clip_norm = r.clip;
    if (Status s = validate(oc); !s) return s.error();
    std::vector<ParamSlot> slots;
    for (const gpt::TensorInfo& t : m.value().layout.tensors) slots.push_back({t.name, t.offset, t.size, t.decay, true});
    const size_t total = m.value().params.size();
    return std::unique_ptr<Training>(new Training(r, std::move(m.value()), Optimizer(oc, std::move(slots), total)));
}

void Training::batch(std::vector<int>& tokens, std::vector<int>& targets, int& T) {
    tokens.clear();
    targets.clear();
    std::vector<int> tk, tg;
    for (int b = 0; b < recipe_.batch; ++b) {
        if (recipe_.data == "hmm") {
            hmm::make_document(mixture_, recipe_.hmm.segments, rng_, tk, tg);
        } else {
            const tasks::Suite& s = tasks::suite();
            const int task = (int)rng_.below((uint32_t)s.tasks.size());
            tasks::Sequence seq = recipe_.remap_fraction > 0 && rng_.uniform() < recipe_.remap_fraction
                                      ? tasks::make_remapped_sequence(s, task, recipe_.pairs, rng_)
                                      : tasks::make_training_sequence(s, task, recipe_.pairs, rng_);
            tg = tasks::slot_targets(seq);
            tk = std::move(seq.tokens);
        }
        T = (int)tk.size();
        tokens.insert(tokens.end(), tk.begin(), tk.end());
        targets.insert(targets.end(), tg.begin(), tg.end());
    }
}

Status Training::forward_batch() {
    if (recipe_.data == "regression") {
        // one seed a step, drawn from the training stream
        const uint64_t seed = ((uint64_t)rng_.next_u32() << 32) | rng_.next_u32();
        std::vector<float> vectors, targets;
        std::vector<uint8_t> mask;
        regression_batch(recipe_.regression, recipe_.batch, seed, vectors, targets, mask);
        gpt::Batch b;
        b.B = recipe_.batch;
        b.T = 2 * recipe_.regression.pairs;
        b.vectors = vectors.data();
        b.target_vectors = targets.data();
        b.target_mask = mask.data();
        return gpt::forward(model_, acts_, b);
    }
    std::vector<int> tokens, targets;
    int T = 0;
    batch(tokens, targets, T);
    return gpt::forward(model_, acts_, tokens.data(), targets.data(), recipe_.batch, T);
}

Expected<float> Training::step() {
    const int n = done_ + 1;
    Status f = forward_batch();
    if (!f) return make_error("training step " + std::to_string(n) + ": " + f.error().message);
    std::fill(grads_.begin(), grads_.end(), 0.0f);
    if (Status b = gpt::backward(model_, acts_, grads_.data(), gpt::GradsOnEntry::zero); !b) return b.error();
    // Learning-rate schedule: AdamW's update (decay included) is proportional to lr, so
    // scaling this step's update by s is the step with lr·s. Warmup, then cosine to 0.1.
    double s = 1.0;
    if (n <= recipe_.warmup) s = (double)n / (recipe_.warmup + 1);
    else s = 0.1 + 0.45 * (1 + std::cos(3.14159265358979323846 * (n - recipe_.warmup) / std::max(1, recipe_.steps - recipe_.warmup)));
    before_ = model_.params;
    Expected<float> norm = optimizer_.step(model_.params.data(), grads_.data());
    if (!norm) return make_error("training diverged at step " + std::to_string(n) + ": " + norm.error().message);
    for (size_t i = 0; i < before_.size(); ++i)
        model_.params[i] = before_[i] + (float)s * (model_.params[i] - before_[i]);
    ++done_;
    return acts_.loss;
}

tasks::LogitsFn logits_fn(const gpt::Model& model) {
    auto acts = std::make_shared<gpt::Activations>();
    return [&model, acts](const std::vector<int>& tokens, int B, int T, std::vector<float>& logits) -> Status {
        if (Status s = gpt::forward(model, *acts, tokens.data(), nullptr, B, T); !s) return s;
        const float* l = acts->logits_ptr();
        logits.assign(l, l + (size_t)B * T * model.config.vocab);
        return Ok{};
    };
}

// ---- evaluation ----------------------------------------------------------------------

namespace {

Expected<std::map<std::string, double>> evaluate_tasks(const Recipe& r, const gpt::Model& model) {
    const tasks::Suite& s = tasks::suite();
    const tasks::LogitsFn fn = logits_fn(model);
    std::map<std::string, double> out;
    double mean0 = 0, mean16 = 0;
    for (int t = 0; t < (int)s.tasks.size(); ++t) {
        const std::string& id = s.tasks[(size_t)t].id;
        Rng rng(r.eval_seed, (uint64_t)t);
        std::vector<tasks::Sequence> curve, held, held_ctx;
        for (int i = 0; i < r.eval_sequences; ++i) {
            auto seq = tasks::make_curve_sequence(s, t, tasks::kMaxShots, rng);
            if (!seq) return seq.error();
            curve.push_back(std::move(seq.value()));
        }
        for (int i = 0; i < r.eval_sequences; ++i) {
            tasks::PromptOptions o;
            o.shots = 8;
            o.query_split = tasks::Split::held_out;
            auto a = tasks::make_prompt(s, t, o, rng);
            o.query_in_context = true;
            auto b = tasks::make_prompt(s, t, o, rng);
            if (!a) return a.error();
            if (!b) return b.error();
            held.push_back(std::move(a.value()));
            held_ctx.push_back(std::move(b.value()));
        }
        auto c = tasks::evaluate(fn, curve, s.vocab());
        auto h = tasks::evaluate(fn, held, s.vocab());
        auto hc = tasks::evaluate(fn, held_ctx, s.vocab());
        if (!c) return c.error();
        if (!h) return h.error();
        if (!hc) return hc.error();
        for (int k : {0, 1, 4, 16}) out[id + ".k" + std::to_string(k)] = c.value()[(size_t)k].accuracy();
        out[id + ".heldout_k8"] = h.value()[8].accuracy();
        out[id + ".heldout_ctx_k8"] = hc.value()[8].accuracy();
        mean0 += c.value()[0].accuracy() / (double)s.tasks.size();
        mean16 += c.value()[16].accuracy() / (double)s.tasks.size();
    }
    out["mean.k0"] = mean0;
    out["mean.k16"] = mean16;
    return out;
}

}  // namespace

HmmScores score_hmm(const gpt::Model& model, gpt::Activations& acts, const hmm::Mixture& mixture,
                    const hmm::Hmm& source, int k, int n, Rng& rng, int query_symbols) {
    HmmScores sc;
    std::vector<int> tokens;
    const int O = mixture.symbols(), V = model.config.vocab;
    std::vector<hmm::Prompt> prompts;
    for (int i = 0; i < n; ++i) {
        prompts.push_back(hmm::make_prompt(source, k, mixture.segment_length, rng, query_symbols));
        const std::vector<int> t = prompts.back().tokens();
        tokens.insert(tokens.end(), t.begin(), t.end());
    }
    const int T = (int)prompts[0].tokens().size();
    if (Status s = gpt::forward(model, acts, tokens.data(), nullptr, n, T); !s) {
        sc.error = s.error().message;
        return sc;
    }
    for (int i = 0; i < n; ++i) {
        const hmm::Inference inf = hmm::infer(mixture, prompts[(size_t)i]);
        const float* logits = acts.logits_ptr() + ((size_t)i * T + (size_t)(T - 1)) * (size_t)V;
        float mx = logits[0];
        for (int v = 1; v < V; ++v) mx = std::max(mx, logits[v]);
        double z = 0;
        for (int v = 0; v < V; ++v) z += std::exp((double)logits[v] - mx);
        int model_arg = 0, bayes_arg = 0;
        double kl = 0;
        for (int o = 0; o < O; ++o) {
            const double q = std::exp((double)logits[hmm::token_of(o)] - mx) / z;
            const double p = inf.predictive[(size_t)o];
            if (p > 0) kl += p * std::log(p / std::max(q, 1e-30));
            if (logits[hmm::token_of(o)] > logits[hmm::token_of(model_arg)]) model_arg = o;
            if (p > inf.predictive[(size_t)bayes_arg]) bayes_arg = o;
        }
        const int answer = prompts[(size_t)i].answer;
        sc.model_acc += (model_arg == answer) / (double)n;
        sc.bayes_acc += (bayes_arg == answer) / (double)n;
        sc.agreement += (model_arg == bayes_arg) / (double)n;
        sc.kl += kl / n;
        double entropy = 0;
        for (double pc : inf.posterior)
            if (pc > 0) entropy -= pc * std::log(pc);
        sc.posterior_entropy += entropy / n;
    }
    return sc;
}

namespace {

Expected<std::map<std::string, double>> evaluate_hmm(const Recipe& r, const gpt::Model& model) {
    const hmm::Mixture mixture = r.hmm.mixture();
    std::map<std::string, double> out;
    gpt::Activations acts;
    for (int k : {0, 1, 2, 4, r.hmm.segments - 1}) {
        if (k > r.hmm.segments - 1) continue;  // k demonstrations and the query must fit
        Rng rng(r.eval_seed, (uint64_t)k);
        HmmScores all;
        for (size_t c = 0; c < mixture.concepts.size(); ++c) {
            const HmmScores sc = score_hmm(model, acts, mixture, mixture.concepts[c], k, r.eval_sequences, rng);
            if (!sc.error.empty()) return make_error(sc.error);
            const double w = 1.0 / (double)mixture.concepts.size();
            all.model_acc += w * sc.model_acc;
            all.bayes_acc += w * sc.bayes_acc;
            all.kl += w * sc.kl;
        }
        out["acc.k" + std::to_string(k)] = all.model_acc;
        out["bayes_acc.k" + std::to_string(k)] = all.bayes_acc;
        out["kl.k" + std::to_string(k)] = all.kl;
    }
    Rng rng(r.eval_seed, 99u);
    const int k = std::min(8, r.hmm.segments - 1);
    const HmmScores unseen = score_hmm(model, acts, mixture, unseen_concept(r.hmm), k, r.eval_sequences, rng);
    if (!unseen.error.empty()) return make_error(unseen.error);
    out["unseen_acc.k" + std::to_string(k)] = unseen.model_acc;
    return out;
}

}  // namespace

Expected<std::map<std::string, double>> evaluate(const Recipe& r, const gpt::Model& model) {
    if (r.data == "regression") return evaluate_regression(r, model);
    return r.data == "hmm" ? evaluate_hmm(r, model) : evaluate_tasks(r, model);
}

Expected<gpt::Model> load_checkpoint(const Recipe& r) {
    const std::string name = r.checkpoint();
    const std::string remake = " (remake it: icl train lessons/checkpoints/" + r.name + ".json)";
    auto bytes = get_asset(name);
    if (!bytes) return make_error(bytes.error().message);
    checkpoint::Encoding stored = checkpoint::Encoding::f32;
    Expected<gpt::Model> m = checkpoint::load(bytes.value()->data(), bytes.value()->size(), &stored);
    if (!m) return make_error(name + ": " + m.error().message + remake);
    if (stored != r.storage)
        return make_error(name + ": the weights are stored as " + checkpoint::encoding_name(stored) +
                          " but the recipe says " + checkpoint::encoding_name(r.storage) +
                          " (re-store it: icl train lessons/checkpoints/" + r.name + ".json --restore)");
    const gpt::Config& c = m.value().config;
    if (c.vocab != r.model.vocab || c.context != r.model.context || c.width != r.model.width ||
        c.layers != r.model.layers || c.heads != r.model.heads)
        return make_error(name + ": the model (vocab " + std::to_string(c.vocab) + ", context " +
                          std::to_string(c.context) + ", width " + std::to_string(c.width) + ", layers " +
                          std::to_string(c.layers) + ") does not fit its recipe" + remake);
    return m;
}

Expected<Recipe> load_shipped(const std::string& name) {
    const std::string asset = "checkpoints/" + name + ".json";
    auto bytes = get_asset(asset);
    if (!bytes) return make_error(bytes.error().message);
    return parse(std::string(bytes.value()->begin(), bytes.value()->end()), asset);
}

Expected<gpt::Model> load_shipped_model(const std::string& name) {
    auto r = load_shipped(name);
    if (!r) return r.error();
    return load_checkpoint(r.value());
}

}  // namespace icl::recipe

#include "icl/worker_api.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "icl/assets.h"
#include "icl/demo_checkpoint.h"
#include "icl/json_depth.h"
#include "icl/progress.h"
#include "icl/quiz.h"
#include "icl/run_slices.h"

namespace icl {

namespace {

using nlohmann::json;

// Serialises without throwing: invalid UTF-8 in a string becomes U+FFFD.
std::string text(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
std::string error_json(const std::string& message) { return text(json{{"error", message}}); }
// An error in the learner's language where the catalogue has its text (icl/texts.h).
std::string error_json(const Error& e, const Texts& texts) { return error_json(texts(e)); }
std::string error_json(const Error& e, const std::string& lang) {
    if (e.key.empty()) return error_json(e.message);
    auto texts = load_catalogue(lang, {"common"});
    return error_json(texts ? texts.value()(e) : e.message);
}

// Parses text as JSON without exceptions; `what` names the argument in the message.
// Nesting is bounded first: a text nested thousands deep exhausts the stack of the wasm
// module (a RangeError in the page, not an answer); no argument of this API nests deeper
// than a few levels.
Expected<json> parse_json(const std::string& text, const char* what) {
    if (const int depth = json_depth(text, WorkerApi::kMaxJsonDepth); depth > WorkerApi::kMaxJsonDepth)
        return make_error(std::string(what) + ": arrays and objects nested more than " +
                          std::to_string(WorkerApi::kMaxJsonDepth) + " deep; it was not read");
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return make_error(std::string(what) + " is not valid JSON");
    return j;
}

Expected<progress::Document> read_doc(const std::string& text) {
    auto r = progress::read(text);
    if (!r) return make_error("the progress is not readable: " + r.error().message);
    return r.value().doc;
}

int64_t time_ms(double now) {
    return now >= 0 && now <= 9007199254740991.0 ? static_cast<int64_t>(now) : 0;
}

json with_doc(const progress::Document& d, json extra = json::object()) {
    extra["text"] = progress::write(d);
    extra["progress"] = progress::to_json(d);
    return extra;
}

}  // namespace

std::string WorkerApi::progress_read(const std::string& text, double now) const {
    auto r = progress::read(text);
    if (!r) return error_json(r.error().message);
    const progress::Read& read = r.value();
    return icl::text(with_doc(read.doc, {{"skipped", read.skipped}, {"first_skipped", read.first_skipped},
                                         {"due", progress::due_checks(read.doc, time_ms(now)).size()}}));
}

std::string WorkerApi::progress_record(const std::string& text, const std::string& lesson, const std::string& check,
                                       const std::string& answer_json, bool correct, double now) const {
    auto d = read_doc(text);
    if (!d) return error_json(d.error().message);
    auto answer = parse_json(answer_json, "the answer");
    if (!answer) return error_json(answer.error().message);
    if (lesson.empty() || check.empty()) return error_json("an answer needs a lesson and a check id");
    if (Status ok = progress::check_answer(answer.value()); !ok) return error_json(ok.error().message);
    progress::bound_times(d.value(), time_ms(now));
    progress::record_answer(d.value(), lesson, check, answer.value(), correct, time_ms(now));
    if (Status ok = progress::fits(d.value()); !ok) return error_json(ok.error().message);
    return icl::text(with_doc(d.value()));
}

std::string WorkerApi::progress_merge(const std::string& text, const std::string& imported, double now) const {
    auto d = read_doc(text);
    if (!d) return error_json(d.error().message);
    auto in = progress::read(imported);
    if (!in) return error_json("the file is not a progress file: " + in.error().message);
    if (in.value().skipped > 0)
        return error_json("the file is damaged: " + std::to_string(in.value().skipped) + " record(s) cannot be read (" +
                          in.value().first_skipped + "); nothing was imported");
    progress::Document from = in.value().doc;
    progress::bound_times(from, time_ms(now));
    progress::bound_times(d.value(), time_ms(now));
    const progress::MergeCount count = progress::merge(d.value(), from);
    // What is stored must read back: an import that would not is refused whole.
    if (Status ok = progress::fits(d.value()); !ok)
        return error_json("the file is too large to add to your progress: " + ok.error().message + "; nothing was imported");
    return icl::text(with_doc(d.value(), {{"added", count.added}, {"updated", count.updated}}));
}

std::string WorkerApi::progress_due(const std::string& text, double now) const {
    auto d = read_doc(text);
    if (!d) return error_json(d.error().message);
    json due = json::array();
    for (const auto& c : progress::due_checks(d.value(), time_ms(now)))
        due.push_back({{"lesson", c.lesson}, {"check", c.check}, {"due", c.due}});
    return icl::text(json{{"due", due}});
}

std::string WorkerApi::progress_fit(const std::string& text, const std::string& lesson,
                                    const std::string& checks_json) const {
    auto d = read_doc(text);
    if (!d) return error_json(d.error().message);
    auto checks = parse_json(checks_json, "the checks");
    if (!checks) return error_json(checks.error().message);
    if (!checks.value().is_array()) return error_json("the checks must be a JSON array");
    const auto list = checks.value().get<std::vector<json>>();
    const int moved = progress::move_checks(d.value(), lesson, list);
    const auto dropped = progress::drop_unfit_answers(d.value(), lesson, list);
    return icl::text(with_doc(d.value(), {{"dropped", dropped}, {"moved", moved}}));
}

std::string WorkerApi::progress_csv(const std::string& text) const {
    auto d = read_doc(text);
    if (!d) return error_json(d.error().message);
    return icl::text(json{{"csv", progress::summary_csv(d.value())}});
}

std::string WorkerApi::version() const { return text(json{{"version", ICL_VERSION}}); }

std::string WorkerApi::demos(const std::string& lang_text) const {
    auto lang = check_lang_code(lang_text);
    if (!lang) return error_json(lang.error().message);
    json out = json::array();
    for (const DemoDef* d : all_demos()) {
        // Without its catalogue in the asset store (the worker's first call, which wants
        // only the assets) the texts are their ⟦keys⟧; the site build puts them first.
        auto texts = load_texts(lang.value(), d->id);
        out.push_back(to_json(*d, texts ? texts.value() : Texts()));
    }
    return text(out);
}

std::string WorkerApi::put_asset(const std::string& name, std::vector<uint8_t> bytes) {
    if (name.empty()) return error_json("an asset needs a name");
    icl::put_asset(name, std::move(bytes));
    return "{}";
}

std::string WorkerApi::parse_params(const std::string& id, const std::string& key_values_text,
                                    const std::string& lang) const {
    const DemoDef* def = find_demo(id);
    if (!def) return error_json("unknown demo '" + id + "'");
    auto kvs = parse_json(key_values_text, "the parameter list");
    if (!kvs) return error_json(kvs.error().message);
    if (!kvs.value().is_array()) return error_json("the parameter list must be an array of \"name=value\" strings");
    std::vector<std::string> items;
    for (const auto& kv : kvs.value()) {
        if (!kv.is_string()) return error_json("the parameter list must hold only \"name=value\" strings");
        items.push_back(kv.get<std::string>());
    }
    auto typed = parse_param_strings(def->params, items);
    if (!typed) return error_json(typed.error(), lang);
    auto valid = validate_params(def->params, typed.value());
    if (!valid) return error_json(valid.error(), lang);
    return text(json{{"params", typed.value()}});
}

std::string WorkerApi::start(const std::string& id, const std::string& params_text, const std::string& lang_text,
                             double seed) {
    return start_lane(id, params_text, lang_text, seed, 0);
}

std::string WorkerApi::start_lane(const std::string& id, const std::string& params_text, const std::string& lang_text,
                                  double seed, int lane) {
    auto params = parse_json(params_text, "the parameters");
    if (!params) return error_json(params.error().message);
    if (!params.value().is_object()) return error_json("the parameters must be a JSON object");
    if (!(seed >= 0 && seed <= 9007199254740991.0) || seed != std::floor(seed))
        return error_json("the seed must be a non-negative integer");
    if (sessions_.size() >= kMaxSessions)
        return error_json("too many demo sessions are open (" + std::to_string(kMaxSessions) + ")");
    try {
        if (!find_demo(id)) return error_json(start_demo(id, params.value(), Texts(), 0).error().message);
        auto texts = load_texts(lang_text, id);
        if (!texts) return error_json(texts.error().message);
        auto session = start_demo(id, params.value(), texts.value(), static_cast<uint64_t>(seed), lane);
        if (!session) return error_json(session.error(), texts.value());
        const int handle = next_handle_++;
        const int lanes = session.value()->lanes();
        sessions_[handle] = std::move(session.value());
        return text(lane ? json{{"handle", handle}} : json{{"handle", handle}, {"lanes", lanes}});
    } catch (const std::exception& e) {
        return error_json(id + " failed to start: " + e.what());
    }
}

std::string WorkerApi::step(int handle, int budget, bool snapshot) {
    const auto it = sessions_.find(handle);
    if (it == sessions_.end()) return error_json("no demo session " + std::to_string(handle));
    if (budget < 1) return error_json("the step budget must be at least 1");
    try {
        Session& s = *it->second;
        std::vector<std::pair<int, json>> none;  // lane states come by take_lane
        (void)run_slice(s, budget, none);
        if (s.lane() > 0) {  // a lane: its state, for the session that offloaded it
            json out{{"lane", s.lane()}, {"done", s.done()}, {"progress", s.progress()}};
            if (snapshot || s.done()) out["state"] = s.lane_state();
            return text(out);
        }
        // Without a snapshot only where the run is: building and writing a Result costs
        // a training demo's slice up to a third of its time in wasm (induction_heads:
        // 72 KB of JSON every 25 ms), and the page draws a few per second at most.
        json out = !snapshot && !s.done() && s.error().empty() ? json{{"done", false}, {"progress", s.progress()}}
                                                               : to_json(s.result());
        if (s.waiting()) out["waiting"] = true;
        return text(out);
    } catch (const std::exception& e) {
        // A demo that throws is a bug in core; the page shows it and the session ends.
        sessions_.erase(it);
        return error_json(std::string("the demo failed: ") + e.what());
    }
}

std::string WorkerApi::drop(int handle) {
    sessions_.erase(handle);
    return "{}";
}

std::string WorkerApi::offload(int handle, int lane) {
    const auto it = sessions_.find(handle);
    if (it == sessions_.end()) return error_json("no demo session " + std::to_string(handle));
    Status s = it->second->offload(lane);
    return s ? "{}" : error_json(s.error().message);
}

std::string WorkerApi::take_lane(int handle, int lane, const std::string& state_text) {
    const auto it = sessions_.find(handle);
    if (it == sessions_.end()) return error_json("no demo session " + std::to_string(handle));
    auto state = parse_json(state_text, "the lane's state");
    if (!state) return error_json(state.error().message);
    try {
        Status s = it->second->take_lane(lane, state.value());
        return s ? "{}" : error_json(s.error().message);
    } catch (const std::exception& e) {
        return error_json(std::string("the lane's state could not be taken: ") + e.what());
    }
}

std::string WorkerApi::checkpoint(int handle) const {
    const auto it = sessions_.find(handle);
    if (it == sessions_.end()) return error_json("no demo session " + std::to_string(handle));
    try {
        return text(save_checkpoint(*it->second));
    } catch (const std::exception& e) {
        return error_json(std::string("the run could not be saved: ") + e.what());
    }
}

std::string WorkerApi::resume(int handle, const std::string& checkpoint_text) {
    const auto it = sessions_.find(handle);
    if (it == sessions_.end()) return error_json("no demo session " + std::to_string(handle));
    auto c = parse_json(checkpoint_text, "the saved run");
    if (!c) return error_json(c.error().message);
    try {
        Status s = resume_checkpoint(*it->second, c.value());
        return s ? "{}" : error_json(s.error().message);
    } catch (const std::exception& e) {
        return error_json(std::string("the saved run could not be read: ") + e.what());
    }
}

std::string WorkerApi::grade(const std::string& check_text, const std::string& answer_text,
                             const std::string& result_text, const std::string& lang) const {
    auto check = parse_json(check_text, "the check");
    if (!check) return error_json(check.error().message);
    if (!check.value().is_object()) return error_json("the check must be a JSON object");
    auto answer = parse_json(answer_text, "the answer");
    if (!answer) return error_json(answer.error().message);
    auto result = parse_json(result_text, "the demo result");
    if (!result) return error_json(result.error().message);
    if (!result.value().is_null() && !result.value().is_object())
        return error_json("the demo result must be a JSON object or null");
    try {
        auto verdict = icl::grade(check.value(), answer.value(), result.value());
        if (!verdict) return error_json(verdict.error(), lang);
        const Verdict& v = verdict.value();
        return text(json{{"correct", v.correct}, {"feedback_html", v.feedback_html},
                         {"correct_answer", v.correct_answer}});
    } catch (const std::exception& e) {
        return error_json(std::string("grading failed: ") + e.what());
    }
}

}  // namespace icl

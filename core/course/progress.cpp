#include "icl/progress.h"

#include <algorithm>
#include <cstdio>

#include "icl/json_depth.h"
#include "icl/quiz.h"
#include "icl/texts.h"

namespace icl::progress {

using nlohmann::json;

namespace {

constexpr int64_t kMinute = 60 * 1000;
constexpr int64_t kDay = 24 * 60 * kMinute;
constexpr int64_t kMaxTime = int64_t(1) << 53;   // exact in a JS number

bool time_field(const json& r, const char* key, int64_t& out) {
    if (!r.contains(key)) return true;   // absent: 0
    const json& v = r.at(key);
    if (!v.is_number_integer()) return false;
    const int64_t t = v.get<int64_t>();
    if (t < 0 || t > kMaxTime) return false;
    out = t;
    return true;
}

// One record of either version; "" when good, else what is wrong.
std::string read_record(const json& r, int version, const Bounds& bounds, Record& out) {
    if (!r.is_object()) return "is not an object";
    if (!r.contains("correct") || !r.at("correct").is_boolean()) return "needs \"correct\" (true or false)";
    out.correct = r.at("correct").get<bool>();
    out.answer = r.contains("answer") ? r.at("answer") : json();
    if (out.answer.dump(-1, ' ', false, json::error_handler_t::replace).size() > bounds.max_answer_bytes)
        return "has an answer longer than " + std::to_string(bounds.max_answer_bytes) + " bytes";
    if (!time_field(r, "at", out.at)) return "has an \"at\" that is not a time in ms";
    if (version == 1) {   // no schedule yet: due at once
        out.attempts = 1;
        out.box = out.correct ? 1 : 0;
        out.due = out.at;
        return "";
    }
    if (!r.contains("attempts") || !r.at("attempts").is_number_integer() || r.at("attempts").get<int64_t>() < 0 ||
        r.at("attempts").get<int64_t>() > 1000000000)
        return "needs \"attempts\" (a count)";
    out.attempts = r.at("attempts").get<int64_t>();
    if (!r.contains("box") || !r.at("box").is_number_integer() || r.at("box").get<int64_t>() < 0 ||
        r.at("box").get<int64_t>() > kMaxBox)
        return "needs \"box\" (0 to " + std::to_string(kMaxBox) + ")";
    out.box = r.at("box").get<int>();
    if (!r.contains("due") || !time_field(r, "due", out.due)) return "needs \"due\" (a time in ms)";
    return "";
}

std::string csv_field(const std::string& s) {
    std::string v = s;
    if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r'))
        v = "'" + v;
    if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

Expected<Read> read(const std::string& text, const Bounds& bounds) {
    if (text.size() > bounds.max_bytes)
        return make_error("it is " + std::to_string(text.size()) + " bytes, more than the " +
                          std::to_string(bounds.max_bytes) + " a progress document may have");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Read{};
    const JsonShape shape = json_shape(text);
    if (shape.depth > bounds.max_depth)
        return make_error("it is nested " + std::to_string(shape.depth) + " deep, more than the " +
                          std::to_string(bounds.max_depth) + " a progress document may have");
    if (shape.objects > bounds.max_records + 1000)
        return make_error("it holds more than " + std::to_string(bounds.max_records) + " records");
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return make_error("it is not valid JSON");
    if (!j.is_object()) return make_error("the top level is not a JSON object");
    if (!j.contains("version") || !j.at("version").is_number_integer() ||
        (j.at("version") != 1 && j.at("version") != kVersion))
        return make_error("\"version\" is missing or not 1 or 2");
    const int version = j.at("version").get<int>();
    Read r;
    Document& d = r.doc;
    // Any language code is kept (a language is a lessons folder, and a later start may
    // lack it); one that is not a code is left out and the document read all the same.
    if (j.contains("lang") && j.at("lang").is_string() && check_lang_code(j.at("lang").get<std::string>()))
        d.lang = j.at("lang").get<std::string>();
    if (j.contains("last_lesson")) {
        if (!j.at("last_lesson").is_string()) return make_error("\"last_lesson\" is not a string");
        d.last_lesson = j.at("last_lesson").get<std::string>();
    }
    if (!j.contains("checks") || !j.at("checks").is_object()) return make_error("\"checks\" is missing or not an object");
    const auto skip = [&r](const std::string& what) {
        if (r.skipped++ == 0) r.first_skipped = what;
    };
    size_t records = 0;
    const auto take = [&](const std::string& lesson, const std::string& check, const json& value) {
        if (lesson.empty() || check.empty()) return skip("a check with an empty lesson or check id");
        if (++records > bounds.max_records) return skip("more than " + std::to_string(bounds.max_records) + " records");
        Record rec;
        const std::string problem = read_record(value, version, bounds, rec);
        if (!problem.empty()) return skip("check \"" + lesson + "/" + check + "\" " + problem);
        Record& slot = d.checks[lesson][check];
        if (slot.attempts == 0 || rec.at > slot.at) slot = rec;   // a v1 page key and a nested one: the later
    };
    for (const auto& [key, value] : j.at("checks").items()) {
        // The lesson pages' version 1: "<lesson>/<check>" -> record.
        if (version == 1 && value.is_object() && value.contains("correct") && value.at("correct").is_boolean()) {
            const size_t slash = key.find('/');
            if (slash == std::string::npos) skip("check \"" + key + "\" is not <lesson>/<check>");
            else take(key.substr(0, slash), key.substr(slash + 1), value);
            continue;
        }
        if (!value.is_object()) {
            skip("checks of lesson \"" + key + "\" are not an object");
            continue;
        }
        for (const auto& [check, record] : value.items()) take(key, check, record);
    }
    return r;
}

json to_json(const Document& doc) {
    json checks = json::object();
    for (const auto& [lesson, records] : doc.checks)
        for (const auto& [check, r] : records)
            checks[lesson][check] = {{"answer", r.answer}, {"correct", r.correct}, {"attempts", r.attempts},
                                     {"at", r.at}, {"box", r.box}, {"due", r.due}};
    return {{"version", kVersion}, {"lang", doc.lang}, {"last_lesson", doc.last_lesson}, {"checks", checks}};
}

std::string write(const Document& doc) {
    // One record a line: readable, and no indentation that grows with nesting.
    std::string out = "{\"version\": " + std::to_string(kVersion) + ", \"lang\": " + json(doc.lang).dump() +
                      ", \"last_lesson\": " + json(doc.last_lesson).dump(-1, ' ', false, json::error_handler_t::replace) +
                      ", \"checks\": {";
    bool first_lesson = true;
    for (const auto& [lesson, records] : doc.checks) {
        out += std::string(first_lesson ? "" : ",") + "\n " +
               json(lesson).dump(-1, ' ', false, json::error_handler_t::replace) + ": {";
        first_lesson = false;
        bool first = true;
        for (const auto& [check, r] : records) {
            const json rec = {{"answer", r.answer}, {"correct", r.correct}, {"attempts", r.attempts},
                              {"at", r.at}, {"box", r.box}, {"due", r.due}};
            out += std::string(first ? "" : ",") + "\n  " +
                   json(check).dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
                   rec.dump(-1, ' ', false, json::error_handler_t::replace);
            first = false;
        }
        out += "}";
    }
    return out + "}}\n";
}

Status fits(const Document& doc, const Bounds& bounds) {
    auto back = read(write(doc), bounds);
    if (!back) return make_error("the progress would not read back (" + back.error().message + ")");
    if (back.value().skipped > 0) return make_error("the progress would not read back (" + back.value().first_skipped + ")");
    return Ok{};
}

Status check_answer(const json& answer, const Bounds& bounds) {
    const std::string text = answer.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > bounds.max_answer_bytes)
        return make_error("the answer is " + std::to_string(text.size()) + " bytes, more than the " +
                          std::to_string(bounds.max_answer_bytes) + " a saved answer may have");
    // The record puts it 4 levels down (document, checks, lesson, record).
    if (json_depth(text) > bounds.max_depth - 4)
        return make_error("the answer is nested more than " + std::to_string(bounds.max_depth - 4) + " deep");
    return Ok{};
}

void bound_times(Document& doc, int64_t now_ms) {
    const int64_t latest_due = now_ms + interval_ms(kMaxBox);
    for (auto& [lesson, records] : doc.checks)
        for (auto& [check, r] : records) {
            r.at = std::min(r.at, now_ms);
            r.due = std::min(r.due, latest_due);
        }
}

int64_t interval_ms(int box) {
    static const int64_t intervals[kMaxBox + 1] = {10 * kMinute, kDay, 3 * kDay, 7 * kDay, 16 * kDay, 35 * kDay};
    return intervals[std::clamp(box, 0, kMaxBox)];
}

void record_answer(Document& doc, const std::string& lesson, const std::string& check, const json& answer,
                   bool correct, int64_t now_ms) {
    Record& r = doc.checks[lesson][check];
    const bool is_new = r.attempts == 0;
    const bool was_due = now_ms >= r.due;
    r.answer = answer;
    r.correct = correct;
    r.attempts += 1;
    r.at = now_ms;
    if (!correct) r.box = 0;
    else if (is_new || was_due) r.box = std::min(r.box + 1, kMaxBox);
    r.due = now_ms + interval_ms(r.box);
}

MergeCount merge(Document& into, const Document& from) {
    MergeCount count;
    if (into.last_lesson.empty()) into.last_lesson = from.last_lesson;
    for (const auto& [lesson, records] : from.checks)
        for (const auto& [check, r] : records) {
            auto& slot = into.checks[lesson];
            auto it = slot.find(check);
            if (it == slot.end()) {
                slot[check] = r;
                ++count.added;
            } else if (r.at > it->second.at) {
                const int64_t attempts = std::max(it->second.attempts, r.attempts);
                it->second = r;
                it->second.attempts = attempts;
                ++count.updated;
            } else {
                it->second.attempts = std::max(it->second.attempts, r.attempts);
            }
        }
    return count;
}

std::vector<DueCheck> due_checks(const Document& doc, int64_t now_ms) {
    std::vector<DueCheck> due;
    for (const auto& [lesson, records] : doc.checks)
        for (const auto& [check, r] : records)
            if (r.due <= now_ms) due.push_back({lesson, check, r.due});
    std::stable_sort(due.begin(), due.end(), [](const DueCheck& a, const DueCheck& b) { return a.due < b.due; });
    return due;
}

std::string iso_utc(int64_t ms) {
    // Howard Hinnant's civil_from_days.
    int64_t s = ms / 1000;
    int64_t days = s / 86400, rem = s % 86400;
    if (rem < 0) { rem += 86400; --days; }
    days += 719468;
    const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const int64_t doe = days - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int64_t day = doy - (153 * mp + 2) / 5 + 1;
    const int64_t month = mp < 10 ? mp + 3 : mp - 9;
    const int64_t year = yoe + era * 400 + (month <= 2);
    char buf[128];  // room for any int64 year, so the compiler sees no truncation
    std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", static_cast<long long>(year),
                  static_cast<long long>(month), static_cast<long long>(day), static_cast<long long>(rem / 3600),
                  static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60));
    return buf;
}

std::string summary_csv(const Document& doc) {
    std::string out = "lesson,check,correct,attempts,last_answered\r\n";
    for (const auto& [lesson, records] : doc.checks)
        for (const auto& [check, r] : records)
            out += csv_field(lesson) + "," + csv_field(check) + "," + (r.correct ? "true" : "false") + "," +
                   std::to_string(r.attempts) + "," + (r.at > 0 ? iso_utc(r.at) : "") + "\r\n";
    return out;
}

std::vector<std::string> drop_unfit_answers(Document& doc, const std::string& lesson, const std::vector<json>& checks) {
    std::vector<std::string> dropped;
    auto saved = doc.checks.find(lesson);
    if (saved == doc.checks.end()) return dropped;
    for (const json& check : checks) {
        if (!check.is_object() || !check.contains("id") || !check.at("id").is_string()) continue;
        auto it = saved->second.find(check.at("id").get<std::string>());
        if (it == saved->second.end() || it->second.answer.is_null()) continue;
        if (auto ok = validate_answer(check, it->second.answer); !ok) {
            dropped.push_back("the saved answer to check \"" + lesson + "/" + it->first + "\" was dropped (" +
                              ok.error().message + ")");
            it->second.answer = nullptr;
        }
    }
    return dropped;
}

int move_checks(Document& doc, const std::string& lesson, const std::vector<json>& checks) {
    int moved = 0;
    for (const json& check : checks) {
        if (!check.is_object() || !check.contains("id") || !check.at("id").is_string() || !check.contains("from") ||
            !check.at("from").is_string())
            continue;
        const std::string id = check.at("id").get<std::string>(), from = check.at("from").get<std::string>();
        if (from == lesson) continue;
        auto old_lesson = doc.checks.find(from);
        if (old_lesson == doc.checks.end()) continue;
        auto old = old_lesson->second.find(id);
        if (old == old_lesson->second.end()) continue;
        auto& target = doc.checks[lesson];
        auto now = target.find(id);
        if (now == target.end()) target.emplace(id, std::move(old->second));
        else {
            const int64_t attempts = std::max(now->second.attempts, old->second.attempts);
            if (old->second.at > now->second.at) now->second = std::move(old->second);
            now->second.attempts = attempts;
        }
        old_lesson->second.erase(old);
        if (old_lesson->second.empty()) doc.checks.erase(old_lesson);
        ++moved;
    }
    return moved;
}

}  // namespace icl::progress

#include "icl/class_report.h"

#include <algorithm>

namespace icl::classroom {

using nlohmann::json;

namespace {

const char* kPrefix = "urn:icl-lab:check:";
const char* kAnswered = "http://adlnet.gov/expapi/verbs/answered";

std::string learner_of(const json& actor) {
    if (!actor.is_object()) return "";
    if (actor.contains("account") && actor["account"].is_object() && actor["account"].contains("name") &&
        actor["account"]["name"].is_string())
        return actor["account"]["name"].get<std::string>();
    for (const char* k : {"mbox", "mbox_sha1sum", "openid", "name"})
        if (actor.contains(k) && actor[k].is_string()) return actor[k].get<std::string>();
    return "";
}

// A multi answer's keys "a[,]c" as "a, c"; other responses as they are.
std::string shown_response(std::string r) {
    for (size_t at; (at = r.find("[,]")) != std::string::npos;) r.replace(at, 3, ", ");
    return r;
}

// One CSV line's fields (RFC 4180 quotes; a leading ' that summary_csv added before
// = + - @ is taken off again).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { out.back() += '"'; ++i; }
            else if (c == '"') quoted = false;
            else out.back() += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') out.emplace_back();
        else if (c != '\r') out.back() += c;
    }
    for (auto& f : out)
        if (f.size() > 1 && f[0] == '\'' && std::string("=+-@").find(f[1]) != std::string::npos) f.erase(0, 1);
    return out;
}

}  // namespace

std::string check_activity(const std::string& lesson, const std::string& check) { return kPrefix + lesson + "/" + check; }

bool parse_check_activity(const std::string& id, std::string& lesson, std::string& check) {
    if (id.rfind(kPrefix, 0) != 0) return false;
    const std::string rest = id.substr(std::string(kPrefix).size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == rest.size()) return false;
    lesson = rest.substr(0, slash);
    check = rest.substr(slash + 1);
    return true;
}

Expected<int> Class::add_statements(const json& j) {
    const json* list = &j;
    if (j.is_object() && j.contains("statements")) list = &j["statements"];
    if (!list->is_array()) return make_error("the statements are not a JSON array (nor an object with \"statements\")");
    std::vector<Event> found;
    for (size_t i = 0; i < list->size(); ++i) {
        const json& s = (*list)[i];
        const std::string where = "statement " + std::to_string(i);
        if (!s.is_object()) return make_error(where + " is not an object");
        const json& verb = s.contains("verb") ? s["verb"] : json();
        if (!verb.is_object() || verb.value("id", json()) != kAnswered) continue;
        const json& object = s.contains("object") ? s["object"] : json();
        Event e;
        if (!object.is_object() || !object.contains("id") || !object["id"].is_string() ||
            !parse_check_activity(object["id"].get<std::string>(), e.lesson, e.check))
            continue;
        e.learner = learner_of(s.value("actor", json()));
        if (e.learner.empty()) return make_error(where + " (answered " + e.lesson + "/" + e.check + ") has no actor with an account, mbox or name");
        const json& result = s.contains("result") ? s["result"] : json();
        if (!result.is_object() || !result.contains("success") || !result["success"].is_boolean())
            return make_error(where + " (answered " + e.lesson + "/" + e.check + ") has no result.success");
        if (!s.contains("timestamp") || !s["timestamp"].is_string())
            return make_error(where + " (answered " + e.lesson + "/" + e.check + ") has no timestamp");
        e.success = result["success"].get<bool>();
        e.at = s["timestamp"].get<std::string>();
        if (result.contains("response") && result["response"].is_string()) e.response = shown_response(result["response"].get<std::string>());
        found.push_back(std::move(e));
    }
    events_.insert(events_.end(), found.begin(), found.end());
    return (int)found.size();
}

void Class::add_document(const std::string& learner, const progress::Document& doc) {
    for (const auto& [lesson, checks] : doc.checks) {
        for (const auto& [check, r] : checks) {
            Seen& s = docs_[learner][{lesson, check}];
            s.last_correct = r.correct;
            s.first = r.attempts == 1 ? (r.correct ? 1 : 0) : -1;
            if (!r.correct && !r.answer.is_null()) {
                std::string a;
                if (r.answer.is_string()) a = r.answer.get<std::string>();
                else if (r.answer.is_array()) {
                    for (const auto& k : r.answer) a += (a.empty() ? "" : ", ") + (k.is_string() ? k.get<std::string>() : k.dump());
                } else a = r.answer.dump();
                s.wrong[a] += 1;
            }
        }
    }
}

Status Class::add_csv(const std::string& learner, const std::string& text) {
    size_t start = 0;
    int line_no = 0;
    std::map<std::pair<std::string, std::string>, Seen> rows;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++line_no;
        if (line.find_first_not_of(" \r") == std::string::npos) continue;
        const auto f = csv_fields(line);
        if (line_no == 1) {
            if (f.size() < 4 || f[0] != "lesson" || f[1] != "check" || f[2] != "correct" || f[3] != "attempts")
                return make_error("line 1 is not the header lesson,check,correct,attempts,last_answered of an answers CSV");
            continue;
        }
        if (f.size() < 4 || f[0].empty() || f[1].empty() || (f[2] != "true" && f[2] != "false") ||
            f[3].empty() || f[3].size() > 9 || f[3].find_first_not_of("0123456789") != std::string::npos)
            return make_error("line " + std::to_string(line_no) + " is not lesson,check,true|false,attempts");
        Seen s;
        s.last_correct = f[2] == "true";
        s.first = std::stoi(f[3]) == 1 ? (s.last_correct ? 1 : 0) : -1;
        rows[{f[0], f[1]}] = s;
    }
    for (auto& [k, s] : rows) docs_[learner][k] = s;
    return Ok{};
}

std::map<std::string, std::map<std::pair<std::string, std::string>, Seen>> Class::seen() const {
    auto out = docs_;
    std::vector<Event> events = events_;
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
    std::map<std::pair<std::string, std::pair<std::string, std::string>>, Seen> folded;
    for (const Event& e : events) {
        Seen& s = folded[{e.learner, {e.lesson, e.check}}];
        if (s.first < 0) s.first = e.success ? 1 : 0;
        s.last_correct = e.success;
        if (!e.success) s.wrong[e.response] += 1;
    }
    // Statements, where a learner has them for a check, say more than a document does.
    for (auto& [key, s] : folded) out[key.first][key.second] = s;
    return out;
}

Report Class::report(const std::vector<std::pair<std::string, std::vector<json>>>& lessons) const {
    Report r;
    const auto all = seen();
    std::map<std::pair<std::string, std::string>, size_t> index;
    for (const auto& [lesson, checks] : lessons) {
        for (const json& c : checks) {
            const std::string id = c.value("id", "");
            index[{lesson, id}] = r.checks.size();
            r.checks.push_back({lesson, id});
        }
    }
    // A check that moved to another lesson (from=, a split lesson) is still found under
    // the lesson it was in, as the pages and the app move a learner's saved answer.
    for (const auto& [lesson, checks] : lessons)
        for (const json& c : checks)
            if (c.contains("from") && c.at("from").is_string())
                index.emplace(std::make_pair(c.at("from").get<std::string>(), c.value("id", "")), index.at({lesson, c.value("id", "")}));
    r.total_checks = (int)r.checks.size();
    std::vector<std::map<std::string, int>> wrong(r.checks.size());
    for (const auto& [learner, checks] : all) {
        LearnerRow row{learner};
        for (const auto& [key, s] : checks) {
            const auto it = index.find(key);
            if (it == index.end()) {
                const std::string name = key.first + "/" + key.second;
                if (std::find(r.unknown.begin(), r.unknown.end(), name) == r.unknown.end()) r.unknown.push_back(name);
                continue;
            }
            CheckRow& c = r.checks[it->second];
            // answered under the old lesson and the new one: the new one's answer counts
            if (key.first != c.lesson && checks.count({c.lesson, c.check})) continue;
            ++c.answered;
            if (s.first >= 0) { ++c.first_known; c.first_right += s.first; }
            for (const auto& [response, times] : s.wrong) { (void)times; ++wrong[it->second][response]; }
            ++row.answered;
            row.right += s.last_correct ? 1 : 0;
            ++row.answered_by_lesson[c.lesson];
        }
        r.learners.push_back(row);
    }
    for (size_t i = 0; i < r.checks.size(); ++i) {
        r.checks[i].wrong.assign(wrong[i].begin(), wrong[i].end());
        std::stable_sort(r.checks[i].wrong.begin(), r.checks[i].wrong.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    std::sort(r.unknown.begin(), r.unknown.end());
    return r;
}

}  // namespace icl::classroom

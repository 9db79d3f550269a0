// libFuzzer target: the demo parameter parser in both forms a learner can type.
//   CLI  `icl run <id> --set k=v ...`   parse_param_strings + validate_params
//   URL  `lesson.html?<inst>.k=v&...`   the page splits the query and the worker calls
//                                       WorkerApi::parse_params(id, ["k=v", ...])
// Input: lines; the first names the demo (an unknown name picks one by its first
// byte), the rest are "k=v" strings.
// Properties beyond "no crash": both forms accept or refuse alike and agree on the
// values, and every accepted value lies inside its ParamSpec (type, range, choices;
// a points list within its count and its x and y ranges, and its text form reads back;
// a text: valid UTF-8 within its length, every token in the vocabulary, and its
// canonical form tokenizing to the same tokens again).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/utf8.h"
#include "icl/worker_api.h"

namespace {

void check_inside_specs(const icl::DemoDef& def, const icl::Params& p) {
    for (const icl::ParamSpec& s : def.params) {
        if (s.type == icl::ParamType::Points) {
            const auto& pts = p.pts(s.name);
            if (static_cast<int>(pts.size()) > s.max_count || static_cast<int>(pts.size()) < s.min_count) std::abort();
            for (const auto& xy : pts)
                if (!(xy[0] >= s.min && xy[0] <= s.max && xy[1] >= s.y_min && xy[1] <= s.y_max)) std::abort();
            // The text form reads back to the same list.
            auto again = icl::parse_param_strings(def.params, {s.name + "=" + icl::points_text(pts)});
            if (!again) std::abort();
            auto valid = icl::validate_params(def.params, again.value());
            if (!valid || valid.value().pts(s.name).size() != pts.size()) std::abort();
            continue;
        }
        if (s.type == icl::ParamType::Text) {
            const std::string& text = p.text(s.name);
            const auto& tokens = p.tokens(s.name);
            if (icl::utf8_first_invalid(text) != std::string::npos || text.size() > 4 * (size_t)s.max_length) std::abort();
            for (const std::string& t : tokens)
                if (t.empty() || (!s.vocabulary.empty() &&
                                  std::find(s.vocabulary.begin(), s.vocabulary.end(), t) == s.vocabulary.end()))
                    std::abort();
            icl::ParamSpec roomy = s;  // the canonical form adds spaces ("fast→" → "fast →")
            roomy.max_length = 2 * s.max_length;
            auto again = icl::tokenize_text(roomy, text);
            if (!again || again.value() != tokens) std::abort();
            continue;
        }
        if (s.type == icl::ParamType::Choice) {
            const std::string& v = p.s(s.name);
            if (std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end()) std::abort();
            continue;
        }
        const double v = p.d(s.name);
        if (!std::isfinite(v)) std::abort();
        if (s.type == icl::ParamType::Bool) {
            if (v != 0.0 && v != 1.0) std::abort();
        } else if (v < s.min || v > s.max || (s.type == icl::ParamType::Int && v != std::floor(v))) {
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using nlohmann::json;
    const auto& demos = icl::all_demos();
    if (size == 0 || demos.empty()) return 0;
    std::vector<std::string> lines(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == '\n') lines.emplace_back();
        else lines.back().push_back(static_cast<char>(data[i]));
    }
    const icl::DemoDef* found = icl::find_demo(lines[0]);
    const icl::DemoDef& def = found ? *found : *demos[data[0] % demos.size()];
    const std::vector<std::string> kvs(lines.begin() + 1, lines.end());

    // CLI form.
    auto typed = icl::parse_param_strings(def.params, kvs);
    bool cli_ok = false;
    json cli_params;
    if (typed) {
        auto valid = icl::validate_params(def.params, typed.value());
        if (valid) {
            check_inside_specs(def, valid.value());
            cli_ok = true;
            cli_params = typed.value();
        } else if (valid.error().message.empty()) {
            std::abort();
        }
    } else if (typed.error().message.empty()) {
        std::abort();
    }

    // URL form, through the worker's JSON API. Strings that are not UTF-8 cannot reach
    // it (the page's URLSearchParams decodes to UTF-16, JSON.stringify writes UTF-8),
    // so the list is serialised with replacement like the page's text would be.
    const std::string list = json(kvs).dump(-1, ' ', false, json::error_handler_t::replace);
    const json answer = json::parse(icl::WorkerApi().parse_params(def.id, list));
    if (!answer.is_object()) std::abort();
    if (list == json(kvs).dump(-1, ' ', false, json::error_handler_t::ignore)) {  // no replacement happened
        if (answer.contains("error") == cli_ok) std::abort();
        if (cli_ok && answer.at("params") != cli_params) std::abort();
    }
    return 0;
}

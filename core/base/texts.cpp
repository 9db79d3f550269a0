#include "icl/texts.h"

#include "icl/format.h"

#include "icl/assets.h"

#include <cctype>
#include <cstdio>
#include <cmath>
#include <memory>
#include <mutex>

namespace icl {

Expected<std::string> check_lang_code(const std::string& code) {
    size_t i = 0;
    while (i < code.size() && code[i] >= 'a' && code[i] <= 'z') ++i;
    bool ok = i >= 2 && i <= 3;
    if (ok && i < code.size()) {
        ok = code[i] == '-' && code.size() - i - 1 >= 1 && code.size() - i - 1 <= 8;
        for (size_t j = i + 1; ok && j < code.size(); ++j) ok = std::isalnum((unsigned char)code[j]) != 0;
    }
    if (!ok)
        return make_error("'" + code + "' is not a language code (2-3 lowercase letters, optionally - and a region, "
                          "like en, ko or pt-BR)");
    return code;
}

namespace {

// A number as a message shows it: integers as integers; otherwise the precision asked
// (".3f", ".2g", ".1e"), or four significant digits.
std::string number_text(double v, const std::string& spec) {
    char buf[64];
    if (!spec.empty()) {
        // Only ".<digits><f|g|e>" reaches printf; anything else prints the default.
        bool ok = spec.size() >= 3 && spec[0] == '.' && std::string("fge").find(spec.back()) != std::string::npos;
        for (size_t i = 1; ok && i + 1 < spec.size(); ++i) ok = std::isdigit((unsigned char)spec[i]) != 0;
        if (ok && spec.size() <= 4) {
            const std::string f = "%" + spec;
            std::snprintf(buf, sizeof buf, f.c_str(), v);
            return buf;
        }
    }
    return display_number(v);
}

}  // namespace

namespace {
std::string fill(const std::string& tmpl, const TextArg* first, const TextArg* last) {
    std::string out;
    out.reserve(tmpl.size() + 16);
    for (size_t i = 0; i < tmpl.size(); ++i) {
        const char c = tmpl[i];
        if ((c == '{' || c == '}') && i + 1 < tmpl.size() && tmpl[i + 1] == c) {
            out += c;
            ++i;
            continue;
        }
        const size_t close = c == '{' ? tmpl.find('}', i) : std::string::npos;
        if (close == std::string::npos) {
            out += c;
            continue;
        }
        const std::string inner = tmpl.substr(i + 1, close - i - 1);
        const size_t colon = inner.find(':');
        const std::string name = inner.substr(0, colon), spec = colon == std::string::npos ? "" : inner.substr(colon + 1);
        const TextArg* arg = nullptr;
        for (const TextArg* a = first; a != last; ++a)
            if (name == a->name) arg = a;
        if (!arg) {
            out += tmpl.substr(i, close - i + 1);  // stays visible: {name}
        } else if (const auto* s = std::get_if<std::string>(&arg->value)) {
            out += *s;
        } else {
            out += number_text(std::get<double>(arg->value), spec);
        }
        i = close;
    }
    return out;
}

std::string fill_error(const std::string& tmpl, const Error& error) {
    std::vector<TextArg> args;
    for (const auto& [name, value] : error.args) args.emplace_back(name.c_str(), value);
    return fill(tmpl, args.data(), args.data() + args.size());
}
}  // namespace

std::string fill_template(const std::string& tmpl, std::initializer_list<TextArg> args) {
    return fill(tmpl, args.begin(), args.end());
}

std::string fill_template(const std::string& tmpl, const std::vector<TextArg>& args) {
    return fill(tmpl, args.data(), args.data() + args.size());
}

Expected<Texts> Texts::from_layers(const std::string& lang, const std::vector<nlohmann::json>& layers,
                                   const std::vector<std::string>& names) {
    Texts t;
    t.lang_ = lang;
    for (size_t l = 0; l < layers.size(); ++l) {
        const std::string name = l < names.size() ? names[l] : "catalogue " + std::to_string(l);
        if (!layers[l].is_object()) return make_error(name + ": a catalogue is a JSON object of key → text");
        for (const auto& [key, value] : layers[l].items()) {
            if (!value.is_string()) return make_error(name + ": '" + key + "' is not a string");
            t.messages_[key] = value;
        }
    }
    return t;
}

Expected<Texts> Texts::from_json(const std::string& lang, const nlohmann::json& merged) {
    auto code = check_lang_code(lang);
    if (!code) return code.error();
    return from_layers(lang, {merged}, {"the messages"});
}

bool Texts::has(const std::string& key) const { return messages_.contains(key); }

std::string Texts::operator()(const std::string& key, std::initializer_list<TextArg> args) const {
    const auto it = messages_.find(key);
    if (it == messages_.end()) return "⟦" + key + "⟧";
    return fill_template(it->get_ref<const std::string&>(), args);
}

std::string Texts::operator()(const Error& error) const {
    const auto it = error.key.empty() ? messages_.end() : messages_.find(error.key);
    if (it == messages_.end()) return error.message;
    return fill_error(it->get_ref<const std::string&>(), error);
}

Expected<Texts> load_catalogue(const std::string& lang, const std::vector<std::string>& files) {
    auto code = check_lang_code(lang);
    if (!code) return code.error();
    std::vector<nlohmann::json> layers;
    std::vector<std::string> names;
    bool has_lang = false;
    for (const std::string& l : lang == "en" ? std::vector<std::string>{"en"} : std::vector<std::string>{"en", lang}) {
        for (const std::string& file : files) {
            const std::string name = l + "/catalogue/" + file + ".json";
            auto bytes = get_asset(name);
            if (!bytes) {
                if (l == "en")
                    return make_error("cannot read lessons/" + name + ", English texts (every one is in lessons/en/catalogue/)");
                continue;  // the language lacks it: English shows
            }
            if (l != "en") has_lang = true;
            nlohmann::json j = nlohmann::json::parse(bytes.value()->begin(), bytes.value()->end(), nullptr, false);
            if (j.is_discarded()) return make_error("lessons/" + name + " is not valid JSON");
            layers.push_back(std::move(j));
            names.push_back("lessons/" + name);
        }
    }
    if (lang != "en" && !has_lang) {
        std::string list;
        for (const std::string& f : files) list += (list.empty() ? "" : " nor ") + f + ".json";
        return make_error("unknown language '" + lang + "': lessons/" + lang + "/catalogue/ has neither " + list);
    }
    return Texts::from_layers(lang, layers, names);
}

Error learner_error(const std::string& key, std::vector<std::pair<std::string, std::string>> args) {
    static std::mutex lock;                 // (a front end may start demos on several threads)
    static std::unique_ptr<Texts> english;  // kept once read; retried while it cannot be
    Error e{"", key, std::move(args)};
    {
        std::lock_guard<std::mutex> hold(lock);
        if (!english) {
            auto loaded = load_catalogue("en", {"common"});
            if (loaded) english = std::make_unique<Texts>(std::move(loaded.value()));
        }
        if (english && english->has(key)) e.message = (*english)(e);
    }
    if (e.message.empty()) {
        e.message = key;
        for (size_t i = 0; i < e.args.size(); ++i)
            e.message += (i ? ", " : ": ") + e.args[i].first + " = " + e.args[i].second;
    }
    return e;
}

}  // namespace icl

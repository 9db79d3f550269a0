// A demo's learner-facing text in one language. The core never holds a sentence: a demo
// asks for a message by key, with named values, and the catalogue a front end loaded from
// lessons/<lang>/catalogue/ (common.json, then <demo>.json, English beneath) supplies the
// words. Adding a language is adding a folder; no C++ changes.
//
// A message is a template with named placeholders, each with an optional printf
// precision for numbers:
//   "in this run the jump came at step {step}"         {step} an integer as written
//   "KL = {kl:.3f} nats"                                 {kl:.3f} fixed, 3 decimals
//   "{head} is the best prefix-matching head"          {head} a string
//   "{{" and "}}" are literal braces.
// A key no catalogue has renders as ⟦key⟧ (tests look for it); a placeholder without
// a value stays as {name}.
#pragma once
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"

namespace icl {

// A language code as a folder name: 2-3 lowercase letters, optionally "-" and 1-8
// letters or digits ("en", "ko", "pt-BR", "en-XA"). Anything else is an error naming it.
Expected<std::string> check_lang_code(const std::string& code);

// One named value of a message.
struct TextArg {
    TextArg(const char* name, double v) : name(name), value(v) {}
    TextArg(const char* name, int v) : name(name), value((double)v) {}
    TextArg(const char* name, long long v) : name(name), value((double)v) {}
    TextArg(const char* name, size_t v) : name(name), value((double)v) {}
    TextArg(const char* name, std::string v) : name(name), value(std::move(v)) {}
    TextArg(const char* name, const char* v) : name(name), value(std::string(v)) {}
    const char* name;
    std::variant<double, std::string> value;
};

// Fills a template's placeholders (the grammar above).
std::string fill_template(const std::string& tmpl, std::initializer_list<TextArg> args);
std::string fill_template(const std::string& tmpl, const std::vector<TextArg>& args);

class Texts {
public:
    Texts() = default;  // no catalogue: every message is its ⟦key⟧
    // `layers` from the bottom up (English common, English demo, then the language's):
    // each a JSON object of key -> string; a later layer's key wins. The error names the
    // layer (`names`, parallel) and key of a value that is not a string.
    static Expected<Texts> from_layers(const std::string& lang, const std::vector<nlohmann::json>& layers,
                                       const std::vector<std::string>& names);
    // The merged messages as one JSON object (a page carries it to its worker), and back.
    static Expected<Texts> from_json(const std::string& lang, const nlohmann::json& merged);
    const nlohmann::json& messages() const { return messages_; }
    const std::string& lang() const { return lang_; }

    bool has(const std::string& key) const;
    std::string operator()(const std::string& key, std::initializer_list<TextArg> args = {}) const;
    // An error in this language: its catalogue text filled with its values when it has a
    // key this catalogue holds, else its (English) message.
    std::string operator()(const Error& error) const;

private:
    std::string lang_ = "en";
    nlohmann::json messages_ = nlohmann::json::object();
};

// A catalogue read through the asset store (icl/assets.h, natively the lessons folder):
// for each of `files` in order, en/catalogue/<file>.json, then the same of `lang` over
// them (a key or file the language lacks shows in English; the lint lists them). A
// missing English file, a language with none of the files, or a file that is not a JSON
// object of strings is an error naming the file.
Expected<Texts> load_catalogue(const std::string& lang, const std::vector<std::string>& files);

// An error a learner can cause, as a catalogue text: `key` names it in common.json
// ("error.param_out_of_range"), `args` its values already written as text. Its message is the
// English text filled in (read once through the asset store); where no English
// catalogue can be read it is the key and its values, so nothing is lost.
Error learner_error(const std::string& key, std::vector<std::pair<std::string, std::string>> args);

}  // namespace icl

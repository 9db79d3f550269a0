// Catalogues (icl/texts.h): templates with named placeholders, English beneath a language,
// and every key a demo file asks for present in both shipped languages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "demo_testing.h"
#include "icl/demo.h"
#include "icl/format.h"
#include "icl/quiz.h"
#include "icl/texts.h"

TEST_CASE("texts: placeholders by name, with a printf precision for numbers") {
    using icl::fill_template;
    CHECK(fill_template("step {step} of {n}", {{"n", 200}, {"step", 12}}) == "step 12 of 200");
    CHECK(fill_template("KL = {kl:.3f} nats", {{"kl", 0.0123456}}) == "KL = 0.012 nats");
    CHECK(fill_template("{x:.2g} and {x:.1e}", {{"x", 12345.0}}) == "1.2e+04 and 1.2e+04");
    CHECK(fill_template("{x}", {{"x", 0.5}}) == "0.5");          // not an integer: four significant digits
    CHECK(fill_template("{x}", {{"x", 1.0 / 3}}) == "0.3333");
    CHECK(fill_template("{head} 다음 {head}", {{"head", "L1H0"}}) == "L1H0 다음 L1H0");
    CHECK(fill_template("{{literal}} {missing}", {}) == "{literal} {missing}");  // no value: stays visible
    CHECK(fill_template("{x:%n}", {{"x", 3.5}}) == "3.5");       // only .<digits><f|g|e> reaches printf
    CHECK(fill_template("unclosed {x", {{"x", 1}}) == "unclosed {x");
}

TEST_CASE("format: the display rule, row by row of its table in icl/format.h") {
    using icl::display_number;
    CHECK(display_number(std::nan("")) == "—");
    CHECK(display_number(INFINITY) == "—");
    CHECK(display_number(-INFINITY) == "—");
    CHECK(display_number(-0.0) == "0");
    CHECK(display_number(2000) == "2000");
    CHECK(display_number(-3) == "-3");
    CHECK(display_number(123456789) == "123456789");
    CHECK(display_number(0.123456) == "0.1235");
    CHECK(display_number(2.5) == "2.5");
    CHECK(display_number(-0.001) == "-0.001");
    CHECK(display_number(123456.7) == "1.235e+05");
    CHECK(display_number(1e-5) == "1e-05");
    CHECK(display_number(1e15) == "1e+15");
    CHECK(display_number(99999.9) == "1e+05");      // rounding carries into the exponent
    CHECK(display_number(0.000123456) == "0.0001235");  // exponent -4: still positional
    CHECK(display_number(-1234.5678) == "-1235");
    CHECK(display_number(0.5) == "0.5");
    // a template's {x} without a spec follows it
    CHECK(icl::fill_template("{x} and {y}", {{"x", std::nan("")}, {"y", 2000.0}}) == "— and 2000");
}

TEST_CASE("format: read_number reads a number as a person types it, and nothing else") {
    using icl::NumberRead;
    using icl::read_number;
    double v = 7;
    CHECK(read_number("1e-3", v) == NumberRead::ok);
    CHECK(v == 0.001);
    CHECK(read_number("0,5", v) == NumberRead::ok);  // a decimal comma
    CHECK(v == 0.5);
    CHECK(read_number("\u22122", v) == NumberRead::ok);  // U+2212, the minus sign
    CHECK(v == -2);
    CHECK(read_number(" -1,5e2\u00a0", v) == NumberRead::ok);  // spaces around, a no-break one too
    CHECK(v == -150);
    CHECK(read_number("1 000", v) == NumberRead::ok);  // a space grouping digits
    CHECK(v == 1000);
    v = 7;
    CHECK(read_number("", v) == NumberRead::empty);
    CHECK(read_number(" \t\u3000", v) == NumberRead::empty);
    for (const char* bad : {"abc", "1,2,3", "1.5,2", "0x1p3", "inf", "nan", "1e999", "2 e", "--1", "\xff"})
        CHECK_MESSAGE(read_number(bad, v) == NumberRead::not_number, bad);
    CHECK(v == 7);  // untouched by what it refused
    // a lesson source's: no decimal comma, no space within
    CHECK(read_number("0,5", v, icl::kSourceNumber) == NumberRead::not_number);
    CHECK(read_number("1 000", v, icl::kSourceNumber) == NumberRead::not_number);
    CHECK(read_number(" 2.5 ", v, icl::kSourceNumber) == NumberRead::ok);
    CHECK(v == 2.5);
    // non-finite words where the syntax takes them
    icl::NumberSyntax words;
    words.non_finite = true;
    CHECK(read_number("-inf", v, words) == NumberRead::ok);
    CHECK(v == -INFINITY);
    CHECK(read_number("\u221e", v, words) == NumberRead::ok);
    CHECK(v == INFINITY);
    CHECK(read_number("NaN", v, words) == NumberRead::ok);
    CHECK(std::isnan(v));
    // the readers that use it: a quiz answer, a parameter typed as text
    CHECK(icl::parse_typed_number("\u22120,25").value() == -0.25);
    CHECK(icl::parse_typed_number("abc").error().key == "error.answer_not_number");
    CHECK(icl::parse_typed_number("  ").error().key == "error.answer_empty_number");
    const std::vector<icl::ParamSpec> specs = {icl::ParamSpec::real("lr", 0, 1, 0.5, 0.1)};
    CHECK(icl::parse_param_strings(specs, {"lr=0,25"}).value()["lr"] == 0.25);
    CHECK(icl::parse_param_strings(specs, {"lr=\u22121"}).value()["lr"] == -1);  // validate_params then says out of range
    CHECK(std::isinf(icl::parse_param_strings(specs, {"lr=inf"}).value()["lr"].get<double>()));  // validate_params names it
    CHECK(icl::parse_param_strings(specs, {"lr=abc"}).error().key == "error.param_not_number");
}

TEST_CASE("texts: a language's messages over English; an unknown key shows as ⟦key⟧") {
    const nlohmann::json en = {{"title", "Dual form"}, {"note", "{n} points"}}, ko = {{"title", "쌍대 형태"}};
    auto t = icl::Texts::from_layers("ko", {en, ko}, {"en", "ko"});
    REQUIRE(t.ok());
    CHECK(t.value()("title") == "쌍대 형태");
    CHECK(t.value()("note", {{"n", 3}}) == "3 points");  // the language lacks it: English
    CHECK(t.value()("nope") == "⟦nope⟧");
    auto bad = icl::Texts::from_layers("ko", {en, {{"title", 3}}}, {"lessons/en/x.json", "lessons/ko/x.json"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "lessons/ko/x.json: 'title' is not a string");
    CHECK(icl::check_lang_code("pt-BR").ok());
    CHECK(icl::check_lang_code("en-XA").ok());
    for (const char* code : {"", "e", "EN", "english", "../en", "en/", "en-", "en-toolongregion"})
        CHECK_FALSE(icl::check_lang_code(code).ok());
}

TEST_CASE("texts: every key a demo file names is in the English and the Korean catalogue") {
    // The keys a demo asks for by literal: msg("key"), ctx_.text("key"), and the keys it
    // keeps in tables ("arm.softmax", "panel.icl", "axis.accuracy", ...: a dotted literal).
    const std::regex called(R"((?:\bmsg|ctx_\.text)\("([a-z0-9_.=-]+)\")"), dotted(R"("([a-z_]+(?:\.[a-z0-9_]+)+)\")");
    int keys = 0;
    for (const icl::DemoDef* d : icl::all_demos()) {
        if (d->id == "lesson_probe") continue;
        std::ifstream in(std::string(ICL_SOURCE_DIR) + "/core/demos/" + d->id + ".cpp");
        REQUIRE_MESSAGE(in.good(), d->id);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string src = ss.str();
        std::set<std::string> wanted;
        for (const std::regex& re : {called, dotted})
            for (auto it = std::sregex_iterator(src.begin(), src.end(), re); it != std::sregex_iterator(); ++it)
                wanted.insert((*it)[1]);
        for (const char* lang : {"en", "ko"}) {
            const icl::Texts t = icl::testing::texts(lang, d->id);
            for (const std::string& key : wanted) {
                if (key.rfind("task.", 0) == 0 && key.size() == 5) continue;
                CHECK_MESSAGE(t.has(key), std::string(lang) << "/catalogue/" << d->id << ".json lacks '" << key << "'");
                ++keys;
            }
        }
    }
    CHECK(keys > 400);
}

namespace {
// The "error.*" texts of a catalogue, by key.
std::map<std::string, std::string> error_texts(const std::string& lang) {
    std::ifstream in(std::string(ICL_SOURCE_DIR) + "/lessons/" + lang + "/catalogue/common.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    std::map<std::string, std::string> out;
    for (const auto& [key, text] : j.items())
        if (key.rfind("error.", 0) == 0) out[key] = text.get<std::string>();
    return out;
}
}  // namespace

TEST_CASE("texts: a mistake a learner can make is worded in their language, every one has its text") {
    using icl::ParamSpec;
    const std::vector<ParamSpec> specs = {
        ParamSpec::integer("n", 1, 10, 2, 1), ParamSpec::real("lr", 0.001, 1, 0.1, 0.01), ParamSpec::boolean("flag", true),
        ParamSpec::choice("opt", {"sgd", "adam"}, "sgd"), ParamSpec::text("prompt", "hot", 8, {"hot", "cold"}),
        ParamSpec::points("points", {-2, 2}, {-4, 4}, 1, 3, 0, {{0, 0}})};
    // One bad value for each way a typed parameter can be wrong (URL / CLI strings).
    const std::vector<std::string> bad = {
        "n=99", "lr=99", "n=2.5", "n=inf", "lr=nan", "n=x", "lr=x", "flag=maybe", "opt=rmsprop", "depth=3", "lr",
        "prompt=hot\x01", "prompt=hot cold hot", "prompt=hot colt", "prompt=\xff", "points=", "points=0,0;0,0;0,0;0,0",
        "points=1,inf", "points=9,0", "points=0,9", "points=1 2", "points=a,1", "points=1,b"};
    std::set<std::string> produced;
    const auto ko = icl::load_catalogue("ko", {"common"});
    REQUIRE(ko.ok());
    for (const std::string& kv : bad) {
        auto typed = icl::parse_param_strings(specs, {kv});
        const icl::Error e = typed ? icl::validate_params(specs, typed.value()).error() : typed.error();
        CHECK_MESSAGE(!e.key.empty(), kv << ": " << e.message);
        produced.insert(e.key);
        const std::string korean = ko.value()(e);
        CHECK_MESSAGE((korean != e.message && korean.find('{') == std::string::npos), kv << ": " << korean);
    }
    // Written out by hand: English as it always read; Korean from ko/catalogue/common.json.
    const auto message = [&](const std::string& kv) {
        auto typed = icl::parse_param_strings(specs, {kv});
        return typed ? icl::validate_params(specs, typed.value()).error() : typed.error();
    };
    CHECK(message("lr=99").message == "parameter 'lr' = 99 is out of range: expected a number in [0.001, 1]");
    CHECK(ko.value()(message("lr=99")) == "매개변수 'lr' = 99은(는) 범위를 벗어났습니다: [0.001, 1] 사이의 수여야 합니다");
    CHECK(ko.value()(message("prompt=hot colt")) ==
          "매개변수 'prompt': 'colt'(2번째 단어)은(는) 어휘에 없습니다. 가장 가까운 단어: cold, hot");
    CHECK(icl::parse_typed_number("abc").error().message == "'abc' is not a number: type digits such as 0.25, 0,25 or 2.5e-1");
    CHECK(ko.value()(icl::parse_typed_number("abc").error()) == "'abc'은(는) 수가 아닙니다: 0.25, 0,25, 2.5e-1처럼 숫자로 입력하세요");

    // The keys named as literals anywhere in the core, with those made above, are
    // exactly the catalogue's error texts (none missing, none left over), in en and ko.
    const std::regex literal(R"("(error\.[a-z_]*[a-z])\")");  // ("error.param_" + what is made above)
    for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(ICL_SOURCE_DIR) + "/core")) {
        if (f.path().extension() != ".cpp" && f.path().extension() != ".h") continue;  // a demo header makes some too
        std::ifstream in(f.path());
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string src = ss.str();
        for (auto it = std::sregex_iterator(src.begin(), src.end(), literal); it != std::sregex_iterator(); ++it)
            produced.insert((*it)[1]);
    }
    for (const char* lang : {"en", "ko"}) {
        std::set<std::string> have;
        for (const auto& [key, text] : error_texts(lang)) have.insert(key);
        for (const std::string& key : produced) CHECK_MESSAGE(have.count(key), lang << " lacks " << key);
        for (const std::string& key : have) CHECK_MESSAGE(produced.count(key), lang << " has " << key << ", which nothing makes");
    }
    CHECK(produced.size() > 30);
}

TEST_CASE("texts: a demo note's pointer to a lesson section names a heading that lesson has") {
    // Notes end "Why: lesson 3, “The demo: how big is the gap?”." (en) or "이유: lesson 3의
    // “…”." (ko): a renamed heading must not leave a pointer to nowhere.
    namespace fs = std::filesystem;
    const std::regex pointer(R"(lesson (\d+)(?:, |의 )“(.+?)”)");  // (bytes, not code points: no [^”])
    int pointers = 0;
    for (const char* lang : {"en", "ko"}) {
        const fs::path dir = fs::path(ICL_SOURCE_DIR) / "lessons" / lang;
        std::map<int, std::set<std::string>> headings;  // by lesson order (the file's NN-)
        for (const auto& f : fs::directory_iterator(dir)) {
            const std::string name = f.path().filename().string();
            if (f.path().extension() != ".md" || name.size() < 3 || !std::isdigit((unsigned char)name[0])) continue;
            std::ifstream in(f.path());
            for (std::string line; std::getline(in, line);)
                if (line.rfind("## ", 0) == 0 || line.rfind("### ", 0) == 0)
                {
                    std::string heading = line.substr(line.find(' ') + 1);  // as read: emphasis marks dropped
                    heading.erase(std::remove(heading.begin(), heading.end(), '*'), heading.end());
                    headings[std::stoi(name.substr(0, 2))].insert(heading);
                }
        }
        for (const auto& f : fs::directory_iterator(dir / "catalogue")) {
            if (f.path().extension() != ".json") continue;
            std::ifstream in(f.path());
            const nlohmann::json catalogue = nlohmann::json::parse(in);
            for (auto item = catalogue.begin(); item != catalogue.end(); ++item) {  // (no structured
                const std::string key = item.key(), t = item.value().get<std::string>();  // binding in CHECK: clang)
                for (auto it = std::sregex_iterator(t.begin(), t.end(), pointer); it != std::sregex_iterator(); ++it) {
                    ++pointers;
                    CHECK_MESSAGE(headings[std::stoi((*it)[1])].count((*it)[2]),
                                  f.path().filename().string() << " '" << key << "' points to lesson " << (*it)[1]
                                                               << ", “" << (*it)[2] << "”, which has no such heading");
                }
            }
        }
    }
    CHECK(pointers >= 30);
}

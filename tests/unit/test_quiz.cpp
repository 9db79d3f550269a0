// The grader (portable: these tests also run in wasm under node). Checks are written
// here as the JSON the lesson contract specifies, independently of the parser.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "icl/demo.h"
#include "icl/quiz.h"

using nlohmann::json;

namespace {

json choice_check() {
    return {{"kind", "check"}, {"id", "q"}, {"type", "choice"}, {"feedback_html", "<p>F</p>"},
            {"options", {{{"key", "a"}, {"html", "A"}, {"feedback_html", "<p>not a</p>"}},
                         {{"key", "b"}, {"html", "B"}, {"feedback_html", ""}},
                         {{"key", "c"}, {"html", "C"}, {"feedback_html", "<p>not c</p>"}}}},
            {"grading", {{"answer", "b"}}}};
}

json predict_check() {
    return {{"kind", "check"}, {"id", "p"}, {"type", "predict"}, {"feedback_html", "<p>F</p>"},
            {"options", {{{"key", "a"}, {"html", "tiny"}, {"feedback_html", ""}},
                         {{"key", "b"}, {"html", "small"}, {"feedback_html", "<p>b?</p>"}},
                         {{"key", "c"}, {"html", "large"}, {"feedback_html", ""}}}},
            {"grading", {{"demo", "dual_form"}, {"scalar", "max |difference|"},
                         {"ranges", {{"a", {0.0, 1e-4}}, {"b", {1e-4, 1e-2}}, {"c", {1e-2, nullptr}}}}}}};
}

// A Result as a demo would produce it, through the demo framework's own JSON writer.
json result_with(double value, bool done = true) {
    icl::Result r;
    r.demo = "dual_form";
    r.done = done;
    r.progress = done ? 1 : 0.5;
    r.panels.push_back(icl::ScalarsPanel{"agreement", {{"loss", 0.5, "", ""}, {"max |difference|", value, "", ""}}});
    return icl::to_json(r);
}

std::string error_of(const icl::Expected<icl::Verdict>& v) { return v ? std::string("(no error)") : v.error().message; }

}  // namespace

TEST_CASE("quiz: choice — right, wrong with the option's own feedback, malformed") {
    const json q = choice_check();
    auto right = icl::grade(q, "b");
    REQUIRE(right);
    CHECK(right.value().correct);
    CHECK(right.value().feedback_html == "<p>F</p>");
    CHECK(right.value().correct_answer == "b");

    auto wrong = icl::grade(q, "c");
    REQUIRE(wrong);
    CHECK_FALSE(wrong.value().correct);
    CHECK(wrong.value().feedback_html == "<p>F</p><p>not c</p>");

    CHECK(error_of(icl::grade(q, "d")).find("'d' is not one of the options (a, b, c)") != std::string::npos);
    CHECK(error_of(icl::grade(q, 2)).find("option key") != std::string::npos);
    CHECK(error_of(icl::grade(q, json::array({"b"}))).find("option key") != std::string::npos);
    CHECK_FALSE(icl::grade(q, nullptr));
}

TEST_CASE("quiz: multi — the chosen set must equal the answer set, order free") {
    json q = choice_check();
    q["type"] = "multi";
    q["grading"] = {{"answer", {"a", "c"}}};
    auto right = icl::grade(q, json::array({"c", "a"}));
    REQUIRE(right);
    CHECK(right.value().correct);
    CHECK(right.value().correct_answer == "a, c");
    CHECK(right.value().feedback_html == "<p>F</p><p>not a</p><p>not c</p>");

    auto subset = icl::grade(q, json::array({"a"}));
    REQUIRE(subset);
    CHECK_FALSE(subset.value().correct);
    auto superset = icl::grade(q, json::array({"a", "b", "c"}));
    REQUIRE(superset);
    CHECK_FALSE(superset.value().correct);
    auto none = icl::grade(q, json::array());
    REQUIRE(none);
    CHECK_FALSE(none.value().correct);

    CHECK(error_of(icl::grade(q, "a")).find("list of option keys") != std::string::npos);
    CHECK(error_of(icl::grade(q, json::array({"a", "a"}))).find("chosen twice") != std::string::npos);
    CHECK(error_of(icl::grade(q, json::array({"a", "z"}))).find("'z' is not one of the options") != std::string::npos);
    CHECK(error_of(icl::grade(q, json::array({1}))).find("option key") != std::string::npos);
}

TEST_CASE("quiz: truefalse") {
    const json q = {{"type", "truefalse"}, {"feedback_html", "<p>F</p>"},
                    {"options", {{{"key", "true"}, {"html", "True"}, {"feedback_html", "<p>no</p>"}},
                                 {{"key", "false"}, {"html", "False"}, {"feedback_html", ""}}}},
                    {"grading", {{"answer", false}}}};
    auto right = icl::grade(q, false);
    REQUIRE(right);
    CHECK(right.value().correct);
    CHECK(right.value().correct_answer == "false");
    auto wrong = icl::grade(q, true);
    REQUIRE(wrong);
    CHECK_FALSE(wrong.value().correct);
    CHECK(wrong.value().feedback_html == "<p>F</p><p>no</p>");
    auto as_text = icl::grade(q, "false");
    REQUIRE(as_text);
    CHECK(as_text.value().correct);
    CHECK(error_of(icl::grade(q, "yes")).find("true or false") != std::string::npos);
    CHECK(error_of(icl::grade(q, 0)).find("true or false") != std::string::npos);
}

TEST_CASE("quiz: numeric — tolerance inclusive, typed strings, bad input") {
    const json q = {{"type", "numeric"}, {"feedback_html", "<p>F</p>"}, {"options", json::array()},
                    {"grading", {{"answer", 0.2}, {"tol", 0.02}}}};
    const auto correct = [&](const json& a) {
        auto v = icl::grade(q, a);
        REQUIRE_MESSAGE(v, (a.dump() + ": " + error_of(v)));
        return v.value().correct;
    };
    CHECK(correct(0.2));
    CHECK(correct("0.2"));
    CHECK(correct(" 0.2 "));
    CHECK(correct("0,2"));        // decimal comma
    CHECK(correct("2e-1"));
    CHECK(correct("+0.21"));
    CHECK(correct("\xE3\x80\x80" "0.19\t"));  // U+3000 ideographic space around it
    // The boundary is inclusive although 0.2 - 0.18 is 0.020000000000000018 in binary.
    CHECK(correct("0.22"));
    CHECK(correct(0.18));
    CHECK_FALSE(correct(0.2201));
    CHECK_FALSE(correct("-0.2"));
    CHECK_FALSE(correct(2));
    auto v = icl::grade(q, 0.2);
    REQUIRE(v);
    CHECK(v.value().correct_answer == "0.2 ± 0.02");

    CHECK(error_of(icl::grade(q, "abc")).find("'abc' is not a number") != std::string::npos);
    CHECK(error_of(icl::grade(q, "")).find("empty") != std::string::npos);
    CHECK(error_of(icl::grade(q, "   ")).find("empty") != std::string::npos);
    CHECK_FALSE(icl::grade(q, "inf"));
    CHECK_FALSE(icl::grade(q, "nan"));
    CHECK_FALSE(icl::grade(q, "0x1p-3"));
    CHECK_FALSE(icl::grade(q, "1,000.5"));
    CHECK_FALSE(icl::grade(q, "0.2.1"));
    CHECK_FALSE(icl::grade(q, true));
    CHECK_FALSE(icl::grade(q, json::array({0.2})));
}

TEST_CASE("quiz: parse_typed_number") {
    auto v = icl::parse_typed_number(" -1,5e2 ");
    REQUIRE(v);
    CHECK(v.value() == -150.0);
    CHECK_FALSE(icl::parse_typed_number("1e999"));  // overflows to inf
    CHECK_FALSE(icl::parse_typed_number("\xff"));   // not UTF-8
}

TEST_CASE("quiz: text — case, white space and punctuation do not matter; Korean as given") {
    const json q = {{"type", "text"}, {"feedback_html", "<p>F</p>"}, {"options", json::array()},
                    {"grading", {{"accepted", {"cold", "차가운", "in context"}}}}};
    const auto correct = [&](const std::string& a) {
        auto v = icl::grade(q, a);
        REQUIRE_MESSAGE(v, (a + ": " + error_of(v)));
        return v.value().correct;
    };
    CHECK(correct("cold"));
    CHECK(correct("Cold!"));
    CHECK(correct("  COLD.  "));
    CHECK(correct("\xE2\x80\x9C" "cold" "\xE2\x80\x9D"));          // “cold”
    CHECK(correct("차가운"));
    CHECK(correct("차가운。"));                                    // CJK full stop
    CHECK(correct("\xE3\x80\x80차가운\xEF\xBC\x81"));              // U+3000 + full-width !
    CHECK(correct("「차가운」"));
    CHECK(correct("In   Context"));
    CHECK(correct("in\xE3\x80\x80" "context"));                    // ideographic space inside
    CHECK(correct("in\xC2\xA0" "context?"));                       // no-break space
    CHECK(correct("In-Context"));
    CHECK(correct("in\xE2\x80\x94" "context"));                  // em dash
    CHECK_FALSE(correct("incontext"));
    CHECK_FALSE(correct("colder"));
    CHECK_FALSE(correct("차가움"));
    CHECK_FALSE(correct("hot"));
    auto v = icl::grade(q, "hot");
    REQUIRE(v);
    CHECK(v.value().correct_answer == "cold");

    CHECK(error_of(icl::grade(q, "")).find("empty") != std::string::npos);
    CHECK(error_of(icl::grade(q, "?!")).find("empty") != std::string::npos);
    CHECK(error_of(icl::grade(q, 3)).find("must be text") != std::string::npos);
    CHECK(error_of(icl::grade(q, "c\xC3")).find("UTF-8") != std::string::npos);      // truncated
    CHECK(error_of(icl::grade(q, "\xC0\xAF")).find("UTF-8") != std::string::npos);  // overlong '/'
    CHECK(error_of(icl::grade(q, "\xED\xA0\x80")).find("UTF-8") != std::string::npos);  // surrogate
}

TEST_CASE("quiz: normalize_text_answer") {
    auto n = icl::normalize_text_answer("  Hello,\t WORLD\xE3\x80\x82 ");
    REQUIRE(n);
    CHECK(n.value() == "hello world");
    auto apostrophe = icl::normalize_text_answer("Don't -- stop/go");
    REQUIRE(apostrophe);
    CHECK(apostrophe.value() == "dont stop go");
    auto k = icl::normalize_text_answer("Ünïcode 한국어");   // non-ASCII letters kept as given
    REQUIRE(k);
    CHECK(k.value() == "Ünïcode 한국어");
}

TEST_CASE("quiz: predict — the demo's own scalar decides which option is right") {
    const json q = predict_check();
    auto tiny = icl::grade(q, "a", result_with(3e-7));
    REQUIRE(tiny);
    CHECK(tiny.value().correct);
    CHECK(tiny.value().correct_answer == "a");

    auto other = icl::grade(q, "a", result_with(5e-3));
    REQUIRE(other);
    CHECK_FALSE(other.value().correct);
    CHECK(other.value().correct_answer == "b");
    CHECK(other.value().feedback_html == "<p>F</p>");

    // Half-open ranges: 1e-4 belongs to b, not a; null hi is +infinity.
    auto edge = icl::grade(q, "b", result_with(1e-4));
    REQUIRE(edge);
    CHECK(edge.value().correct);
    auto huge = icl::grade(q, "c", result_with(1e30));
    REQUIRE(huge);
    CHECK(huge.value().correct);
}

TEST_CASE("quiz: predict — malformed answers and results are readable errors") {
    const json q = predict_check();
    CHECK(error_of(icl::grade(q, "a")).find("run the demo first") != std::string::npos);
    CHECK(error_of(icl::grade(q, "a", result_with(1e-7, false))).find("still running") != std::string::npos);
    CHECK(error_of(icl::grade(q, "z", result_with(1e-7))).find("'z' is not one of the options") != std::string::npos);
    CHECK(error_of(icl::grade(q, 1, result_with(1e-7))).find("option key") != std::string::npos);

    json no_scalar = result_with(1e-7);
    no_scalar["panels"][0]["items"].erase(1);
    CHECK(error_of(icl::grade(q, "a", no_scalar)).find("no scalar 'max |difference|' (it has: loss)") != std::string::npos);

    json failed = result_with(1e-7);
    failed["error"] = "training diverged at step 3";
    CHECK(error_of(icl::grade(q, "a", failed)).find("training diverged at step 3") != std::string::npos);

    // A non-finite value is written as null by the Result writer.
    CHECK(error_of(icl::grade(q, "a", result_with(NAN))).find("not a finite number") != std::string::npos);
    // A negative value lies in no option's range: the check itself is at fault.
    CHECK(error_of(icl::grade(q, "a", result_with(-1.0))).find("none of the options' ranges") != std::string::npos);
    CHECK_FALSE(icl::grade(q, "a", json::array()));
}

TEST_CASE("quiz: malformed checks are errors, not crashes") {
    CHECK_FALSE(icl::grade(json(), "a"));
    CHECK_FALSE(icl::grade(json::array(), "a"));
    CHECK(error_of(icl::grade({{"type", "essay"}, {"grading", json::object()}}, "a")).find("unknown type") != std::string::npos);
    CHECK_FALSE(icl::grade({{"type", "choice"}, {"grading", {{"answer", 3}}}}, "a"));
    CHECK_FALSE(icl::grade({{"type", "numeric"}, {"grading", {{"answer", 1}}}}, 1));
    CHECK_FALSE(icl::grade({{"type", "text"}, {"grading", {{"accepted", json::array()}}}}, "x"));
    json bad_range = predict_check();
    bad_range["grading"]["ranges"]["a"] = "small";
    CHECK(error_of(icl::grade(bad_range, "a", result_with(1e-7))).find("range of option 'a'") != std::string::npos);
}

// The class report's counts (icl/class_report.h) for the fixture class in tests/cli/class:
// ann and ben<i> as xAPI statements (listed out of time order, with an "attempted"
// statement and an answer to a check the lesson lacks), carol as an answers CSV, dan as
// a progress document. The expected counts below were worked out by hand from those
// files (the comments say how); they are not the code's output pasted back.
#include <doctest/doctest.h>

#include <string>

#include "icl/class_report.h"
#include "icl/file_read.h"

namespace cr = icl::classroom;
using nlohmann::json;

namespace {
std::string fixture(const std::string& name) {
    auto text = icl::read_regular_file(std::string(ICL_TEST_DATA_DIR) + "/cli/class/" + name, 1 << 20);
    REQUIRE(text);
    return text.value();
}
json check(const std::string& id) { return {{"id", id}}; }
}  // namespace

TEST_CASE("class report: the fixture class's counts") {
    cr::Class cls;
    auto used = cls.add_statements(json::parse(fixture("statements.json")));
    REQUIRE(used);
    CHECK(used.value() == 9);   // 10 statements, one "attempted"
    REQUIRE(cls.add_csv("carol", fixture("carol.csv")));
    auto dan = icl::progress::read(fixture("dan.json"));
    REQUIRE(dan);
    cls.add_document("dan", dan.value().doc);
    const cr::Report r = cls.report({{"dual-form", {check("dual-form-scores"), check("dual-form-unnormalised"),
                                                    check("dual-form-roles"), check("dual-form-adam"), check("dual-form-by-hand")}}});
    REQUIRE(r.checks.size() == 5);
    CHECK(r.total_checks == 5);
    CHECK(r.unknown == std::vector<std::string>{"dual-form/no-such"});
    using W = std::vector<std::pair<std::string, int>>;
    // scores: ann a (10:01) then b; ben b; carol right in 1 attempt; dan d in 1 attempt.
    CHECK(r.checks[0].answered == 4);
    CHECK(r.checks[0].first_known == 4);
    CHECK(r.checks[0].first_right == 2);
    CHECK(r.checks[0].wrong == W{{"a", 1}, {"d", 1}});
    // unnormalised: ann c; ben a (10:01), d (10:04), c (10:05); carol wrong after 2 attempts.
    CHECK(r.checks[1].answered == 3);
    CHECK(r.checks[1].first_known == 2);
    CHECK(r.checks[1].first_right == 1);
    CHECK(r.checks[1].wrong == W{{"a", 1}, {"d", 1}});
    // roles: ben "a[,]c" right; dan ["a"] wrong after 3 attempts (first try unknown).
    CHECK(r.checks[2].answered == 2);
    CHECK(r.checks[2].first_known == 1);
    CHECK(r.checks[2].first_right == 1);
    CHECK(r.checks[2].wrong == W{{"a", 1}});
    // adam: carol wrong at her only attempt; the CSV keeps no answer.
    CHECK(r.checks[3].answered == 1);
    CHECK(r.checks[3].first_known == 1);
    CHECK(r.checks[3].first_right == 0);
    CHECK(r.checks[3].wrong.empty());
    CHECK(r.checks[4].answered == 0);
    REQUIRE(r.learners.size() == 4);
    CHECK(r.learners[0].name == "ann");    CHECK(r.learners[0].answered == 2); CHECK(r.learners[0].right == 2);
    CHECK(r.learners[1].name == "ben<i>"); CHECK(r.learners[1].answered == 3); CHECK(r.learners[1].right == 3);
    CHECK(r.learners[2].name == "carol");  CHECK(r.learners[2].answered == 3); CHECK(r.learners[2].right == 1);
    CHECK(r.learners[3].name == "dan");    CHECK(r.learners[3].answered == 2); CHECK(r.learners[3].right == 0);
}

TEST_CASE("class report: a check that moved to another lesson (from=) keeps the answers given under its old lesson") {
    cr::Class cls;
    REQUIRE(cls.add_csv("carol", fixture("carol.csv")));
    // dual-form-adam and dual-form-by-hand moved to lesson "split"; carol answered adam
    // (wrong, one attempt) while it was in dual-form.
    json adam = check("dual-form-adam"), by_hand = check("dual-form-by-hand");
    adam["from"] = "dual-form";
    by_hand["from"] = "dual-form";
    const cr::Report r = cls.report({{"dual-form", {check("dual-form-scores"), check("dual-form-unnormalised"), check("dual-form-roles")}},
                                     {"split", {adam, by_hand}}});
    REQUIRE(r.checks.size() == 5);
    CHECK(r.checks[3].lesson == "split");
    CHECK(r.checks[3].answered == 1);
    CHECK(r.checks[3].first_right == 0);
    CHECK(r.unknown.empty());
    REQUIRE(r.learners.size() == 1);
    CHECK(r.learners[0].answered == 3);
    CHECK(r.learners[0].answered_by_lesson == std::map<std::string, int>{{"dual-form", 2}, {"split", 1}});
}

TEST_CASE("class report: bad input is refused with its place named") {
    cr::Class cls;
    CHECK(cls.add_statements(json::object()).error().message.find("not a JSON array") != std::string::npos);
    CHECK(cls.add_statements(json::array({1})).error().message == "statement 0 is not an object");
    const json no_success = json::array({{{"actor", {{"name", "x"}}},
                                          {"verb", {{"id", "http://adlnet.gov/expapi/verbs/answered"}}},
                                          {"object", {{"id", cr::check_activity("l", "c")}}},
                                          {"timestamp", "2026-01-01T00:00:00Z"}}});
    CHECK(cls.add_statements(no_success).error().message == "statement 0 (answered l/c) has no result.success");
    CHECK(cls.add_csv("x", "a,b\n").error().message.find("line 1") != std::string::npos);
    CHECK(cls.add_csv("x", "lesson,check,correct,attempts,last_answered\nl,c,maybe,1,\n").error().message.find("line 2") != std::string::npos);
    std::string lesson, chk;
    CHECK(cr::parse_check_activity("urn:icl-lab:check:dual-form/q1", lesson, chk));
    CHECK(lesson == "dual-form");
    CHECK(chk == "q1");
    CHECK_FALSE(cr::parse_check_activity("urn:icl-lab:lesson:dual-form", lesson, chk));
}

// The progress document (icl/progress.h): the review schedule on fixed dates, merging,
// the bounds on reading, old versions, unfit stored answers, the CSV summary. The
// expected intervals and dates are the documented schedule's, written out here.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "icl/progress.h"
#include "icl/quiz.h"
#include "icl/worker_api.h"

using nlohmann::json;
namespace pg = icl::progress;

namespace {

constexpr int64_t kMin = 60000, kDay = 86400000;
constexpr int64_t kT0 = 1764590400000;   // 2025-12-01T12:00:00Z

json minimal_choice_check() {
    return {{"id", "q"}, {"type", "choice"}, {"feedback_html", ""},
            {"options", {{{"key", "a"}, {"html", "A"}}, {{"key", "b"}, {"html", "B"}}}},
            {"grading", {{"answer", "b"}}}};
}
pg::Document fr_doc() {
    pg::Document d;
    d.lang = "fr";
    pg::record_answer(d, "other", "q", "a", true, kT0);
    return d;
}
json minimal_multi_check() {
    return {{"id", "m"}, {"type", "multi"}, {"feedback_html", ""},
            {"options", {{{"key", "a"}, {"html", "A"}}, {{"key", "b"}, {"html", "B"}}, {{"key", "c"}, {"html", "C"}}}},
            {"grading", {{"answer", {"a", "c"}}}}};
}

std::string nested(int depth) {
    return "{\"version\": 2, \"checks\": {\"l\": {\"q\": {\"correct\": true, \"attempts\": 1, \"box\": 1, \"due\": 0, "
           "\"answer\": " + std::string(depth, '[') + std::string(depth, ']') + "}}}}";
}

}  // namespace

TEST_CASE("progress schedule: a miss is due in 10 minutes, right answers climb the Leitner boxes (fixed dates)") {
    pg::Document d;
    pg::record_answer(d, "l", "q", "a", false, kT0);
    const pg::Record& r = d.checks["l"]["q"];
    CHECK(r.box == 0);
    CHECK(r.due == kT0 + 10 * kMin);
    CHECK(pg::due_checks(d, kT0 + 9 * kMin).empty());
    REQUIRE(pg::due_checks(d, kT0 + 10 * kMin).size() == 1);
    // Right when due: box 1, back in a day; right again early: still box 1.
    pg::record_answer(d, "l", "q", "b", true, kT0 + 11 * kMin);
    CHECK(r.box == 1);
    CHECK(r.due == kT0 + 11 * kMin + kDay);
    pg::record_answer(d, "l", "q", "b", true, kT0 + 12 * kMin);
    CHECK(r.box == 1);
    CHECK(r.due == kT0 + 12 * kMin + kDay);
    // Each right answer on its due date: 3, 7, 16, 35 days, then 35 again (box 5 is the last).
    int64_t now = r.due;
    const int64_t expected[] = {3, 7, 16, 35, 35};
    for (int64_t days : expected) {
        CHECK(pg::due_checks(d, now - 1).empty());
        CHECK(pg::due_checks(d, now).size() == 1);
        pg::record_answer(d, "l", "q", "b", true, now);
        CHECK(r.due == now + days * kDay);
        now = r.due;
    }
    CHECK(r.box == 5);
    CHECK(r.attempts == 8);
    pg::record_answer(d, "l", "q", "a", false, now);
    CHECK(r.box == 0);
    CHECK(r.due == now + 10 * kMin);
    // A new check answered right: box 1. The longest overdue comes first.
    pg::record_answer(d, "l", "r", "b", true, kT0);
    const auto due = pg::due_checks(d, now + 400 * kDay);
    REQUIRE(due.size() == 2);
    CHECK(due[0].check == "r");
    CHECK(d.checks["l"]["r"].box == 1);
}

TEST_CASE("progress merge: the later answer per check wins, attempts never shrink, nothing is dropped") {
    pg::Document mine, theirs;
    pg::record_answer(mine, "l1", "a", "x", false, kT0);
    pg::record_answer(mine, "l1", "a", "x", false, kT0 + 1);   // 2 attempts, older
    pg::record_answer(mine, "l1", "b", "y", true, kT0 + 50);   // newer than theirs
    pg::record_answer(mine, "l2", "only-mine", "z", true, kT0);
    pg::record_answer(theirs, "l1", "a", "b", true, kT0 + 10);  // 1 attempt, newer
    pg::record_answer(theirs, "l1", "b", "n", false, kT0 + 20);
    pg::record_answer(theirs, "l3", "only-theirs", "w", true, kT0);
    const pg::MergeCount count = pg::merge(mine, theirs);
    CHECK(count.added == 1);
    CHECK(count.updated == 1);
    CHECK(mine.checks["l1"]["a"].answer == "b");
    CHECK(mine.checks["l1"]["a"].correct);
    CHECK(mine.checks["l1"]["a"].attempts == 2);
    CHECK(mine.checks["l1"]["b"].answer == "y");
    CHECK(mine.checks.at("l2").count("only-mine") == 1);
    CHECK(mine.checks.at("l3").count("only-theirs") == 1);
    // Merging the same document again changes nothing; a round trip through text keeps it all.
    const std::string before = pg::write(mine);
    pg::merge(mine, theirs);
    CHECK(pg::write(mine) == before);
    auto again = pg::read(before);
    REQUIRE(again);
    CHECK(again.value().skipped == 0);
    CHECK(pg::write(again.value().doc) == before);
}

TEST_CASE("progress bounds: deep nesting, a huge text and too many records are refused before parsing") {
    const auto t0 = std::chrono::steady_clock::now();
    auto deep = pg::read(nested(100000));
    REQUIRE_FALSE(deep);
    CHECK(deep.error().message.find("nested 100004 deep") != std::string::npos);
    // The 20 KB file that a pretty-printing writer turned into 200 MB: refused as it is.
    const std::string ten_k = nested(10000);
    CHECK(ten_k.size() < 21000);
    CHECK_FALSE(pg::read(ten_k));
    CHECK(pg::read(nested(3)));   // shallow answers are fine
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
    auto huge = pg::read(std::string(2 << 20, ' '));
    REQUIRE_FALSE(huge);
    CHECK(huge.error().message.find("more than the 1048576") != std::string::npos);
    // Brackets inside strings do not count as nesting.
    auto in_string = pg::read("{\"version\": 2, \"checks\": {}, \"last_lesson\": \"" + std::string(100, '[') + "\"}");
    CHECK(in_string);
    pg::Bounds small;
    small.max_records = 3;
    std::string many = "{\"version\": 1, \"checks\": {\"l\": {";
    for (int k = 0; k < 5000; ++k) many += (k ? "," : "") + std::string("\"c") + std::to_string(k) + "\": {\"correct\": true}";
    CHECK_FALSE(pg::read(many + "}}}", small));
}

TEST_CASE("progress read: bad frames are errors, bad records are skipped and counted, version 1 is read") {
    CHECK_FALSE(pg::read("{\"version\": 2, \"checks\": "));
    CHECK_FALSE(pg::read("[]"));
    CHECK_FALSE(pg::read("{\"version\": 3, \"checks\": {}}"));
    auto partly = pg::read(
        "{\"version\": 2, \"checks\": {\"l\": {\"good\": {\"correct\": true, \"answer\": \"a\", \"attempts\": 2, "
        "\"at\": 5, \"box\": 1, \"due\": 9}, \"bad-box\": {\"correct\": true, \"attempts\": 1, \"box\": 9, \"due\": 0},"
        "\"no-correct\": {\"answer\": 1}}, \"not-object\": 3}}");
    REQUIRE(partly);
    CHECK(partly.value().skipped == 3);
    CHECK(partly.value().doc.checks.at("l").size() == 1);
    CHECK(partly.value().doc.checks.at("l").at("good").due == 9);
    // The desktop app's version 1 and the lesson pages' version 1.
    auto desktop = pg::read(
        "{\"version\": 1, \"lang\": \"ko\", \"last_lesson\": \"l\", \"checks\": {\"l\": {\"q\": {\"correct\": true, "
        "\"answer\": \"b\"}}}}");
    REQUIRE(desktop);
    CHECK(desktop.value().doc.lang == "ko");
    CHECK(desktop.value().doc.checks.at("l").at("q").answer == "b");
    CHECK(desktop.value().doc.checks.at("l").at("q").box == 1);
    auto page = pg::read("{\"version\": 1, \"checks\": {\"l/q\": {\"correct\": false, \"answer\": [\"a\"], \"at\": 7}}}");
    REQUIRE(page);
    CHECK(page.value().skipped == 0);
    CHECK(page.value().doc.checks.at("l").at("q").at == 7);
    CHECK(pg::due_checks(page.value().doc, 7).size() == 1);
    CHECK(pg::read("").value().doc.checks.empty());
}

TEST_CASE("progress: a stored answer that does not fit its check is dropped with a notice, and the check grades again") {
    auto r = pg::read(
        "{\"version\": 2, \"checks\": {\"l\": {\"q\": {\"correct\": false, \"answer\": \"zzz\", \"attempts\": 1, "
        "\"at\": 1, \"box\": 0, \"due\": 2}, \"m\": {\"correct\": true, \"answer\": [\"a\", \"zzz\"], \"attempts\": 4, "
        "\"at\": 1, \"box\": 2, \"due\": 2}, \"other\": {\"correct\": true, \"answer\": \"b\", \"attempts\": 1, "
        "\"at\": 1, \"box\": 1, \"due\": 2}}}}");
    REQUIRE(r);
    pg::Document d = r.value().doc;
    const auto notices = pg::drop_unfit_answers(d, "l", {minimal_choice_check(), minimal_multi_check()});
    REQUIRE(notices.size() == 2);
    CHECK(notices[0].find("\"l/q\" was dropped ('zzz' is not one of the options (a, b))") != std::string::npos);
    CHECK(notices[1].find("\"l/m\"") != std::string::npos);
    CHECK(d.checks["l"]["q"].answer.is_null());
    CHECK(d.checks["l"]["m"].attempts == 4);              // the rest of the record stays
    CHECK(d.checks["l"]["other"].answer == "b");          // a check this lesson does not list is kept as it is
    CHECK(icl::grade(minimal_choice_check(), "b").value().correct);
    CHECK(icl::validate_answer(minimal_multi_check(), json::array({"a", "c"})));
    CHECK_FALSE(icl::validate_answer(minimal_multi_check(), json::array({"a", "a"})));
}

TEST_CASE("progress summary CSV: one row per check, quoted, dates in UTC, no spreadsheet formulas") {
    pg::Document d;
    pg::record_answer(d, "l", "q", "b", true, kT0);
    pg::record_answer(d, "l", "q", "a", false, kT0 + 59 * kMin + 1000);
    pg::record_answer(d, "=cmd", "a,\"b\"", "a", true, 951868799000);   // 2000-02-29T23:59:59Z
    CHECK(pg::summary_csv(d) ==
          "lesson,check,correct,attempts,last_answered\r\n"
          "'=cmd,\"a,\"\"b\"\"\",true,1,2000-02-29T23:59:59Z\r\n"
          "l,q,false,2,2025-12-01T12:59:01Z\r\n");
    CHECK(pg::iso_utc(0) == "1970-01-01T00:00:00Z");
}

TEST_CASE("progress lang: any language code is kept, and a bad one does not discard the document") {
    // An added lessons/fr/ folder wrote "fr"; every later start used to set the file aside.
    auto fr = pg::read(R"({"version": 2, "lang": "fr", "checks": {"l": {"q": {"correct": true, "attempts": 1, "at": 5, "box": 1, "due": 9}}}})");
    REQUIRE(fr);
    CHECK(fr.value().doc.lang == "fr");
    CHECK(fr.value().doc.checks.at("l").size() == 1);
    CHECK(pg::read(pg::write(fr.value().doc)).value().doc.lang == "fr");
    for (const char* bad : {R"("../en")", "42", "null", R"("")"}) {
        auto r = pg::read(std::string(R"({"version": 1, "lang": )") + bad + R"(, "checks": {"l": {"q": {"correct": true}}}})");
        REQUIRE(r);
        CHECK(r.value().doc.lang == "en");
        CHECK(r.value().doc.checks.at("l").size() == 1);
    }
}

TEST_CASE("progress writer and reader: what is stored always reads back; an import that would not is refused") {
    // 10,500 records, each small: the import itself is under 1 MiB, the merged file written
    // with one more record a line used to be 1,071,740 bytes, refused on the next start.
    std::string big = R"({"version":2,"checks":{"l":{)";
    for (int i = 0; i < 10500; ++i)
        big += std::string(i ? "," : "") + "\"c" + std::to_string(i) +
               R"(":{"answer":"a","correct":true,"attempts":1,"at":1764590400000,"box":1,"due":1764590400000})";
    big += "}}}";
    REQUIRE(big.size() <= pg::Bounds{}.max_bytes);
    auto in = pg::read(big);
    REQUIRE(in);
    CHECK(in.value().skipped == 0);
    REQUIRE(pg::write(in.value().doc).size() > pg::Bounds{}.max_bytes);   // the writer's form is larger
    auto fits = pg::fits(in.value().doc);
    REQUIRE_FALSE(fits);
    CHECK(fits.error().message.find("the progress would not read back (it is ") != std::string::npos);
    icl::WorkerApi api;
    pg::Document mine;
    pg::record_answer(mine, "dual-form", "q", "b", true, kT0);
    const json merged = json::parse(api.progress_merge(pg::write(mine), big, (double)kT0));
    REQUIRE(merged.contains("error"));
    CHECK(merged["error"].get<std::string>().find("nothing was imported") != std::string::npos);
    // A small import is merged, and what comes back reads back.
    const json ok = json::parse(api.progress_merge(pg::write(mine), pg::write(fr_doc()), (double)kT0));
    REQUIRE_FALSE(ok.contains("error"));
    CHECK(ok["added"] == 1);
    CHECK(pg::read(ok["text"].get<std::string>()).value().skipped == 0);
}

TEST_CASE("progress answers: one past the record bound is refused before it is stored") {
    // A 4,900-character text answer was stored, then refused on the next read.
    const json long_text = std::string(4900, 'x');
    auto refused = pg::check_answer(long_text);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "the answer is 4902 bytes, more than the 4096 a saved answer may have");
    CHECK(pg::check_answer(std::string(4094, 'x')));
    json deep = "x";
    for (int i = 0; i < 13; ++i) deep = json::array({deep});
    CHECK_FALSE(pg::check_answer(deep));
    icl::WorkerApi api;
    const json r = json::parse(api.progress_record("", "l", "q", long_text.dump(), false, (double)kT0));
    REQUIRE(r.contains("error"));
    CHECK(r["error"].get<std::string>().find("more than the 4096") != std::string::npos);
    const json fine = json::parse(api.progress_record("", "l", "q", json(std::string(4000, 'x')).dump(), false, (double)kT0));
    REQUIRE_FALSE(fine.contains("error"));
    CHECK(pg::read(fine["text"].get<std::string>()).value().skipped == 0);
}

TEST_CASE("progress times: a record dated near 2^53 is bounded to the present and loses to a later answer") {
    const std::string future = R"({"version": 2, "checks": {"l": {"q": {"answer": "a", "correct": false, "attempts": 1, )"
                               R"("at": 9007199254740000, "box": 0, "due": 9007199254740991}}}})";
    REQUIRE(pg::read(future));
    icl::WorkerApi api;
    pg::Document mine;
    pg::record_answer(mine, "l", "q", "b", true, kT0 - kDay);
    const json merged = json::parse(api.progress_merge(pg::write(mine), future, (double)kT0));
    REQUIRE_FALSE(merged.contains("error"));
    const pg::Document d = pg::read(merged["text"].get<std::string>()).value().doc;
    CHECK(d.checks.at("l").at("q").at == kT0);                       // bounded to now
    CHECK(d.checks.at("l").at("q").due <= kT0 + pg::interval_ms(pg::kMaxBox));
    // An answer given a minute later on another device wins the merge (it used to lose forever).
    pg::Document other;
    pg::record_answer(other, "l", "q", "b", true, kT0 + kMin);
    const json next = json::parse(api.progress_merge(merged["text"].get<std::string>(), pg::write(other), (double)(kT0 + 2 * kMin)));
    REQUIRE_FALSE(next.contains("error"));
    CHECK(next["updated"] == 1);
    const pg::Document after = pg::read(next["text"].get<std::string>()).value().doc;
    CHECK(after.checks.at("l").at("q").answer == "b");
    CHECK(after.checks.at("l").at("q").at == kT0 + kMin);
}

TEST_CASE("progress summary CSV: ids starting with TAB or CR are neutralised for spreadsheets") {
    pg::Document d;
    pg::record_answer(d, "\tl", "\rq", "b", true, kT0);
    CHECK(pg::summary_csv(d) == "lesson,check,correct,attempts,last_answered\r\n'\tl,\"'\rq\",true,1,2025-12-01T12:00:00Z\r\n");
}

// A learner's progress: one document, read and written by core for every front end —
// the lesson pages (localStorage, through the worker API), the desktop app (a file
// under $XDG_STATE_HOME/icl-lab/) and /lab/ (localStorage). Import, export, merging,
// the review schedule and the teacher's CSV summary all live here. Portable (wasm too).
//
// The document, version 2 (JSON; times are milliseconds since the Unix epoch):
//
//   {"version": 2, "lang": "ko", "last_lesson": "dual-form",   (lang: any language
//                                code, see icl/texts.h; one that is not a code is ignored)
//    "checks": {"dual-form": {"dual-form-scores": {
//        "answer": "b",        the last answer, in icl::grade's form (quiz.h); null when
//                              a stored answer did not fit its check and was dropped
//        "correct": false,     the last answer's verdict
//        "attempts": 3,        answers given so far
//        "at": 1764590400000,  when the last answer was given
//        "box": 0,             Leitner box 0..5 (see schedule below)
//        "due": 1764591000000  when the check comes back for review
//    }}}}
//
// Version 1 documents are read too: the desktop app's ({"version": 1, "lang", ...,
// "checks": {lesson: {check: {"correct", "answer"}}}}) and the lesson pages' ({"version":
// 1, "checks": {"<lesson>/<check>": {"correct", "answer", "at"}}}); their records come
// back due at once (box 1, due = the time of the answer or 0).
//
// Reading is bounded (Bounds): a text past max_bytes, nested deeper than max_depth, or
// holding more than max_records is refused whole, before it is parsed, so a hostile
// file can neither crash nor grow the reader. A document whose frame is wrong is an
// Error (the front end sets the text aside); single records that are malformed are
// skipped and counted, and the rest is kept.
//
// Review schedule (Leitner): a wrong answer puts the check in box 0, due 10 minutes
// later; a right answer given when the check was due (or new) moves it up one box, to
// at most 5; a right answer before it was due keeps the box. The check is due again
// after interval(box) = 10 min, 1, 3, 7, 16, 35 days for boxes 0..5 — so misses come
// back soon and old right answers come back, ever more rarely.
//
// Merge (import, and every save of the desktop app, which re-reads the file under a
// lock first): the union of both documents' checks; where both hold a check, the
// record answered later wins, with attempts = the larger of the two. Nothing is dropped.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"

namespace icl::progress {

constexpr int kVersion = 2;
constexpr int kMaxBox = 5;

struct Bounds {
    size_t max_bytes = 1 << 20;       // 1 MiB: a learner's whole progress is a few KB
    int max_depth = 16;               // nesting of arrays and objects
    size_t max_records = 20000;
    size_t max_answer_bytes = 4096;   // an answer's JSON text
};

struct Record {
    nlohmann::json answer;   // null: no answer kept
    bool correct = false;
    int64_t attempts = 0;
    int64_t at = 0;          // ms since the epoch, UTC
    int box = 0;
    int64_t due = 0;         // ms
};

struct Document {
    std::string lang = "en";
    std::string last_lesson;
    std::map<std::string, std::map<std::string, Record>> checks;   // lesson -> check -> record
};

struct Read {
    Document doc;
    int skipped = 0;             // malformed records left out
    std::string first_skipped;   // what was wrong with the first of them
};

// Parses a document (version 1 or 2). An empty text is an empty document.
Expected<Read> read(const std::string& text, const Bounds& bounds = {});
// The JSON text of a document (version 2, one record per line).
std::string write(const Document& doc);
nlohmann::json to_json(const Document& doc);

// What every writer checks before it stores a document: that write(doc) reads back
// under `bounds` with no record skipped — the writer never stores what the reader
// refuses. An error says what is past which bound (too many bytes, records, ...).
Status fits(const Document& doc, const Bounds& bounds = {});
// An answer that can be stored (at most max_answer_bytes of JSON, nested within the
// depth bound once inside its record); the front ends check it where it is typed.
Status check_answer(const nlohmann::json& answer, const Bounds& bounds = {});
// Times bounded to the present: an "at" later than now_ms becomes now_ms (a record
// dated near 2^53 would otherwise win every merge forever) and a "due" later than
// now_ms + interval_ms(kMaxBox) becomes that.
void bound_times(Document& doc, int64_t now_ms);

// The interval before a check in `box` is due again, in ms.
int64_t interval_ms(int box);
// Records an answer graded `correct` at time now_ms: attempts + 1, the box and due date
// by the schedule above.
void record_answer(Document& doc, const std::string& lesson, const std::string& check,
                   const nlohmann::json& answer, bool correct, int64_t now_ms);

struct MergeCount {
    int added = 0;     // checks only `from` had
    int updated = 0;   // checks where `from` had the later answer
};
// Merges `from` into `into` (see above). lang and last_lesson stay `into`'s unless it
// has none.
MergeCount merge(Document& into, const Document& from);

struct DueCheck {
    std::string lesson, check;
    int64_t due = 0;
};
// Checks due at now_ms, the longest overdue first.
std::vector<DueCheck> due_checks(const Document& doc, int64_t now_ms);

// "lesson,check,correct,attempts,last_answered\n" and one line per record (RFC 4180
// quoting; a field starting with = + - @ TAB or CR gets a leading ' so a spreadsheet does not run
// it; last_answered as 2026-12-01T14:05:09Z).
std::string summary_csv(const Document& doc);

// The ISO 8601 UTC form of a time in ms ("1970-01-01T00:00:00Z").
std::string iso_utc(int64_t ms);

// Stored answers that do not fit their check (an option the check does not have, a
// list for a choice, ...) are dropped (answer = null; the verdict, attempts and dates
// stay), so a saved "zzz" cannot make the check ungradable. `checks` are the lesson's
// check JSONs (quiz.h). Returns one message per dropped answer.
std::vector<std::string> drop_unfit_answers(Document& doc, const std::string& lesson,
                                            const std::vector<nlohmann::json>& checks);

// A check that a lesson took over from another (its JSON says "from": "<old lesson>",
// from=... in the source) takes its saved record along: the record under (old lesson,
// check) moves to (lesson, check) — the later answer wins if both hold one, attempts
// the larger — and the old one is removed. Returns how many records moved; a check
// without "from", or with nothing saved under it, moves nothing.
int move_checks(Document& doc, const std::string& lesson, const std::vector<nlohmann::json>& checks);

}  // namespace icl::progress

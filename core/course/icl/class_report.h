// A class's answers, gathered for the teacher (`icl class report`): per check, how many
// learners answered it, how many were right at their first try, and which wrong answers
// they gave; per learner, how far they got. The CLI writes it as a page; this file only
// counts, so the counts are tested without files.
//
// What it reads, each as the learner's record of a check:
//  - xAPI statements (web/src/xapi.js): "answered" statements whose object is
//    urn:icl-lab:check:<lesson>/<check>, with result.success and result.response (an
//    option key, true/false, the typed text, or a multi answer's keys joined by "[,]",
//    the cmi.interaction form). Per actor and check, ordered by timestamp: the first
//    statement is the first try; every wrong response is a wrong answer given.
//  - a progress document (icl/progress.h) or the answers CSV the desktop app exports
//    (summary_csv), one learner a file: they keep the last answer and the attempt count
//    only, so the first try is known when there was one attempt (then it is the last),
//    and a wrong answer is known only from a document's last answer. Unknown first tries
//    are counted apart, never guessed.
// A learner is the actor's account name (else mbox, else name) or the file's name.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"
#include "icl/progress.h"

namespace icl::classroom {

struct Seen {                 // one learner, one check
    int first = -1;           // the first try: 1 right, 0 wrong, -1 not known
    bool last_correct = false;
    std::map<std::string, int> wrong;  // wrong answers given (response -> times)
};

struct CheckRow {
    std::string lesson, check;
    int answered = 0;         // learners who answered
    int first_known = 0;      // ... whose first try is known
    int first_right = 0;      // ... who were right at it
    std::vector<std::pair<std::string, int>> wrong;  // response -> learners who gave it, most first
};

struct LearnerRow {
    std::string name;
    int answered = 0, right = 0;   // checks answered; of those, right at the last answer
    std::map<std::string, int> answered_by_lesson;
};

struct Report {
    std::vector<CheckRow> checks;       // every check of the lessons, in their order
    std::vector<LearnerRow> learners;   // sorted by name
    std::vector<std::string> unknown;   // lesson/check ids the answers name but the lessons do not have
    int total_checks = 0;
};

class Class {
public:
    // Statements as an LRS returns them: an array, or {"statements": [...]}. Statements
    // of other verbs or objects are skipped; -> how many were used. A statement that is
    // not an object, or an answered statement without an actor, success or timestamp, is
    // an error naming its index.
    Expected<int> add_statements(const nlohmann::json& statements);
    // One learner's progress document or answers CSV (as exported); the error names the line.
    void add_document(const std::string& learner, const progress::Document& doc);
    Status add_csv(const std::string& learner, const std::string& text);

    // The counts for `lessons`: (lesson id, that lesson's check JSONs), in course order.
    Report report(const std::vector<std::pair<std::string, std::vector<nlohmann::json>>>& lessons) const;

    // learner -> (lesson, check) -> what was seen; statements folded in timestamp order.
    std::map<std::string, std::map<std::pair<std::string, std::string>, Seen>> seen() const;

private:
    struct Event { std::string learner, lesson, check, at, response; bool success = false; };
    std::vector<Event> events_;
    std::map<std::string, std::map<std::pair<std::string, std::string>, Seen>> docs_;
};

// "urn:icl-lab:check:<lesson>/<check>" and back (false when `id` is not one).
std::string check_activity(const std::string& lesson, const std::string& check);
bool parse_check_activity(const std::string& id, std::string& lesson, std::string& check);

}  // namespace icl::classroom

// Grading a check question. Portable (also compiled to wasm): it works on the check
// block's JSON (see lesson.h / to_json(const CheckBlock&)), never on markdown.
//
//   check["type"]     "choice" | "multi" | "truefalse" | "numeric" | "text" | "predict"
//   check["grading"]  choice {"answer": "b"}           multi {"answer": ["a", "c"]}
//                     truefalse {"answer": true}       numeric {"answer": 0.2, "tol": 0.02}
//                     text {"accepted": ["cold", "차가운"]}
//                     predict {"demo": "<instance>", "scalar": "<name>",
//                              "ranges": {"a": [0, 1e-4], "b": [1e-4, null], ...}}
//                              (half-open [lo, hi), null = unbounded)
//                              "run": "own" when graded against the learner's own run (lesson.h)
//   check["options"]  [{"key": "a", "html": ..., "feedback_html": ...}, ...]
//   check["feedback_html"]
//
//   answer            choice "b" | multi ["a", "c"] | truefalse true |
//                     numeric 0.2 or a typed string ("0,2", " 2e-1 ") |
//                     text "Cold!" | predict "a"
//   demo_result       predict only: the Result JSON (demo.h) of the named demo instance,
//                     finished (done = true); its scalars panel holds the scalar.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "icl/expected.h"

namespace icl {

struct Verdict {
    bool correct = false;
    std::string feedback_html;   // the check's feedback, then the chosen option(s)' own
    std::string correct_answer;  // option key(s) "b" / "a, c", "true", "0.2 ± 0.02", the
                                 // first accepted text, or the predict option key
};

// A malformed answer (wrong JSON type, unknown option, not a number, no demo result for
// predict) or a malformed check is an Error whose message a learner can read.
Expected<Verdict> grade(const nlohmann::json& check, const nlohmann::json& answer,
                        const nlohmann::json& demo_result = nullptr);

// Whether an answer has the form `check` takes (an option it has, a list of distinct
// options, true/false, a number or typed text, UTF-8 text), without grading it: what
// a stored answer must pass before it is shown again (icl/progress.h).
Status validate_answer(const nlohmann::json& check, const nlohmann::json& answer);

// Text answers are compared after this: ASCII letters lower-cased; hyphens, dashes,
// slashes and underscores read as spaces ("in-context" = "in context"); other ASCII and
// common CJK / typographic punctuation removed ("don't" = "dont", "차가운。" = "차가운");
// every run of Unicode white space (incl. U+3000 and no-break spaces) made one ASCII
// space, leading/trailing space trimmed. Other characters (Hangul, accents) are kept as
// given. Invalid UTF-8 is an error.
Expected<std::string> normalize_text_answer(const std::string& text);

// A number a learner typed: surrounding white space ignored, a decimal comma accepted
// ("0,2"), exponents accepted ("2e-1"). Anything else, or a non-finite value, is an error.
Expected<double> parse_typed_number(const std::string& text);

// The value of the scalar `name` in a Result JSON's scalars panels.
Expected<double> find_result_scalar(const nlohmann::json& result, const std::string& name);

}  // namespace icl

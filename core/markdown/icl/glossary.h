// The course's frame around each lesson and its glossary, beside the lesson parser
// (lesson.h). Native only (md4c).
//
// Boxes: ```box in-short | you-need | take-away``` fences hold markdown that the front ends
// draw framed, under a heading from the catalogue (site.json and app.json:
// box.in-short, ...); ```box reproduce (or ```reproduce) one they draw collapsed under
// box.reproduce. The lint wants the three in every lesson: "In short" and "You need"
// before its first demo or check, "Take away" after its last.
//
// Glossary: one file a language, lessons/<lang>/glossary.json:
//   {"terms": [{"id": "perplexity", "term": "perplexity", "gloss": "markdown",
//               "avoid": ["Perplexity"]}, ...],
//    "names": ["Adam", ...],                            (optional)
//    "avoid": [{"form": "가요?", "use": "..."}, ...]}  (optional)
// id is what a lesson links ([text](term:perplexity)); term is the form the course uses
// in that language (an established Korean term, or the English word as the Korean
// sources keep it); gloss is a short definition in markdown ($math$ allowed); avoid lists
// forms the course does not use in that language's prose (a capitalised English word
// before a Korean particle, an English plural, the other of two translations); a form
// ending in '~' counts only before a Hangul syllable, one starting with '#' after a number
// (find_word). A capitalised English word (one capital, then lowercase) right before a
// Hangul syllable — "Softmax는", "Demo를" — is refused unless "names" lists it (a proper
// name: "Adam은"); the language writes such words lowercase. The top-level "avoid" lists
// forms that belong to no term (a register, a word for the course's parts), each with
// what to write instead. The lint
// checks that every term link resolves, that each language has English's ids, and that no
// lesson or catalogue of the language uses an avoided form (lesson_set.h).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "icl/lesson.h"

namespace icl {

// The framed box kinds, in the order a lesson uses them: each once in every lesson.
const std::vector<std::string>& box_kinds();
// The collapsed box ("Reproduce this"): any number of them, none needed.
constexpr const char* kReproduceBox = "reproduce";

struct GlossaryTerm {
    std::string id, term;
    std::string gloss_markdown, gloss_html;  // gloss_html: inline (no wrapping <p>)
    std::vector<std::string> avoid;
};

struct AvoidedForm { std::string form, use; };

struct Glossary {
    std::string file;                       // where it was read from (messages)
    std::vector<GlossaryTerm> terms;        // in file order
    std::vector<std::string> names;         // proper names that stay capitalised before a particle
    std::vector<AvoidedForm> avoid;         // forms of no term the language does not use
    const GlossaryTerm* find(const std::string& id) const;
};

// Parses a glossary file; problems (file:line 1 — the file is JSON) name the entry.
Glossary parse_glossary(const std::string& text, const std::string& file_name, std::vector<Diagnostic>& problems);

// {"id": {"term", "html"}} for the pages.
nlohmann::json to_json(const Glossary& glossary);

// The ids of the term links ([text](term:id)) in rendered html, in order.
std::vector<std::string> term_links(const std::string& html);

// The prose of a markdown text: every word md4c reads as text, without code spans, code
// blocks and math (so an identifier or a TeX command is never prose).
std::string prose_of(const std::string& markdown);

// Where `form` stands in `prose` as a whole word (not inside a longer run of ASCII
// letters, digits and '_'): byte offsets. A form ending in '~' (an avoid form such as
// "Weights~") stands only right before a Hangul syllable, a Korean particle: "Weights는"
// is found, an English title's "Weights" is not. A form starting with '#' stands right
// after a number (digits, perhaps one lowercase letter: "#강" finds "3강" and "3b강", the
// offset of the number).
std::vector<size_t> find_word(const std::string& prose, const std::string& form);

// Capitalised English words (a capital, then only lowercase letters) standing right before
// a Hangul syllable, not in `names` and not ending a phrase of English words (a title):
// (offset, word) each.
std::vector<std::pair<size_t, std::string>> capitalised_before_hangul(const std::string& prose,
                                                                       const std::vector<std::string>& names);

// Words a learner reads in a lesson: its text blocks, boxes, check prompts, options and
// feedback (whitespace-separated words of the prose; a math span counts as one word).
int reading_words(const Lesson& lesson);
// Minutes of reading at 200 words a minute, rounded, at least 1.
int reading_minutes(int words);

}  // namespace icl

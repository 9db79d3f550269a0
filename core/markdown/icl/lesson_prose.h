// Lesson prose that points at a text the learner cannot open: "the lecture", "the
// slide", "the professor", "the reading note" (and 강의, 교수, 슬라이드, 읽기 노트, 수업
// in Korean). The course follows source texts that are not part of it; the index page
// names them once, and a lesson teaches the idea itself instead of quoting "the
// lecture". The lessons lint (icl/lesson_set.h) refuses every mention this finds in a
// lesson's text blocks, Reproduce boxes, check prompts, options and feedback.
#pragma once
#include <string>
#include <vector>

#include "icl/lesson.h"

namespace icl {

struct ProseMention {
    int line = 0;        // line in the lesson source
    std::string phrase;  // the words found, as written
};

// The mentions in `markdown`, whose first line is `first_line` of the source. English
// words match whole and in any case ("lecture's", "Slides"; not "slider"); inline code
// (`...`) is skipped, since a command or a preset's name is not prose.
std::vector<ProseMention> source_text_mentions(const std::string& markdown, int first_line);

// Every mention in a parsed lesson's prose (text blocks and checks), in source order.
std::vector<ProseMention> source_text_mentions(const Lesson& lesson);

}  // namespace icl

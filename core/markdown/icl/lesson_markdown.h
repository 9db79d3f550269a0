// How lesson Markdown is read, in one place for the lesson parser, the lint's math check
// and the desktop app's view, so they find the same math spans: md4c with $..$ / $$..$$
// math, tables, strikethrough and no raw HTML. For code that has md4c (the native core
// and the app).
#pragma once
#include <string>

#include <md4c.h>

namespace icl {

constexpr unsigned kLessonMarkdownFlags = MD_FLAG_LATEXMATHSPANS | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTML;

// md_parse over `markdown` with the lesson flags and these callbacks (each called with `user`).
inline int parse_lesson_markdown(const std::string& markdown, void* user,
                                 int (*enter_block)(MD_BLOCKTYPE, void*, void*), int (*leave_block)(MD_BLOCKTYPE, void*, void*),
                                 int (*enter_span)(MD_SPANTYPE, void*, void*), int (*leave_span)(MD_SPANTYPE, void*, void*),
                                 int (*text)(MD_TEXTTYPE, const MD_CHAR*, MD_SIZE, void*)) {
    MD_PARSER parser{};
    parser.flags = kLessonMarkdownFlags;
    parser.enter_block = enter_block;
    parser.leave_block = leave_block;
    parser.enter_span = enter_span;
    parser.leave_span = leave_span;
    parser.text = text;
    return md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, user);
}

}  // namespace icl

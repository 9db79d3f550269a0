// Lesson text: markdown parsed once by md4c (with the lesson flags: math spans, tables,
// no raw HTML) into a small display list, then drawn every frame with ImGui — headings
// in a bigger font, wrapped paragraphs, emphasis, inline code, lists, tables, code
// blocks, and math shown as readable Unicode (icl/tex_text.h) in its own colour, its
// matrices laid out as grids in the line (math_view.h).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "fonts.h"
#include "icl/tex_text.h"

enum TextStyle : unsigned {
    kStyleBold = 1, kStyleItalic = 2, kStyleCode = 4, kStyleMath = 8, kStyleDisplayMath = 16,
    kStyleLink = 32, kStyleStrike = 64,
};

struct TextRun {
    std::string text;    // math already converted to Unicode (on one line); "\n" is a hard line break
    unsigned style = 0;  // TextStyle bits
    std::string link;    // link target, shown on hover
    std::vector<icl::TexPiece> math;  // a math span: its text and matrices, as drawn
};

struct MarkdownBlock {
    enum Kind { Paragraph, Heading, ListItem, CodeBlock, Rule, Table } kind = Paragraph;
    int level = 0;         // heading level 1..6; list nesting depth (1 = top) for items
    int indent = 0;        // nesting depth of lists and quotes around the block
    bool quoted = false;
    std::string marker;    // list item: "•" or "3."
    std::vector<TextRun> runs;
    std::string code;      // code block text
    int columns = 0;       // table
    std::vector<std::vector<std::vector<TextRun>>> rows;  // table rows of cells; row 0 is the header
};

struct MarkdownDoc {
    std::vector<MarkdownBlock> blocks;
};

MarkdownDoc parse_markdown(const std::string& markdown);

// A glossary term as a term link ([text](term:id)) shows it: hovering the link or reaching
// it by keyboard shows the gloss, a click, Enter or Space pins it in a popup (Escape or a
// click elsewhere closes it).
struct GlossDoc {
    std::string term;
    MarkdownDoc gloss;
};
// The glossary the term links of the drawn text use (the shown language's; null: none).
void set_glossary(const std::map<std::string, GlossDoc>* glossary);
// All the text the document shows (for the font atlas).
std::string shown_text(const MarkdownDoc& doc);
// Draws at the cursor, wrapping at the current content width. Each doc needs its own id.
void draw_markdown(const MarkdownDoc& doc, const Fonts& fonts, const char* id);

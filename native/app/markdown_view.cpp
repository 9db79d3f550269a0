#include "markdown_view.h"

#include <algorithm>
#include <set>

#include <md4c.h>

#include <imgui.h>
#include <imgui_internal.h>

#include "icl/lesson_markdown.h"
#include "icl/utf8.h"
#include "math_view.h"

namespace {

// ---- parsing: md4c callbacks build the display list ----------------------------------

struct ListLevel { bool ordered = false; unsigned next_number = 1; };

struct Builder {
    MarkdownDoc doc;
    std::vector<ListLevel> lists;
    int quote_depth = 0;
    unsigned style = 0;
    std::string link;
    std::string math;          // TeX of the math span being read
    bool in_block_text = false;  // inside a block that takes inline text
    std::vector<TextRun>* target = nullptr;

    int indent() const { return static_cast<int>(lists.size()) + quote_depth; }

    MarkdownBlock& open(MarkdownBlock::Kind kind) {
        doc.blocks.emplace_back();
        MarkdownBlock& b = doc.blocks.back();
        b.kind = kind;
        b.indent = indent();
        b.quoted = quote_depth > 0;
        target = &b.runs;
        return b;
    }

    void add_text(const std::string& text) {
        if (!target) open(MarkdownBlock::Paragraph);
        if (!target->empty() && target->back().style == style && target->back().link == link &&
            !(style & (kStyleMath | kStyleDisplayMath)))
            target->back().text += text;
        else
            target->push_back(TextRun{text, style, link});
    }
};

std::string decode_entity(const std::string& entity) {
    if (entity == "&amp;") return "&";
    if (entity == "&lt;") return "<";
    if (entity == "&gt;") return ">";
    if (entity == "&quot;") return "\"";
    if (entity == "&apos;") return "'";
    if (entity == "&nbsp;") return "\u00A0";
    if (entity.size() > 3 && entity[1] == '#') {
        unsigned long cp = entity[2] == 'x' || entity[2] == 'X' ? std::strtoul(entity.c_str() + 3, nullptr, 16)
                                                                 : std::strtoul(entity.c_str() + 2, nullptr, 10);
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return "\uFFFD";
        std::string out;
        icl::utf8_append(out, static_cast<long>(cp));
        return out;
    }
    return entity;
}

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_BLOCK_QUOTE: ++b.quote_depth; break;
    case MD_BLOCK_UL: b.lists.push_back({false, 1}); break;
    case MD_BLOCK_OL: b.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
    case MD_BLOCK_LI: {
        ListLevel& level = b.lists.back();
        MarkdownBlock& item = b.open(MarkdownBlock::ListItem);
        item.level = static_cast<int>(b.lists.size());
        item.indent = item.level - 1 + b.quote_depth;
        item.marker = level.ordered ? std::to_string(level.next_number++) + "." : "•";
        break;
    }
    case MD_BLOCK_HR: b.open(MarkdownBlock::Rule); b.target = nullptr; break;
    case MD_BLOCK_H: b.open(MarkdownBlock::Heading).level = static_cast<MD_BLOCK_H_DETAIL*>(detail)->level; break;
    case MD_BLOCK_CODE: b.open(MarkdownBlock::CodeBlock); break;
    case MD_BLOCK_P:
        // The first paragraph of a list item is the item's own text.
        if (!(b.target && !b.doc.blocks.empty() && b.doc.blocks.back().kind == MarkdownBlock::ListItem &&
              b.doc.blocks.back().runs.empty()))
            b.open(MarkdownBlock::Paragraph);
        break;
    case MD_BLOCK_TABLE: b.open(MarkdownBlock::Table).columns = static_cast<MD_BLOCK_TABLE_DETAIL*>(detail)->col_count; break;
    case MD_BLOCK_TR: b.doc.blocks.back().rows.emplace_back(); break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD: {
        auto& row = b.doc.blocks.back().rows.back();
        row.emplace_back();
        b.target = &row.back();
        break;
    }
    default: break;
    }
    return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_BLOCK_QUOTE: --b.quote_depth; break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL: b.lists.pop_back(); break;
    case MD_BLOCK_P:
    case MD_BLOCK_H:
    case MD_BLOCK_CODE:
    case MD_BLOCK_LI:
    case MD_BLOCK_TH:
    case MD_BLOCK_TD: b.target = nullptr; break;
    default: break;
    }
    return 0;
}

int enter_span(MD_SPANTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_SPAN_EM: b.style |= kStyleItalic; break;
    case MD_SPAN_STRONG: b.style |= kStyleBold; break;
    case MD_SPAN_CODE: b.style |= kStyleCode; break;
    case MD_SPAN_DEL: b.style |= kStyleStrike; break;
    case MD_SPAN_LATEXMATH: b.style |= kStyleMath; b.math.clear(); break;
    case MD_SPAN_LATEXMATH_DISPLAY: b.style |= kStyleDisplayMath; b.math.clear(); break;
    case MD_SPAN_A: {
        auto* a = static_cast<MD_SPAN_A_DETAIL*>(detail);
        b.style |= kStyleLink;
        b.link.assign(a->href.text, a->href.size);
        break;
    }
    default: break;
    }
    return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_SPAN_EM: b.style &= ~kStyleItalic; break;
    case MD_SPAN_STRONG: b.style &= ~kStyleBold; break;
    case MD_SPAN_CODE: b.style &= ~kStyleCode; break;
    case MD_SPAN_DEL: b.style &= ~kStyleStrike; break;
    case MD_SPAN_LATEXMATH:
    case MD_SPAN_LATEXMATH_DISPLAY: {
        icl::TexLayout layout = icl::tex_layout(b.math);
        b.add_text(icl::to_text(layout.pieces));
        b.target->back().math = std::move(layout.pieces);
        b.style &= ~(kStyleMath | kStyleDisplayMath);
        break;
    }
    case MD_SPAN_A: b.style &= ~kStyleLink; b.link.clear(); break;
    default: break;
    }
    return 0;
}

int text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    const std::string s(data, size);
    if (b.style & (kStyleMath | kStyleDisplayMath)) {
        b.math += type == MD_TEXT_ENTITY ? decode_entity(s) : s;
        return 0;
    }
    if (!b.doc.blocks.empty() && b.doc.blocks.back().kind == MarkdownBlock::CodeBlock && b.target) {
        b.doc.blocks.back().code += s;
        return 0;
    }
    switch (type) {
    case MD_TEXT_BR: b.add_text("\n"); break;
    case MD_TEXT_SOFTBR: b.add_text(" "); break;
    case MD_TEXT_ENTITY: b.add_text(decode_entity(s)); break;
    case MD_TEXT_NULLCHAR: b.add_text("\uFFFD"); break;
    default: b.add_text(s); break;
    }
    return 0;
}

// ---- drawing ------------------------------------------------------------------------

const ImVec4 kMathColour(0.55f, 0.80f, 1.00f, 1.0f);
const ImVec4 kCodeColour(0.95f, 0.78f, 0.50f, 1.0f);
const ImVec4 kLinkColour(0.45f, 0.70f, 1.00f, 1.0f);
const ImVec4 kQuoteColour(0.75f, 0.75f, 0.70f, 1.0f);

ImFont* font_for(unsigned style, const Fonts& fonts, ImFont* base) {
    if (style & kStyleCode) return fonts.mono;
    if (base != fonts.body) return base;
    if (style & kStyleBold) return fonts.bold;
    if (style & kStyleItalic) return fonts.italic;
    return fonts.body;
}

// One thing on a line: a word of a run, or a matrix of a math span.
struct Item {
    const TextRun* run = nullptr;
    ImFont* font = nullptr;
    ImVec4 colour;
    const char* begin = nullptr;           // the word
    const char* end = nullptr;
    const icl::TexMatrix* matrix = nullptr;  // or the matrix
    MatrixBox box;
    ImVec2 size;
    float x = 0;                           // from the left of the text
};

struct Line {
    std::vector<Item> items;
    float height = 0;
};

// Breaks runs into lines at the width `width`: words and matrices sized in their
// fonts, a line wrapped before an item that would cross the edge; display math on lines
// of its own, indented.
std::vector<Line> lay_out(const std::vector<TextRun>& runs, const Fonts& fonts, ImFont* base, bool quoted, float width) {
    std::vector<Line> lines(1);
    float indent = 0, pending_space = 0, line_end = 0;
    const auto new_line = [&] {
        if (!lines.back().items.empty()) lines.emplace_back();
        pending_space = 0;
    };
    const auto place = [&](Item item) {
        if (!lines.back().items.empty() && line_end + pending_space + item.size.x > width) new_line();
        Line& line = lines.back();
        item.x = line.items.empty() ? indent : line_end + pending_space;
        line_end = item.x + item.size.x;
        pending_space = 0;
        line.items.push_back(item);
    };
    for (const TextRun& run : runs) {
        ImFont* font = font_for(run.style, fonts, base);
        ImGui::PushFont(font);
        ImVec4 colour = ImGui::GetStyleColorVec4(ImGuiCol_Text);
        if (quoted) colour = kQuoteColour;
        if (run.style & (kStyleMath | kStyleDisplayMath)) colour = kMathColour;
        else if (run.style & kStyleCode) colour = kCodeColour;
        else if (run.style & kStyleLink) colour = kLinkColour;
        const bool display = run.style & kStyleDisplayMath;
        if (display) { new_line(); indent = 2 * fonts.body_size; }
        const auto add_words = [&](const std::string& t) {
            size_t i = 0;
            while (i < t.size()) {
                if (t[i] == '\n') { new_line(); ++i; continue; }
                if (t[i] == ' ') {
                    if (!lines.back().items.empty()) pending_space = ImGui::CalcTextSize(" ").x;
                    i = t.find_first_not_of(' ', i);
                    if (i == std::string::npos) i = t.size();
                    continue;
                }
                size_t j = t.find_first_of(" \n", i);
                if (j == std::string::npos) j = t.size();
                Item item{&run, font, colour, t.c_str() + i, t.c_str() + j};
                item.size = ImGui::CalcTextSize(item.begin, item.end);
                place(item);
                i = j;
            }
        };
        if (run.math.empty()) add_words(run.text);
        for (const icl::TexPiece& piece : run.math) {
            if (const auto* text = std::get_if<std::string>(&piece)) {
                add_words(*text);
                continue;
            }
            Item item{&run, font, colour};
            item.matrix = &std::get<icl::TexMatrix>(piece);
            item.box = measure_matrix(*item.matrix);
            item.size = item.box.size;
            place(item);
        }
        if (display) { new_line(); indent = 0; }
        ImGui::PopFont();
    }
    if (lines.back().items.empty()) lines.pop_back();
    for (Line& line : lines)
        for (const Item& item : line.items) line.height = std::max(line.height, item.size.y);
    return lines;
}

const std::map<std::string, GlossDoc>* g_glossary = nullptr;

void draw_markdown_doc(const MarkdownDoc& doc, const Fonts& fonts, const char* id);

// A term link's word was just drawn (the last item): its gloss on hover or keyboard focus,
// pinned in a popup on a click, Enter or Space; Escape closes it.
void draw_term(const std::string& id, const Fonts& fonts) {
    const GlossDoc* entry = nullptr;
    if (g_glossary) {
        const auto it = g_glossary->find(id);
        if (it != g_glossary->end()) entry = &it->second;
    }
    if (!entry) return;
    const std::string popup = "term:" + id;
    // The word becomes a button over itself, so keyboard navigation reaches it (Tab or the
    // arrow keys) and Enter or Space opens the gloss, as a click does.
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    ImGui::SetCursorScreenPos(lo);
    ImGui::PushID(popup.c_str());
    ImGui::PushID(static_cast<int>(lo.x) * 7919 + static_cast<int>(lo.y));
    const bool pressed = ImGui::InvisibleButton("term", ImVec2(std::max(1.0f, hi.x - lo.x), std::max(1.0f, hi.y - lo.y)));
    ImGui::PopID();
    ImGui::PopID();
    const auto draw_gloss = [&] {
        ImGui::PushTextWrapPos(fonts.body_size * 24);
        ImGui::PushFont(fonts.bold);
        ImGui::TextUnformatted(entry->term.c_str());
        ImGui::PopFont();
        draw_markdown_doc(entry->gloss, fonts, "gloss");
        ImGui::PopTextWrapPos();
    };
    if ((ImGui::IsItemHovered() || ImGui::IsItemFocused()) && !ImGui::IsPopupOpen(popup.c_str())) {
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
        ImGui::BeginTooltip();
        draw_gloss();
        ImGui::EndTooltip();
    }
    if (pressed) ImGui::OpenPopup(popup.c_str());
    // A term of several words is several items: its popup is drawn once a frame.
    static int frame = -1;
    static std::set<ImGuiID> drawn;
    if (frame != ImGui::GetFrameCount()) { frame = ImGui::GetFrameCount(); drawn.clear(); }
    if (!drawn.insert(ImGui::GetID(popup.c_str())).second) return;
    if (ImGui::BeginPopup(popup.c_str())) {
        draw_gloss();
        if (ImGui::IsKeyPressed(ImGuiKey_Escape)) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

// Draws runs at the cursor, wrapping where the caller's text wrap position says (else at
// the content edge). Every item of a line is centred on the line's middle, so text
// beside a matrix sits at the matrix's middle. Leaves the cursor on a new line.
void draw_runs(const std::vector<TextRun>& runs, const Fonts& fonts, ImFont* base, bool quoted) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float wrap_pos = ImGui::GetCurrentWindow()->DC.TextWrapPos;
    const float width = wrap_pos >= 0 ? ImGui::CalcWrapWidthForPos(origin, wrap_pos) : ImGui::GetContentRegionAvail().x;
    const std::vector<Line> lines = lay_out(runs, fonts, base, quoted, width);
    if (lines.empty()) {
        if (runs.empty()) ImGui::NewLine();
        return;
    }
    ImGui::PushTextWrapPos(-1.0f);  // each word is drawn unwrapped
    // Beside a framed widget (a check's radio button) text sits lower, on the widget's
    // text baseline; the lines start there, and no word adds it again.
    float& baseline = ImGui::GetCurrentWindow()->DC.CurrLineTextBaseOffset;
    float top = origin.y + baseline;
    baseline = 0;
    for (size_t n = 0; n < lines.size(); ++n) {
        const Line& line = lines[n];
        for (const Item& item : line.items) {
            const ImVec2 pos(origin.x + item.x, top + (line.height - item.size.y) / 2);
            ImGui::PushFont(item.font);
            if (item.matrix) {
                draw_matrix(*item.matrix, item.box, pos, ImGui::GetColorU32(item.colour));
                ImGui::PopFont();
                continue;
            }
            const unsigned style = item.run->style;
            if (style & kStyleCode)
                ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(pos.x - 2, pos.y), ImVec2(pos.x + item.size.x + 2, pos.y + item.size.y),
                                                          IM_COL32(255, 255, 255, 24), 3.0f);
            ImGui::SetCursorScreenPos(pos);
            ImGui::PushStyleColor(ImGuiCol_Text, item.colour);
            ImGui::TextUnformatted(item.begin, item.end);
            ImGui::PopStyleColor();
            if (style & kStyleStrike) {
                const float y = pos.y + item.size.y * 0.55f;
                ImGui::GetWindowDrawList()->AddLine(ImVec2(pos.x, y), ImVec2(pos.x + item.size.x, y), ImGui::GetColorU32(item.colour));
            }
            if ((style & kStyleLink) && item.run->link.rfind("term:", 0) == 0) {
                draw_term(item.run->link.substr(5), fonts);
            } else if ((style & kStyleLink) && ImGui::IsItemHovered()) {
                ImGui::SetTooltip("%s", item.run->link.c_str());
            }
            ImGui::PopFont();
        }
        if (n + 1 < lines.size()) top += line.height + ImGui::GetStyle().ItemSpacing.y;
    }
    // The cursor goes below the last line, as after a line of text.
    ImGui::SetCursorScreenPos(ImVec2(origin.x, top));
    ImGui::Dummy(ImVec2(0, lines.back().height));
    ImGui::PopTextWrapPos();
}

}  // namespace

MarkdownDoc parse_markdown(const std::string& markdown) {
    Builder builder;
    icl::parse_lesson_markdown(markdown, &builder, enter_block, leave_block, enter_span, leave_span, text);
    return std::move(builder.doc);
}

std::string shown_text(const MarkdownDoc& doc) {
    std::string out;
    auto add_runs = [&out](const std::vector<TextRun>& runs) {
        for (const TextRun& r : runs) out += r.text;
    };
    for (const MarkdownBlock& b : doc.blocks) {
        add_runs(b.runs);
        out += b.marker + b.code;
        for (const auto& row : b.rows)
            for (const auto& cell : row) add_runs(cell);
    }
    return out;
}

void set_glossary(const std::map<std::string, GlossDoc>* glossary) { g_glossary = glossary; }

namespace {
void draw_markdown_doc(const MarkdownDoc& doc, const Fonts& fonts, const char* id) { draw_markdown(doc, fonts, id); }
}  // namespace

void draw_markdown(const MarkdownDoc& doc, const Fonts& fonts, const char* id) {
    ImGui::PushID(id);
    const float indent_step = 1.5f * fonts.body_size;
    for (size_t n = 0; n < doc.blocks.size(); ++n) {
        const MarkdownBlock& b = doc.blocks[n];
        const float indent = b.indent * indent_step;
        if (indent > 0) ImGui::Indent(indent);
        switch (b.kind) {
        case MarkdownBlock::Heading:
            if (n > 0) ImGui::Dummy(ImVec2(0, fonts.body_size * 0.6f));
            draw_runs(b.runs, fonts, b.level <= 2 ? fonts.heading : fonts.subheading, false);
            if (b.level <= 2) ImGui::Separator();
            break;
        case MarkdownBlock::Paragraph:
            draw_runs(b.runs, fonts, fonts.body, b.quoted);
            ImGui::Dummy(ImVec2(0, fonts.body_size * 0.35f));
            break;
        case MarkdownBlock::ListItem: {
            ImGui::TextUnformatted(b.marker.c_str());
            ImGui::SameLine(0, 0);
            const float marker_width = 1.3f * fonts.body_size;
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + marker_width - ImGui::GetItemRectSize().x);
            ImGui::BeginGroup();
            draw_runs(b.runs, fonts, fonts.body, b.quoted);
            ImGui::EndGroup();
            break;
        }
        case MarkdownBlock::CodeBlock: {
            ImGui::PushFont(fonts.mono);
            ImGui::PushStyleColor(ImGuiCol_Text, kCodeColour);
            std::string code = b.code;
            if (!code.empty() && code.back() == '\n') code.pop_back();
            ImGui::TextUnformatted(code.c_str());
            ImGui::PopStyleColor();
            ImGui::PopFont();
            ImGui::Dummy(ImVec2(0, fonts.body_size * 0.35f));
            break;
        }
        case MarkdownBlock::Rule: ImGui::Separator(); break;
        case MarkdownBlock::Table: {
            ImGui::PushID(static_cast<int>(n));
            // As wide as the text around it (the wrap position), not the whole window.
            const float wrap_pos = ImGui::GetCurrentWindow()->DC.TextWrapPos;
            const float width = wrap_pos > 0 ? ImGui::CalcWrapWidthForPos(ImGui::GetCursorScreenPos(), wrap_pos) : 0.0f;
            if (b.columns > 0 && ImGui::BeginTable("table", b.columns,
                                                   ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                                       ImGuiTableFlags_SizingStretchProp, ImVec2(width, 0))) {
                for (size_t r = 0; r < b.rows.size(); ++r) {
                    ImGui::TableNextRow(r == 0 ? ImGuiTableRowFlags_Headers : 0);
                    for (const auto& cell : b.rows[r]) {
                        ImGui::TableNextColumn();
                        ImGui::PushTextWrapPos(0.0f);  // wrap at the cell's edge
                        draw_runs(cell, fonts, r == 0 ? fonts.bold : fonts.body, false);
                        ImGui::PopTextWrapPos();
                    }
                }
                ImGui::EndTable();
            }
            ImGui::PopID();
            ImGui::Dummy(ImVec2(0, fonts.body_size * 0.35f));
            break;
        }
        }
        if (indent > 0) ImGui::Unindent(indent);
    }
    ImGui::PopID();
}

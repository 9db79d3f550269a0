// The TeX -> Unicode pass (icl/tex_text.h). Works on byte ranges of the whole span, so
// every construct it cannot show is reported at its offset in the span.
#include "icl/tex_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

namespace icl {

namespace {

// Commands that become one symbol or word. Every name here is also a KaTeX command, so
// what the desktop shows the web can show too.
const std::map<std::string, std::string> kSymbols = {
    // Greek
    {"alpha", "α"}, {"beta", "β"}, {"gamma", "γ"}, {"delta", "δ"}, {"epsilon", "ε"},
    {"varepsilon", "ε"}, {"zeta", "ζ"}, {"eta", "η"}, {"theta", "θ"}, {"vartheta", "ϑ"}, {"iota", "ι"},
    {"kappa", "κ"}, {"lambda", "λ"}, {"mu", "μ"}, {"nu", "ν"}, {"xi", "ξ"}, {"pi", "π"}, {"varpi", "ϖ"},
    {"rho", "ρ"}, {"varrho", "ϱ"}, {"sigma", "σ"}, {"varsigma", "ς"}, {"tau", "τ"}, {"upsilon", "υ"},
    {"phi", "φ"}, {"varphi", "φ"}, {"chi", "χ"}, {"psi", "ψ"}, {"omega", "ω"}, {"Gamma", "Γ"},
    {"Delta", "Δ"}, {"Theta", "Θ"}, {"Lambda", "Λ"}, {"Xi", "Ξ"}, {"Pi", "Π"}, {"Sigma", "Σ"},
    {"Upsilon", "Υ"}, {"Phi", "Φ"}, {"Psi", "Ψ"}, {"Omega", "Ω"},
    // big operators and binary operators
    {"sum", "∑"}, {"prod", "∏"}, {"int", "∫"}, {"oint", "∮"}, {"bigcup", "⋃"}, {"bigcap", "⋂"},
    {"otimes", "⊗"}, {"oplus", "⊕"}, {"odot", "⊙"}, {"cdot", "·"}, {"times", "×"}, {"div", "÷"},
    {"pm", "±"}, {"mp", "∓"}, {"ast", "∗"}, {"star", "⋆"}, {"circ", "∘"}, {"bullet", "∙"},
    {"cap", "∩"}, {"cup", "∪"}, {"setminus", "∖"}, {"wedge", "∧"}, {"land", "∧"}, {"vee", "∨"},
    {"lor", "∨"}, {"neg", "¬"}, {"lnot", "¬"},
    // relations
    {"le", "≤"}, {"leq", "≤"}, {"ge", "≥"}, {"geq", "≥"}, {"neq", "≠"}, {"ne", "≠"}, {"ll", "≪"},
    {"gg", "≫"}, {"approx", "≈"}, {"sim", "∼"}, {"simeq", "≃"}, {"cong", "≅"}, {"equiv", "≡"},
    {"propto", "∝"}, {"mid", "∣"}, {"parallel", "∥"}, {"perp", "⊥"}, {"in", "∈"}, {"notin", "∉"},
    {"ni", "∋"}, {"subset", "⊂"}, {"subseteq", "⊆"}, {"supset", "⊃"}, {"supseteq", "⊇"},
    // arrows
    {"to", "→"}, {"rightarrow", "→"}, {"leftarrow", "←"}, {"gets", "←"}, {"leftrightarrow", "↔"},
    {"Rightarrow", "⇒"}, {"Leftarrow", "⇐"}, {"Leftrightarrow", "⇔"}, {"implies", "⟹"}, {"iff", "⟺"},
    {"longrightarrow", "⟶"}, {"mapsto", "↦"}, {"uparrow", "↑"}, {"downarrow", "↓"},
    // delimiters
    {"langle", "⟨"}, {"rangle", "⟩"}, {"lVert", "‖"}, {"rVert", "‖"}, {"Vert", "‖"}, {"|", "‖"},
    {"lvert", "|"}, {"rvert", "|"}, {"vert", "|"}, {"lfloor", "⌊"}, {"rfloor", "⌋"}, {"lceil", "⌈"},
    {"rceil", "⌉"}, {"lbrace", "{"}, {"rbrace", "}"}, {"backslash", "\\"},
    // other symbols
    {"top", "⊤"}, {"intercal", "⊤"}, {"infty", "∞"}, {"nabla", "∇"}, {"partial", "∂"}, {"forall", "∀"},
    {"exists", "∃"}, {"emptyset", "∅"}, {"varnothing", "∅"}, {"prime", "′"}, {"ell", "ℓ"}, {"hbar", "ℏ"},
    {"ldots", "…"}, {"dots", "…"}, {"cdots", "⋯"}, {"vdots", "⋮"}, {"ddots", "⋱"}, {"colon", ":"},
    // function names, shown upright as words
    {"log", "log"}, {"ln", "ln"}, {"exp", "exp"}, {"max", "max"}, {"min", "min"}, {"arg", "arg"},
    {"sup", "sup"}, {"inf", "inf"}, {"lim", "lim"}, {"det", "det"}, {"dim", "dim"}, {"sin", "sin"},
    {"cos", "cos"}, {"tan", "tan"}, {"sinh", "sinh"}, {"cosh", "cosh"}, {"tanh", "tanh"}, {"Pr", "Pr"},
};

// Commands whose one argument is shown as it is (font changes; the letters stay).
const std::set<std::string> kShowArgument = {
    "text", "textrm", "textbf", "textit", "textsf", "texttt", "mathrm", "mathbf", "mathit", "mathsf",
    "mathtt", "mathcal", "boldsymbol", "bm", "operatorname",
};

// Commands that only size or style what follows; the pass drops them.
const std::set<std::string> kIgnored = {
    "left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "Biggl", "Biggr", "displaystyle", "textstyle", "!",
};

// Spacing commands: one space.
const std::set<std::string> kSpaces = {",", ";", ":", ">", " ", "quad", "qquad", "enspace", "thinspace", "\\"};

// Escaped characters, shown as themselves.
const std::set<std::string> kEscapes = {"{", "}", "_", "%", "&", "#", "$"};

// Accents: a combining mark after the argument.
const std::map<std::string, std::string> kAccents = {
    {"hat", "\u0302"}, {"widehat", "\u0302"}, {"tilde", "\u0303"}, {"widetilde", "\u0303"},
    {"bar", "\u0304"}, {"overline", "\u0304"}, {"vec", "\u20D7"}, {"dot", "\u0307"}, {"ddot", "\u0308"},
};

// The environments laid out as a grid, with the delimiters the front end draws.
struct GridEnv { const char* open; const char* close; bool left_aligned; };
const std::map<std::string, GridEnv> kGridEnvs = {
    {"matrix", {"", "", false}},     {"pmatrix", {"(", ")", false}}, {"bmatrix", {"[", "]", false}},
    {"Bmatrix", {"{", "}", false}},  {"vmatrix", {"|", "|", false}}, {"Vmatrix", {"‖", "‖", false}},
    {"cases", {"{", "", true}},
};

const std::map<std::string, std::string> kBlackboard = {{"R", "ℝ"}, {"N", "ℕ"}, {"Z", "ℤ"}, {"Q", "ℚ"}, {"C", "ℂ"}};

const std::map<std::string, std::string> kSubscripts = {
    {"0", "₀"}, {"1", "₁"}, {"2", "₂"}, {"3", "₃"}, {"4", "₄"}, {"5", "₅"}, {"6", "₆"},
    {"7", "₇"}, {"8", "₈"}, {"9", "₉"}, {"+", "₊"}, {"-", "₋"}, {"=", "₌"}, {"(", "₍"},
    {")", "₎"}, {"a", "ₐ"}, {"e", "ₑ"}, {"o", "ₒ"}, {"x", "ₓ"}, {"h", "ₕ"}, {"k", "ₖ"},
    {"l", "ₗ"}, {"m", "ₘ"}, {"n", "ₙ"}, {"p", "ₚ"}, {"s", "ₛ"}, {"t", "ₜ"}, {"i", "ᵢ"},
    {"j", "ⱼ"}, {"r", "ᵣ"}, {"u", "ᵤ"}, {"v", "ᵥ"}, {",", ","}, {" ", " "},
};

const std::map<std::string, std::string> kSuperscripts = {
    {"0", "⁰"}, {"1", "¹"}, {"2", "²"}, {"3", "³"}, {"4", "⁴"}, {"5", "⁵"}, {"6", "⁶"},
    {"7", "⁷"}, {"8", "⁸"}, {"9", "⁹"}, {"+", "⁺"}, {"-", "⁻"}, {"−", "⁻"}, {"=", "⁼"},
    {"(", "⁽"}, {")", "⁾"}, {"n", "ⁿ"}, {"i", "ⁱ"}, {"T", "ᵀ"}, {"⊤", "ᵀ"}, {"t", "ᵗ"},
    {"k", "ᵏ"}, {"d", "ᵈ"}, {"′", "′"}, {"*", "*"}, {" ", " "},
};

// Arguments nest at most this deep (a \frac in a \frac in ...); deeper is reported, so
// hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 48;

size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead >> 5) == 0x6) return 2;
    if ((lead >> 4) == 0xE) return 3;
    if ((lead >> 3) == 0x1E) return 4;
    return 1;
}

// Maps every character of `text` through `table`; false if one has no entry.
bool map_all(const std::string& text, const std::map<std::string, std::string>& table, std::string& out) {
    std::string mapped;
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8_length(static_cast<unsigned char>(text[i]));
        const auto it = table.find(text.substr(i, n));
        if (it == table.end()) return false;
        mapped += it->second;
        i += n;
    }
    out += mapped;
    return true;
}

// Parentheses around a fraction's part or a root's argument unless it is one atom
// (no space or operator in it): (a+b)/c but √d and dᵢₙ/2.
std::string parenthesize(const std::string& text) {
    static const char* const kSeparators[] = {" ", "+", "-", "=", "/", ",", "−", "·", "×"};
    for (const char* sep : kSeparators)
        if (text.find(sep) != std::string::npos) return "(" + text + ")";
    return text;
}

std::string trim_spaces(const std::string& s) {
    const size_t b = s.find_first_not_of(' ');
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// A cell's text: no spaces at its ends, one space between words (`\text{if } x`).
std::string cell_text(const std::string& s) {
    std::string out;
    for (char c : trim_spaces(s))
        if (c != ' ' || out.back() != ' ') out += c;
    return out;
}

struct Range { size_t begin = 0, end = 0; };

class Converter {
public:
    // Line breaks and tabs (display math over several lines) are spaces.
    explicit Converter(std::string s) : s_(std::move(s)), match_(s_.size(), std::string::npos) {
        std::replace_if(s_.begin(), s_.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
        match_braces();
    }

    TexLayout run() {
        Out out;
        out.pieces = &layout_.pieces;
        convert({0, s_.size()}, out, 0, "");
        flush(out);
        std::stable_sort(layout_.unknown.begin(), layout_.unknown.end(),
                         [](const TexUnknown& a, const TexUnknown& b) { return a.at < b.at; });
        return std::move(layout_);
    }

private:
    // Where converted text goes: at the top level, pieces (matrices among them); inside an
    // argument, text only.
    struct Out {
        std::vector<TexPiece>* pieces = nullptr;
        std::string text;
    };

    // A construct too long to name whole (an environment name running to the end) is cut,
    // on a character's boundary.
    void unknown(size_t at, std::string construct) {
        constexpr size_t kLongest = 80;
        if (construct.size() > kLongest) {
            size_t cut = kLongest;
            while (cut > 0 && (static_cast<unsigned char>(construct[cut]) & 0xC0) == 0x80) --cut;
            construct = construct.substr(0, cut) + "…";
        }
        layout_.unknown.push_back({at, std::move(construct)});
    }

    static void flush(Out& out) {
        if (out.pieces && !out.text.empty()) out.pieces->push_back(std::move(out.text));
        out.text.clear();
    }

    // Pairs every { with its }, once (a \{ or \} is an escape, not a group); reports the
    // braces left unpaired.
    void match_braces() {
        std::vector<size_t> open;
        for (size_t i = 0; i < s_.size(); ++i) {
            if (s_[i] == '\\') { ++i; continue; }
            if (s_[i] == '{') open.push_back(i);
            if (s_[i] == '}') {
                if (open.empty()) { unknown(i, "} without a matching {"); continue; }
                match_[open.back()] = i;
                match_[i] = open.back();
                open.pop_back();
            }
        }
        for (size_t at : open) unknown(at, "{ without a matching }");
    }

    // The end of the group opened at s_[i] ('{'), past its '}'; `limit` if unclosed.
    size_t group_end(size_t i, size_t limit) const {
        return match_[i] != std::string::npos && match_[i] < limit ? match_[i] + 1 : limit;
    }

    // A command at s_[i] ('\'): its name (letters, or one other character) and the offset after it.
    std::string command_at(size_t& i, size_t limit) const {
        const size_t start = ++i;
        while (i < limit && std::isalpha(static_cast<unsigned char>(s_[i]))) ++i;
        if (i == start && i < limit) i = std::min(limit, i + utf8_length(static_cast<unsigned char>(s_[i])));
        return s_.substr(start, i - start);
    }

    // The argument at s_[i]: a {group} (its inside), a \command, or one character.
    Range argument(size_t& i, size_t limit) const {
        while (i < limit && s_[i] == ' ') ++i;
        if (i >= limit) return {limit, limit};
        if (s_[i] == '{') {
            const bool closed = match_[i] != std::string::npos && match_[i] < limit;
            const Range inside{i + 1, closed ? match_[i] : limit};
            i = closed ? match_[i] + 1 : limit;
            return inside;
        }
        const size_t start = i;
        if (s_[i] == '\\') command_at(i, limit);
        else i += utf8_length(static_cast<unsigned char>(s_[i]));
        return {start, std::min(i, limit)};
    }

    // An environment's name after \begin or \end: the {name} at s_[i], raw.
    std::string env_name(size_t& i, size_t limit) const {
        const Range r = argument(i, limit);
        return s_.substr(r.begin, r.end - r.begin);
    }

    // `range` converted as the argument of `what` (text only).
    std::string nested(Range range, int depth, const std::string& what) {
        Out out;
        convert(range, out, depth + 1, what);
        return out.text;
    }

    // \begin{env} at `at` whose body starts at i: the grid, with i moved past \end{env}.
    void grid(const std::string& env, size_t at, size_t& i, size_t limit, Out& out, int depth, const std::string& inside) {
        const GridEnv& kind = kGridEnvs.at(env);
        TexMatrix m;
        m.env = env;
        m.open = kind.open;
        m.close = kind.close;
        m.left_aligned = kind.left_aligned;
        // Cells end at & and rows at \\, outside braces and nested environments.
        std::vector<Range> cells;
        auto add_row = [&] { m.rows.emplace_back(); for (Range c : cells) m.rows.back().push_back(cell_text(nested(c, depth, "a matrix"))); cells.clear(); };
        size_t cell = i, nesting = 0;
        bool closed = false;
        while (i < limit) {
            if (s_[i] == '{') { i = group_end(i, limit); continue; }
            if (s_[i] == '&' && nesting == 0) { cells.push_back({cell, i}); cell = ++i; continue; }
            if (s_[i] != '\\') { ++i; continue; }
            const size_t command = i;
            const std::string name = command_at(i, limit);
            if (name == "\\" && nesting == 0) {
                cells.push_back({cell, command});
                add_row();
                cell = i;
            } else if (name == "begin") {
                ++nesting;
            } else if (name == "end") {
                size_t after = i;
                if (nesting == 0 && env_name(after, limit) == env) {
                    cells.push_back({cell, command});
                    i = after;
                    closed = true;
                    break;
                }
                if (nesting > 0) --nesting;
            }
        }
        if (!closed) {
            unknown(at, "\\begin{" + env + "} without \\end{" + env + "}");
            cells.push_back({cell, limit});
        }
        // A \\ before \end ends the last row; it does not start an empty one.
        const bool empty_last = cells.size() == 1 && s_.find_first_not_of(' ', cells[0].begin) >= cells[0].end;
        if (!(empty_last && !m.rows.empty())) add_row();
        if (out.pieces) {
            flush(out);
            out.pieces->push_back(std::move(m));
        } else {
            unknown(at, "\\begin{" + env + "} inside " + inside + " (a matrix is laid out only at the top of the math)");
            out.text += to_text(m);
        }
    }

    void convert(Range range, Out& out, int depth, const std::string& inside) {
        if (depth > kMaxDepth) {
            unknown(range.begin, "arguments nested more than " + std::to_string(kMaxDepth) + " deep");
            return;
        }
        std::string& text = out.text;
        size_t i = range.begin;
        const size_t limit = range.end;
        while (i < limit) {
            const char c = s_[i];
            if (c == '\\') {
                const size_t at = i;
                const std::string command = command_at(i, limit);
                if (command == "frac" || command == "dfrac" || command == "tfrac") {
                    const std::string num = nested(argument(i, limit), depth, "\\" + command);
                    const std::string den = nested(argument(i, limit), depth, "\\" + command);
                    text += parenthesize(num) + "/" + parenthesize(den);
                } else if (kShowArgument.count(command)) {
                    text += nested(argument(i, limit), depth, "\\" + command);
                } else if (command == "mathbb") {
                    const Range r = argument(i, limit);
                    const std::string letter = s_.substr(r.begin, r.end - r.begin);
                    const auto it = kBlackboard.find(letter);
                    text += it != kBlackboard.end() ? it->second : letter;
                } else if (command == "sqrt") {
                    std::string index;
                    size_t j = i;
                    while (j < limit && s_[j] == ' ') ++j;
                    if (j < limit && s_[j] == '[') {
                        const size_t close = s_.find(']', j);
                        if (close != std::string::npos && close < limit) {
                            index = trim_spaces(nested({j + 1, close}, depth, "\\sqrt"));
                            i = close + 1;
                        }
                    }
                    const std::string body = parenthesize(nested(argument(i, limit), depth, "\\sqrt"));
                    if (index == "3") text += "∛" + body;
                    else if (index == "4") text += "∜" + body;
                    else if (index.empty() || !map_all(index, kSuperscripts, text)) text += (index.empty() ? "" : "^(" + index + ")") + "√" + body;
                    else text += "√" + body;
                } else if (const auto accent = kAccents.find(command); accent != kAccents.end()) {
                    text += nested(argument(i, limit), depth, "\\" + command) + accent->second;
                } else if (command == "underbrace" || command == "overbrace") {
                    // A tie under (over) the part; the label follows as its sub- (super)script.
                    text += parenthesize(nested(argument(i, limit), depth, "\\" + command)) + (command == "underbrace" ? "‿" : "⁀");
                } else if (kIgnored.count(command)) {
                    if ((command == "left" || command == "right" || command == "middle") && i < limit && s_[i] == '.') ++i;  // an invisible delimiter
                } else if (kSpaces.count(command)) {
                    text += ' ';
                    while (i < limit && s_[i] == ' ') ++i;  // one space, not two
                } else if (kEscapes.count(command)) {
                    text += command;
                } else if (const auto symbol = kSymbols.find(command); symbol != kSymbols.end()) {
                    text += symbol->second;
                } else if (command == "begin") {
                    const std::string env = env_name(i, limit);
                    if (kGridEnvs.count(env)) {
                        grid(env, at, i, limit, out, depth, inside);
                    } else {
                        unknown(at, "\\begin{" + env + "}");
                        open_unknown_.push_back(env);
                        text += "\\begin{" + env + "}";
                    }
                } else if (command == "end") {
                    const std::string env = env_name(i, limit);
                    const auto open = std::find(open_unknown_.rbegin(), open_unknown_.rend(), env);
                    if (open != open_unknown_.rend()) open_unknown_.erase(std::next(open).base());  // reported at its \begin
                    else unknown(at, "\\end{" + env + "} without \\begin{" + env + "}");
                    text += "\\end{" + env + "}";
                } else {
                    unknown(at, command.empty() ? "\\ at the end of the math" : "\\" + command);
                    text += "\\" + command;
                }
            } else if (c == '_' || c == '^') {
                ++i;
                const std::string arg = nested(argument(i, limit), depth, c == '_' ? "a subscript" : "a superscript");
                if (arg.empty()) {
                    text += c;
                } else if (!map_all(arg, c == '_' ? kSubscripts : kSuperscripts, text)) {
                    const bool one_character = utf8_length(static_cast<unsigned char>(arg[0])) == arg.size();
                    text += std::string(1, c) + (one_character ? arg : "(" + arg + ")");
                }
            } else if (c == '{' || c == '}') {
                ++i;  // a group only groups; an unpaired brace was reported by match_braces
            } else if (c == '~') {
                text += ' ';
                ++i;
            } else if (c == '&') {
                unknown(i, "& outside a matrix");
                text += c;
                ++i;
            } else if (c == '#' || c == '%') {
                unknown(i, c == '#' ? "# (write \\# for the sign)" : "% (TeX reads the rest of the line as a comment; write \\%)");
                text += c;
                ++i;
            } else {
                text += c;
                ++i;
            }
        }
    }

    std::string s_;
    std::vector<size_t> match_;               // the offset of each brace's partner
    std::vector<std::string> open_unknown_;   // unknown environments begun, not yet ended
    TexLayout layout_;
};

}  // namespace

size_t TexMatrix::columns() const {
    size_t n = 0;
    for (const auto& row : rows) n = std::max(n, row.size());
    return n;
}

TexLayout tex_layout(const std::string& tex) { return Converter(tex).run(); }

std::string to_text(const TexMatrix& matrix) {
    std::string out = matrix.open;
    for (size_t r = 0; r < matrix.rows.size(); ++r) {
        if (r > 0) out += "; ";
        for (size_t c = 0; c < matrix.rows[r].size(); ++c) out += (c > 0 ? " " : "") + matrix.rows[r][c];
    }
    return out + matrix.close;
}

std::string to_text(const std::vector<TexPiece>& pieces) {
    std::string out;
    for (const TexPiece& piece : pieces)
        out += std::holds_alternative<std::string>(piece) ? std::get<std::string>(piece) : to_text(std::get<TexMatrix>(piece));
    return out;
}

std::string tex_to_unicode(const std::string& tex) { return to_text(tex_layout(tex).pieces); }

}  // namespace icl

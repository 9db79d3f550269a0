#include "tex_text.h"

#include <cctype>
#include <map>

namespace {

const std::map<std::string, std::string> kSymbols = {
    {"alpha", "α"}, {"beta", "β"}, {"gamma", "γ"}, {"delta", "δ"}, {"epsilon", "ε"},
    {"varepsilon", "ε"}, {"zeta", "ζ"}, {"eta", "η"}, {"theta", "θ"}, {"iota", "ι"},
    {"kappa", "κ"}, {"lambda", "λ"}, {"mu", "μ"}, {"nu", "ν"}, {"xi", "ξ"}, {"pi", "π"},
    {"rho", "ρ"}, {"sigma", "σ"}, {"tau", "τ"}, {"phi", "φ"}, {"varphi", "φ"}, {"chi", "χ"},
    {"psi", "ψ"}, {"omega", "ω"}, {"Gamma", "Γ"}, {"Delta", "Δ"}, {"Theta", "Θ"},
    {"Lambda", "Λ"}, {"Pi", "Π"}, {"Sigma", "Σ"}, {"Phi", "Φ"}, {"Psi", "Ψ"}, {"Omega", "Ω"},
    {"sum", "∑"}, {"prod", "∏"}, {"int", "∫"}, {"otimes", "⊗"}, {"oplus", "⊕"}, {"odot", "⊙"},
    {"cdot", "·"}, {"times", "×"}, {"div", "÷"}, {"pm", "±"}, {"top", "⊤"}, {"intercal", "⊤"},
    {"le", "≤"}, {"leq", "≤"}, {"ge", "≥"}, {"geq", "≥"}, {"neq", "≠"}, {"ne", "≠"},
    {"approx", "≈"}, {"sim", "∼"}, {"equiv", "≡"}, {"propto", "∝"}, {"infty", "∞"},
    {"to", "→"}, {"rightarrow", "→"}, {"leftarrow", "←"}, {"gets", "←"}, {"Rightarrow", "⇒"},
    {"mapsto", "↦"}, {"in", "∈"}, {"notin", "∉"}, {"subset", "⊂"}, {"nabla", "∇"},
    {"partial", "∂"}, {"langle", "⟨"}, {"rangle", "⟩"}, {"lVert", "‖"}, {"rVert", "‖"},
    {"|", "‖"}, {"ldots", "…"}, {"dots", "…"}, {"cdots", "⋯"}, {"forall", "∀"},
    {"exists", "∃"}, {"prime", "′"}, {"circ", "∘"}, {"star", "⋆"}, {"ell", "ℓ"},
    {"log", "log"}, {"exp", "exp"}, {"max", "max"}, {"min", "min"}, {"arg", "arg"},
    {"softmax", "softmax"}, {"lim", "lim"}, {"det", "det"}, {"dim", "dim"}, {"sin", "sin"},
    {"cos", "cos"}, {"tanh", "tanh"},
};

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

size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead >> 5) == 0x6) return 2;
    if ((lead >> 4) == 0xE) return 3;
    if ((lead >> 3) == 0x1E) return 4;
    return 1;
}

std::string convert(const std::string& s);

// The argument at s[i]: a {group} (its raw inner text), a \command, or one character.
std::string read_argument(const std::string& s, size_t& i) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) return "";
    if (s[i] == '{') {
        int depth = 0;
        size_t start = i + 1;
        for (; i < s.size(); ++i) {
            if (s[i] == '\\' && i + 1 < s.size()) { ++i; continue; }
            if (s[i] == '{') ++depth;
            if (s[i] == '}' && --depth == 0) break;
        }
        std::string inner = s.substr(start, i - start);
        if (i < s.size()) ++i;
        return inner;
    }
    if (s[i] == '\\') {
        size_t start = i++;
        while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
        if (i == start + 1 && i < s.size()) ++i;  // \, \{ ...
        return s.substr(start, i - start);
    }
    size_t n = utf8_length(static_cast<unsigned char>(s[i]));
    std::string one = s.substr(i, n);
    i += n;
    return one;
}

// Maps every character of `text` through `table`; false if one has no entry.
bool map_all(const std::string& text, const std::map<std::string, std::string>& table, std::string& out) {
    std::string mapped;
    for (size_t i = 0; i < text.size();) {
        size_t n = utf8_length(static_cast<unsigned char>(text[i]));
        auto it = table.find(text.substr(i, n));
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

std::string convert(const std::string& s) {
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\\') {
            std::string command = read_argument(s, i).substr(1);
            if (command == "frac" || command == "dfrac" || command == "tfrac") {
                std::string num = convert(read_argument(s, i));
                std::string den = convert(read_argument(s, i));
                out += parenthesize(num) + "/" + parenthesize(den);
            } else if (command == "text" || command == "mathrm" || command == "mathbf" ||
                       command == "mathit" || command == "operatorname" || command == "mathcal" ||
                       command == "boldsymbol" || command == "textbf" || command == "mathsf" ||
                       command == "textit" || command == "bm") {
                out += convert(read_argument(s, i));
            } else if (command == "mathbb") {
                std::string letter = read_argument(s, i);
                out += letter == "R" ? "ℝ" : letter == "N" ? "ℕ" : letter == "Z" ? "ℤ" : letter;
            } else if (command == "sqrt") {
                out += "√" + parenthesize(convert(read_argument(s, i)));
            } else if (command == "hat" || command == "tilde" || command == "bar" ||
                       command == "vec" || command == "overline") {
                out += convert(read_argument(s, i));
                out += command == "hat" ? "\u0302" : command == "tilde" ? "\u0303" : command == "vec" ? "\u20D7" : "\u0304";
            } else if (command == "left" || command == "right" || command == "big" || command == "Big" ||
                       command == "bigl" || command == "bigr" || command == "Bigl" || command == "Bigr" ||
                       command == "displaystyle") {
                if (i < s.size() && s[i] == '.') ++i;  // \left. is an invisible delimiter
            } else if (command == "," || command == ";" || command == ":" || command == " " ||
                       command == "quad" || command == "qquad" || command == "\\") {
                out += ' ';
                while (i < s.size() && s[i] == ' ') ++i;  // one space, not two
            } else if (command == "!") {
            } else if (command == "{" || command == "}" || command == "_" || command == "%" ||
                       command == "&" || command == "#" || command == "$") {
                out += command;
            } else if (auto it = kSymbols.find(command); it != kSymbols.end()) {
                out += it->second;
            } else {
                out += "\\" + command;
            }
        } else if (c == '_' || c == '^') {
            ++i;
            std::string argument = convert(read_argument(s, i));
            if (argument.empty())
                out += c;
            else if (!map_all(argument, c == '_' ? kSubscripts : kSuperscripts, out)) {
                const bool one_character = utf8_length(static_cast<unsigned char>(argument[0])) == argument.size();
                out += std::string(1, c) + (one_character ? argument : "(" + argument + ")");
            }
        } else if (c == '{' || c == '}') {
            ++i;
        } else if (c == '~') {
            out += ' ';
            ++i;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

}  // namespace

std::string tex_to_unicode(const std::string& tex) { return convert(tex); }

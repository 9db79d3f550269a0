// The TeX -> Unicode pass (icl/tex_text.h) against hand-written renderings of the
// lessons' kinds of math: symbols, scripts, fractions, matrices as grids, and the
// constructs it reports as unknown (which the lesson lint refuses).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "icl/tex_text.h"

using icl::tex_to_unicode;

namespace {

// The constructs the pass reports, in order.
std::vector<std::string> unknown_of(const std::string& tex) {
    std::vector<std::string> out;
    for (const icl::TexUnknown& u : icl::tex_layout(tex).unknown) out.push_back(u.construct);
    return out;
}

using Rows = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("tex: commands become their symbols") {
    CHECK(tex_to_unicode("W = W_0 + \\sum_i e_i \\otimes x_i") == "W = W₀ + ∑ᵢ eᵢ ⊗ xᵢ");
    CHECK(tex_to_unicode("\\alpha \\cdot \\eta \\le \\infty") == "α · η ≤ ∞");
    CHECK(tex_to_unicode("x \\in \\mathbb{R}^{d}") == "x ∈ ℝᵈ");
}

TEST_CASE("tex: \\mid and \\ln, as lesson 5 writes them") {
    const std::string posterior = "p(y \\mid \\text{prompt}) = \\sum_{\\theta} p(y \\mid \\text{prompt}, \\theta)\\; p(\\theta \\mid \\text{prompt}).";
    CHECK(tex_to_unicode(posterior) == "p(y ∣ prompt) = ∑_θ p(y ∣ prompt, θ) p(θ ∣ prompt).");
    CHECK(icl::tex_layout(posterior).unknown.empty());
    CHECK(tex_to_unicode("\\ln 5 \\approx 1.61") == "ln 5 ≈ 1.61");
    CHECK(icl::tex_layout("\\ln 5 \\approx 1.61").unknown.empty());
}

TEST_CASE("tex: sub- and superscripts use Unicode where every character has one") {
    CHECK(tex_to_unicode("K^\\top q") == "Kᵀ q");
    CHECK(tex_to_unicode("W^{-1}") == "W⁻¹");
    CHECK(tex_to_unicode("\\sum_{t=1}^{T} v_t") == "∑ₜ₌₁ᵀ vₜ");
    CHECK(tex_to_unicode("d_{in}") == "dᵢₙ");
    // No subscript capital B exists: the text stays readable instead.
    CHECK(tex_to_unicode("x_{B}") == "x_B");
    CHECK(tex_to_unicode("x_{AB}") == "x_(AB)");
}

TEST_CASE("tex: fractions, roots, text, braces under, spacing") {
    CHECK(tex_to_unicode("\\frac{1}{2}") == "1/2");
    CHECK(tex_to_unicode("\\frac{a+b}{c}") == "(a+b)/c");
    CHECK(tex_to_unicode("\\sqrt{d}") == "√d");
    CHECK(tex_to_unicode("\\sqrt[3]{x}") == "∛x");
    CHECK(tex_to_unicode("\\mathrm{softmax}\\!\\left(\\frac{K^\\top q}{\\sqrt{d}}\\right)") == "softmax((Kᵀ q)/√d)");
    CHECK(tex_to_unicode("a\\,b\\quad c") == "a b c");
    CHECK(tex_to_unicode("\\text{loss}") == "loss");
    CHECK(tex_to_unicode("\\underbrace{x}_{n}") == "x‿ₙ");
    CHECK(tex_to_unicode("\\underbrace{x+y}_{n}") == "(x+y)‿ₙ");
    // A display formula written over several lines reads as one.
    CHECK(tex_to_unicode("a =\n  b") == "a =   b");
}

TEST_CASE("tex: lesson 4's two matrices are grids between the text around them") {
    // lessons/en/04-learned-update-rules.md, the weights of von Oswald et al.'s construction.
    const std::string tex = "W_K = W_Q = \\begin{pmatrix} I_x & 0 \\\\ 0 & 0 \\end{pmatrix}, \\qquad "
                            "W_V = \\begin{pmatrix} 0 & 0 \\\\ W_0 & -I_y \\end{pmatrix}, \\qquad P = \\frac{\\eta}{N} I .";
    const icl::TexLayout layout = icl::tex_layout(tex);
    CHECK(layout.unknown.empty());
    REQUIRE(layout.pieces.size() == 5);
    CHECK(std::get<std::string>(layout.pieces[0]) == "W_K = W_Q = ");
    const auto& wk = std::get<icl::TexMatrix>(layout.pieces[1]);
    CHECK(wk.env == "pmatrix");
    CHECK(wk.open == "(");
    CHECK(wk.close == ")");
    CHECK(wk.columns() == 2);
    CHECK(wk.rows == Rows{{"Iₓ", "0"}, {"0", "0"}});
    CHECK(std::get<std::string>(layout.pieces[2]) == ",  W_V = ");
    CHECK(std::get<icl::TexMatrix>(layout.pieces[3]).rows == Rows{{"0", "0"}, {"W₀", "-I_y"}});
    CHECK(std::get<std::string>(layout.pieces[4]) == ",  P = η/N I .");
    // On one line, the rows are separated by "; ".
    CHECK(tex_to_unicode(tex) == "W_K = W_Q = (Iₓ 0; 0 0),  W_V = (0 0; W₀ -I_y),  P = η/N I .");
}

TEST_CASE("tex: each matrix environment, ragged rows, a closing \\\\, braces in a cell") {
    const auto only_matrix = [](const std::string& tex) {
        const icl::TexLayout layout = icl::tex_layout(tex);
        CHECK(layout.unknown.empty());
        REQUIRE(layout.pieces.size() == 1);
        return std::get<icl::TexMatrix>(layout.pieces[0]);
    };
    const icl::TexMatrix b = only_matrix("\\begin{bmatrix} a & b \\\\ c \\\\ \\end{bmatrix}");
    CHECK(b.open == "[");
    CHECK(b.close == "]");
    CHECK(b.rows == Rows{{"a", "b"}, {"c"}});  // the last \\ starts no empty row
    CHECK(b.columns() == 2);
    const icl::TexMatrix v = only_matrix("\\begin{vmatrix}x_{1} & \\frac{1}{2}\\end{vmatrix}");
    CHECK(v.open == "|");
    CHECK(v.rows == Rows{{"x₁", "1/2"}});
    CHECK(only_matrix("\\begin{Vmatrix}1\\end{Vmatrix}").open == "‖");
    CHECK(only_matrix("\\begin{Bmatrix}1\\end{Bmatrix}").close == "}");
    const icl::TexMatrix plain = only_matrix("\\begin{matrix}1 & 2\\end{matrix}");
    CHECK(plain.open.empty());
    CHECK(plain.close.empty());
    const icl::TexMatrix cases = only_matrix("\\begin{cases} 1 & \\text{if } x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}");
    CHECK(cases.open == "{");
    CHECK(cases.close.empty());
    CHECK(cases.left_aligned);
    CHECK(cases.rows == Rows{{"1", "if x > 0"}, {"0", "otherwise"}});
}

TEST_CASE("tex: what it cannot show is named, at its offset, and stays as written") {
    CHECK(tex_to_unicode("\\unknowncommand x") == "\\unknowncommand x");
    CHECK(unknown_of("\\unknowncommand x") == std::vector<std::string>{"\\unknowncommand"});
    const icl::TexLayout foo = icl::tex_layout("a + \\foo{b}");
    REQUIRE(foo.unknown.size() == 1);
    CHECK(foo.unknown[0].at == 4);
    CHECK(foo.unknown[0].construct == "\\foo");
    CHECK(unknown_of("\\begin{align} a &= b \\end{align}") == std::vector<std::string>{"\\begin{align}", "& outside a matrix"});
    CHECK(unknown_of("a & b") == std::vector<std::string>{"& outside a matrix"});
    CHECK(unknown_of("\\end{pmatrix}") == std::vector<std::string>{"\\end{pmatrix} without \\begin{pmatrix}"});
    CHECK(unknown_of("\\begin{pmatrix} a") == std::vector<std::string>{"\\begin{pmatrix} without \\end{pmatrix}"});
    CHECK(unknown_of("\\frac{\\begin{pmatrix} a \\end{pmatrix}}{2}") ==
          std::vector<std::string>{"\\begin{pmatrix} inside \\frac (a matrix is laid out only at the top of the math)"});
    CHECK(tex_to_unicode("\\sqrt{\\begin{pmatrix} a \\\\ b \\end{pmatrix}}") == "√((a; b))");  // written on one line
    CHECK(unknown_of("50%") == std::vector<std::string>{"% (TeX reads the rest of the line as a comment; write \\%)"});
    CHECK(unknown_of("50\\% \\#1").empty());
    // \softmax is no TeX command (KaTeX refuses it): \operatorname{softmax} is.
    CHECK(unknown_of("\\softmax(x)") == std::vector<std::string>{"\\softmax"});
}

TEST_CASE("tex: unbalanced braces and cut-off input are reported, not a crash") {
    CHECK(tex_to_unicode("") == "");
    CHECK(tex_to_unicode("x_") == "x_");
    CHECK(tex_to_unicode("\\frac{1}") == "1/");
    CHECK(tex_to_unicode("{{{") == "");
    CHECK(unknown_of("{{{").size() == 3);
    CHECK(unknown_of("a}") == std::vector<std::string>{"} without a matching {"});
    CHECK(tex_to_unicode("\\") == "\\");
    CHECK(unknown_of("\\") == std::vector<std::string>{"\\ at the end of the math"});
    const std::string deep = std::string(3000, '{') + "x" + std::string(3000, '}');
    CHECK(tex_to_unicode(deep) == "x");
    std::string fracs;
    for (int k = 0; k < 200; ++k) fracs += "\\frac{";
    const icl::TexLayout nested = icl::tex_layout(fracs);
    CHECK_FALSE(nested.unknown.empty());
}

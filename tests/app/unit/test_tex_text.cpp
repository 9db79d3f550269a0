// The TeX -> Unicode pass against hand-written renderings of the lessons' kinds of math.
#include <doctest/doctest.h>

#include "tex_text.h"

TEST_CASE("commands become their symbols") {
    CHECK(tex_to_unicode("W = W_0 + \\sum_i e_i \\otimes x_i") == "W = W₀ + ∑ᵢ eᵢ ⊗ xᵢ");
    CHECK(tex_to_unicode("\\alpha \\cdot \\eta \\le \\infty") == "α · η ≤ ∞");
    CHECK(tex_to_unicode("x \\in \\mathbb{R}^{d}") == "x ∈ ℝᵈ");
}

TEST_CASE("sub- and superscripts use Unicode where every character has one") {
    CHECK(tex_to_unicode("K^\\top q") == "Kᵀ q");
    CHECK(tex_to_unicode("W^{-1}") == "W⁻¹");
    CHECK(tex_to_unicode("\\sum_{t=1}^{T} v_t") == "∑ₜ₌₁ᵀ vₜ");
    CHECK(tex_to_unicode("d_{in}") == "dᵢₙ");
    // No subscript capital B exists: the text stays readable instead.
    CHECK(tex_to_unicode("x_{B}") == "x_B");
    CHECK(tex_to_unicode("x_{AB}") == "x_(AB)");
}

TEST_CASE("fractions, roots, text and spacing") {
    CHECK(tex_to_unicode("\\frac{1}{2}") == "1/2");
    CHECK(tex_to_unicode("\\frac{a+b}{c}") == "(a+b)/c");
    CHECK(tex_to_unicode("\\sqrt{d}") == "√d");
    CHECK(tex_to_unicode("\\mathrm{softmax}\\!\\left(\\frac{K^\\top q}{\\sqrt{d}}\\right)") == "softmax((Kᵀ q)/√d)");
    CHECK(tex_to_unicode("a\\,b\\quad c") == "a b c");
    CHECK(tex_to_unicode("\\text{loss}") == "loss");
}

TEST_CASE("what it does not know stays as written, and bad input does not crash") {
    CHECK(tex_to_unicode("\\unknowncommand x") == "\\unknowncommand x");
    CHECK(tex_to_unicode("") == "");
    CHECK(tex_to_unicode("x_") == "x_");
    CHECK(tex_to_unicode("\\frac{1}") == "1/");
    CHECK(tex_to_unicode("{{{") == "");
    CHECK(tex_to_unicode("\\") == "\\");
}

// Lesson math as the desktop app shows it: a light TeX pass, not a typesetter. Common
// commands become their symbols (\sum -> ∑, \otimes -> ⊗, \alpha -> α, \mid -> ∣),
// simple sub/superscripts become Unicode sub/superscript letters where they exist
// (W_0 -> W₀, x^T -> xᵀ), \frac{a}{b} becomes a/b, and a matrix environment (matrix,
// pmatrix, bmatrix, Bmatrix, vmatrix, Vmatrix, cases) becomes a grid of cells for the
// front end to lay out in rows and aligned columns between its delimiters.
//
// It is also the one list of what the desktop can show: whatever it does not know
// (an unknown command or environment, a matrix nested in an argument, a stray & or an
// unbalanced brace) it reports in TexLayout::unknown, and the lesson lint refuses it
// (the web's KaTeX renders more, so this pass is the limiting front end). Pure string
// code: no I/O, the same natively and in wasm.
#pragma once
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace icl {

// A matrix environment: its cells, already in Unicode text, row by row.
struct TexMatrix {
    std::string env;              // "pmatrix", "cases", ...
    std::string open, close;      // the delimiters to draw: "(" ")", "[" "]", "{" "}", "|" "|", "‖" "‖", or ""
    bool left_aligned = false;    // cases: cells flush left; matrices: cells centred in their column
    std::vector<std::vector<std::string>> rows;  // a row may have fewer cells than columns()
    size_t columns() const;       // cells in the longest row
};

// One piece of a math span: Unicode text, or a matrix to lay out as a grid.
using TexPiece = std::variant<std::string, TexMatrix>;

// A construct the pass cannot show, as an author would write it, and where it starts.
struct TexUnknown {
    size_t at = 0;           // byte offset in the TeX
    std::string construct;   // "\foo", "\begin{align}", "& outside a matrix", ...
};

struct TexLayout {
    std::vector<TexPiece> pieces;     // in order; no two text pieces in a row
    std::vector<TexUnknown> unknown;  // in order of offset; empty: the pass shows all of it
};

// The TeX of one math span ($...$ or $$...$$, without the dollars) as pieces.
TexLayout tex_layout(const std::string& tex);

// The same span as one line of text: a matrix is written in its delimiters with its rows
// separated by "; " ("(Iₓ 0; 0 0)"). Unknown constructs stay as written.
std::string tex_to_unicode(const std::string& tex);
std::string to_text(const TexMatrix& matrix);
std::string to_text(const std::vector<TexPiece>& pieces);

}  // namespace icl

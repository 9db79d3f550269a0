// A light TeX -> Unicode pass for showing lesson math as text: common commands become
// their symbols (\sum -> ∑, \otimes -> ⊗, \alpha -> α), simple sub/superscripts become
// Unicode sub/superscript letters where they exist (W_0 -> W₀, x^T -> xᵀ), \frac{a}{b}
// becomes a/b. Readable, not typeset: what it does not know it leaves as written.
#pragma once
#include <string>

std::string tex_to_unicode(const std::string& tex);

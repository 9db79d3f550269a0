// Numeric kernels: raw pointers plus sizes, row-major, no allocation.
//
// The list of kernels, with each one's shapes, is kernel_list.h (written once; this
// header, the dispatch table and every instruction set's table expand it).
// Each kernel has a plain scalar reference in namespace icl::ref with the same
// signature; the tests hold the two together. The fast versions use xsimd batches
// on the widest instruction set the processor has (picked at run time natively;
// SSE4.1 lowered to WASM SIMD128 in wasm). set_isa() restricts the choice, for
// benchmarks and tests.
//
// Convention (as in llm.c): *_backward functions ACCUMULATE (+=) into every
// gradient buffer they are given; callers zero gradients before a backward pass.
#pragma once
#include <cstddef>
#include <cstdint>

namespace icl {

enum class Isa { scalar, sse41, avx2, avx512 };
Isa best_isa();                 // widest the processor and the build support
Isa current_isa();
void set_isa(Isa isa);          // clamps to best_isa()
const char* isa_name(Isa isa);  // "scalar" | "sse4.1" | "avx2+fma" | "avx512"

// Which key positions j a query at position i may attend to (always j <= i).
// banded needs window >= 1 and strided needs stride >= 1 (gpt::validate, in
// gpt_config.cpp, checks this); then j = i is always allowed, so no row is empty.
struct AttentionMask {
    enum Kind { causal, banded, strided } kind = causal;
    int window = 0;  // banded: j > i - window
    int stride = 0;  // strided: j > i - stride, or (i - j) % stride == 0
    bool allows(int i, int j) const {
        if (j > i) return false;
        switch (kind) {
            case banded: return i - j < window;
            case strided: return i - j < stride || (i - j) % stride == 0;
            default: return true;
        }
    }
};

// layernorm's eps, as GPT-2 and PyTorch's default (the kernels take it explicitly).
constexpr float kLayerNormEps = 1e-5f;

// Every kernel, declared from the one list (kernel_list.h, which has each one's
// shapes): icl::name dispatches to the current instruction set, icl::ref::name is
// its scalar reference.
#define ICL_KERNEL(name, params, args) void name params;
#include "icl/kernel_list.h"
namespace ref {
#include "icl/kernel_list.h"
}  // namespace ref
#undef ICL_KERNEL

}  // namespace icl

// The fast kernels, written once over an xsimd architecture. Each kernels_<isa>.cpp
// includes this header, compiled with that instruction set's flags, and fills a
// KernelTable with Kernels<Arch>. Everything here has internal linkage (anonymous
// namespace or a template over Arch), so no function compiled for one instruction
// set can be picked by the linker for another.
//
// Layout: row-major everywhere. Scalar tails use the same formula as the reference.
//
// The kernels themselves are in one file a concept, each a part of Kernels' body:
// kernels_simd_math.h (exp, lane reductions, row helpers), _gemm.h, _attention.h,
// _elementwise.h (layernorm, GELU, cross-entropy), _optim.h, _feature_map.h.
#pragma once
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels_table.h"

#if defined(__clang__)
#define ICL_UNROLL _Pragma("unroll")
#else
#define ICL_UNROLL _Pragma("GCC unroll 16")
#endif
// on a lambda or a function: the compiler must inline it (a per-k step called out of line
// keeps its accumulators in memory).
#define ICL_INLINE __attribute__((always_inline))
// one step over each of N vectors (exp_n below)
#define ICL_EACH(u) ICL_UNROLL for (int u = 0; u < N; ++u)

namespace icl::detail {

// 64-byte aligned per-thread scratch, grown on demand and kept (kernels.cpp).
float* scratch(size_t floats);

}  // namespace icl::detail

namespace icl {
namespace {

// GEMM register-tile rows (MR) per architecture; the tile is MR x 2 batches wide.
template <class Arch>
struct GemmShape {
    // SSE4.1 / SIMD128: 8 accumulators. V8 keeps a 4x8 tile in registers but spills a 6x8 one.
    static constexpr int MR = 4;
};
template <>
struct GemmShape<xsimd::fma3<xsimd::avx2>> {
    static constexpr int MR = 6;  // 12 accumulators + 2 B + 1 broadcast of 16 registers
};
template <>
struct GemmShape<xsimd::avx512f> {
    // 16 accumulators of 32 registers; 64 divides by 8 (docs/performance.md has the other row counts).
    static constexpr int MR = 8;
};

template <class Arch>
struct Kernels {
    using B = xsimd::batch<float, Arch>;
    static constexpr int W = static_cast<int>(B::size);

    // a·b + c, fused where the instruction set has it. xsimd 8.1 has no fused form
    // for avx512f (it falls back to a multiply and an add), so that one is spelled out.
    static B fma(const B& a, const B& b, const B& c) {
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512f>) return B(_mm512_fmadd_ps(a, b, c));
#endif
        return xsimd::fma(a, b, c);
    }

    // The kernels by concept, each part of this struct's body (the order does not matter:
    // members see each other from every function body).
#define ICL_KERNELS_SIMD_BODY
#include "kernels_simd_math.h"
#include "kernels_simd_gemm.h"
#include "kernels_simd_attention.h"
#include "kernels_simd_elementwise.h"
#include "kernels_simd_optim.h"
#include "kernels_simd_feature_map.h"
#undef ICL_KERNELS_SIMD_BODY

    // The entry points, one per line of kernel_list.h.
    static constexpr detail::KernelTable table() {
        return {
#define ICL_KERNEL(name, params, args) name,
#include "icl/kernel_list.h"
#undef ICL_KERNEL
        };
    }
};

}  // namespace
}  // namespace icl

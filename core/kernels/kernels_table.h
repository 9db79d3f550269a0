// Internal: one table of kernel entry points per instruction set. kernels.cpp picks
// a table at run time; each kernels_<isa>.cpp fills one from kernels_simd.h.
#pragma once
#include "icl/kernels.h"

namespace icl::detail {

struct KernelTable {
#define ICL_KERNEL(name, params, args) decltype(&ref::name) name;
#include "icl/kernel_list.h"
#undef ICL_KERNEL
};

// Defined in kernels_<isa>.cpp; wasm builds only the SSE4.1 set.
extern const KernelTable kSse41;
#if !defined(ICL_WASM)
extern const KernelTable kAvx2;
extern const KernelTable kAvx512;
#endif

}  // namespace icl::detail

// The kernel set for xsimd::sse4_1, compiled with SSE4.1 flags (in wasm: SIMD128).
#include "kernels_simd.h"

namespace icl::detail {
extern const KernelTable kSse41;
const KernelTable kSse41 = Kernels<xsimd::sse4_1>::table();
}  // namespace icl::detail

// The kernel set for xsimd::avx512f, compiled with AVX-512 flags.
// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_ps in xsimd's
// reductions); a known false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "kernels_simd.h"

namespace icl::detail {
extern const KernelTable kAvx512;
const KernelTable kAvx512 = Kernels<xsimd::avx512f>::table();
}  // namespace icl::detail

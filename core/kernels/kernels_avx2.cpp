// The kernel set for xsimd::fma3<xsimd::avx2>, compiled with AVX2 + FMA flags.
#include "kernels_simd.h"

namespace icl::detail {
extern const KernelTable kAvx2;
const KernelTable kAvx2 = Kernels<xsimd::fma3<xsimd::avx2>>::table();
}  // namespace icl::detail

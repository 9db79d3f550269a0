// Internal: one table of kernel entry points per instruction set. kernels.cpp picks
// a table at run time; each kernels_<isa>.cpp fills one from kernels_simd.h.
#pragma once
#include "icl/kernels.h"

namespace icl::detail {

struct KernelTable {
    decltype(&ref::matmul_nn) matmul_nn;
    decltype(&ref::matmul_nt) matmul_nt;
    decltype(&ref::matmul_tn) matmul_tn;
    decltype(&ref::matmul_nt_lower) matmul_nt_lower;
    decltype(&ref::matmul_nn_lower) matmul_nn_lower;
    decltype(&ref::matmul_tn_lower) matmul_tn_lower;
    decltype(&ref::attention_softmax) attention_softmax;
    decltype(&ref::attention_softmax_backward) attention_softmax_backward;
    decltype(&ref::layernorm_forward) layernorm_forward;
    decltype(&ref::layernorm_backward) layernorm_backward;
    decltype(&ref::gelu_forward) gelu_forward;
    decltype(&ref::gelu_backward) gelu_backward;
    decltype(&ref::crossentropy_forward) crossentropy_forward;
    decltype(&ref::crossentropy_backward) crossentropy_backward;
    decltype(&ref::adamw_update) adamw_update;
    decltype(&ref::sgd_momentum_update) sgd_momentum_update;
    decltype(&ref::feature_map_forward) feature_map_forward;
    decltype(&ref::feature_map_backward) feature_map_backward;
    decltype(&ref::fast_weight_step) fast_weight_step;
};

// Defined in kernels_<isa>.cpp; wasm builds only the SSE4.1 set.
extern const KernelTable kSse41;
#if !defined(ICL_WASM)
extern const KernelTable kAvx2;
extern const KernelTable kAvx512;
#endif

}  // namespace icl::detail

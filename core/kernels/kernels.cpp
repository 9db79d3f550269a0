// Run-time dispatch: every public kernel calls through the table of the current
// instruction set.
#include "kernels_table.h"

#include <new>

#include "icl/profile.h"

namespace icl {

namespace detail {

// The per-thread GEMM packing buffer, 64-byte aligned, grown on demand and kept, so
// a matmul does not allocate once the buffer is large enough.
float* scratch(size_t floats) {
    struct Buffer {
        float* data = nullptr;
        size_t size = 0;
        ~Buffer() { ::operator delete[](data, std::align_val_t{64}); }
    };
    thread_local Buffer b;
    if (b.size < floats) {
        ::operator delete[](b.data, std::align_val_t{64});
        b.data = static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64}));
        b.size = floats;
    }
    return b.data;
}

}  // namespace detail

namespace {

const detail::KernelTable kScalar = {
#define ICL_KERNEL(name, params, args) ref::name,
#include "icl/kernel_list.h"
#undef ICL_KERNEL
};

Isa detect() {
#if defined(ICL_WASM)
    return Isa::sse41;  // SSE4.1 intrinsics lowered to SIMD128
#else
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
    if (__builtin_cpu_supports("sse4.1")) return Isa::sse41;
    return Isa::scalar;
#endif
}

// Constant-initialized, so kernels called from other files' static initializers
// already dispatch correctly (the first call picks the table).
const detail::KernelTable* g_table = nullptr;
Isa g_isa = Isa::scalar;

const detail::KernelTable& table_for(Isa isa) {
    switch (isa) {
        case Isa::sse41: return detail::kSse41;
#if !defined(ICL_WASM)
        case Isa::avx2: return detail::kAvx2;
        case Isa::avx512: return detail::kAvx512;
#endif
        default: return kScalar;
    }
}

const detail::KernelTable& table() {
    if (!g_table) set_isa(best_isa());
    return *g_table;
}

}  // namespace

Isa best_isa() {
    static const Isa best = detect();
    return best;
}
Isa current_isa() {
    table();
    return g_isa;
}
// Not synchronized: select the instruction set before starting threads that compute.
void set_isa(Isa isa) {
    g_isa = isa > best_isa() ? best_isa() : isa;
    g_table = &table_for(g_isa);
}

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::sse41: return "sse4.1";
        case Isa::avx2: return "avx2+fma";
        case Isa::avx512: return "avx512";
        default: return "scalar";
    }
}

// The dispatchers: each kernel calls through the current instruction set's table, as a
// phase of its own in a profiled build (icl/profile.h).
#define ICL_KERNEL(name, params, args) \
    void name params {                 \
        ICL_PROFILE_KERNEL(#name);     \
        table().name args;             \
    }
#include "icl/kernel_list.h"
#undef ICL_KERNEL

}  // namespace icl

// The counting operator new/delete of alloc_meter.h. Each block carries a 16-byte
// prefix just before the pointer handed out: its size and its offset from the start
// of the underlying malloc'd block (the offset > 16 only for over-aligned new).
#include "alloc_meter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<size_t> g_live{0}, g_peak{0};
constexpr size_t kPrefix = 16;

void* counted_alloc(size_t n, size_t align) {
    const size_t offset = align > kPrefix ? align : kPrefix;
    void* raw = nullptr;
    if (align > kPrefix) {
        if (posix_memalign(&raw, align, n + offset) != 0) raw = nullptr;
    } else {
        raw = std::malloc(n + offset);
    }
    if (!raw) return nullptr;
    char* p = static_cast<char*>(raw) + offset;
    reinterpret_cast<size_t*>(p)[-2] = n;
    reinterpret_cast<size_t*>(p)[-1] = offset;
    const size_t live = g_live.fetch_add(n) + n;
    size_t peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
    }
    return p;
}

void counted_free(void* ptr) {
    if (!ptr) return;
    char* p = static_cast<char*>(ptr);
    g_live.fetch_sub(reinterpret_cast<size_t*>(p)[-2]);
    std::free(p - reinterpret_cast<size_t*>(p)[-1]);
}

void* must_alloc(size_t n, size_t align) {
    void* p = counted_alloc(n, align);
    if (!p) throw std::bad_alloc();
    return p;
}

}  // namespace

namespace icl::testing {
size_t live_bytes() { return g_live.load(); }
size_t peak_bytes() { return g_peak.load(); }
void reset_peak() { g_peak.store(g_live.load()); }
}  // namespace icl::testing

void* operator new(size_t n) { return must_alloc(n, 0); }
void* operator new[](size_t n) { return must_alloc(n, 0); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(size_t n, std::align_val_t a) { return must_alloc(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return must_alloc(n, static_cast<size_t>(a)); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_alloc(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_alloc(n, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, size_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }

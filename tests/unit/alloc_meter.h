// Counts the bytes the unit tests allocate through operator new (every std::vector,
// std::string, xtensor buffer and make_unique in core): live bytes now and the peak
// since the last reset. tests/unit/alloc_meter.cpp replaces the global operator
// new/delete of the test binary (natively, under ASan and in wasm alike).
#pragma once
#include <cstddef>

namespace icl::testing {

size_t live_bytes();
size_t peak_bytes();      // highest live_bytes() since reset_peak()
void reset_peak();        // peak := live

// Peak bytes above the live bytes at construction, while it exists.
class PeakMeter {
public:
    PeakMeter() : base_(live_bytes()) { reset_peak(); }
    size_t peak_above_start() const { return peak_bytes() > base_ ? peak_bytes() - base_ : 0; }

private:
    size_t base_;
};

}  // namespace icl::testing

// Every instruction set the machine has, to run a test once per kernel set.
#pragma once
#include <vector>

#include "icl/kernels.h"

namespace icl::test {

// The kernel sets up to the best one; restores the best on destruction.
struct EachIsa {
    std::vector<Isa> list;
    EachIsa() {
        for (Isa i : {Isa::scalar, Isa::sse41, Isa::avx2, Isa::avx512})
            if (i <= best_isa()) list.push_back(i);
    }
    ~EachIsa() { set_isa(best_isa()); }
};

}  // namespace icl::test

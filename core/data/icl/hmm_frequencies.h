// What a concept of the HMM mixture "likes" (icl/hmm.h): its symbols' expected shares.
#pragma once
#include <vector>

#include "icl/hmm.h"

namespace icl::hmm {

// The expected share of each symbol (O) in a run of `length` symbols: the state
// distribution at each position (initial, then through transition) times the emissions,
// averaged over the positions.
std::vector<double> symbol_frequencies(const Hmm& h, int length);

}  // namespace icl::hmm

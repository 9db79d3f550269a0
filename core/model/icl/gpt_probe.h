// The tiny GPT's read hooks at the API edge: after a forward, copy out an attention
// map, a head's output, the residual stream or the logits of one batch row as
// shape-checked xtensors (for demos and front ends). An index out of range is an
// error naming it.
#pragma once
#include <xtensor/xtensor.hpp>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/linalg.h"

namespace icl::gpt {

// Forward over tokens (B,T) without targets; the activations hold everything to probe.
Expected<Activations> run(const Model& model, const xt::xtensor<int, 2>& tokens,
                          const Hooks* hooks = nullptr);

Expected<Matrix> attention_map(const Model& model, const Activations& acts, int layer, int row,
                               int head);  // (T,T): query i, key j
Expected<Matrix> head_output(const Model& model, const Activations& acts, int layer, int row,
                             int head);    // (T,hs), before Wo
Expected<Matrix> residual_stream(const Model& model, const Activations& acts, int layer,
                                 int row);  // (T,C), after `layer` (0 = embeddings)
Expected<Matrix> logits(const Model& model, const Activations& acts, int row);  // (T,V)

}  // namespace icl::gpt

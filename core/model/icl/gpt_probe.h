// The tiny GPT's read hooks at the API edge: after a forward, an attention map, a head's
// output, the residual stream, a delta layer's step sizes or the logits of one batch row,
// as 2-D xtensor views of the activations' own buffer (xt::adapt, no copy). This is the
// one way the demos, the theory code and the front ends read what a forward computed.
//
// A view reads the buffer when it is indexed: it shows what the activations hold now, and
// it is valid while they live and until the next forward into them (which may reallocate).
// Copy it into a Matrix (Matrix m = view;) to keep it past that. An index out of range is
// an error naming it.
#pragma once
#include <array>
#include <cstddef>
#include <utility>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/linalg.h"

namespace icl::gpt {

namespace detail {
// Columns [from, from + cols) of `rows` rows of `stride` floats starting at p: (rows, cols).
inline auto strided_view(const float* p, size_t rows, size_t cols, size_t stride, size_t from = 0) {
    return xt::view(xt::adapt(std::move(p), rows * stride, xt::no_ownership(), std::array<size_t, 2>{rows, stride}),
                    xt::all(), xt::range(from, from + cols));
}
}  // namespace detail

// A read-only (rows, cols) view of floats the activations own; view(i, j), begin()/end()
// row by row, and any xtensor expression over it.
using View = decltype(detail::strided_view(nullptr, 0, 0, 0));

// Forward over tokens (B,T) without targets; the activations hold everything to probe.
Expected<Activations> run(const Model& model, const xt::xtensor<int, 2>& tokens,
                          const Hooks* hooks = nullptr);

// (T,T): the weight query position i gives key position j (row i sums to 1 for softmax,
// 0 above the diagonal and where the layer's mask forbids; linear: the normalised weights;
// delta: q̂_i·k̂_j).
Expected<View> attention_map(const Activations& acts, int layer, int row, int head);
// Which of a head's projections a view shows: its queries, keys or values.
enum class Qkv { q = 0, k = 1, v = 2 };
// (T,hs): head `head`'s queries, keys or values, as the layer's projection (ln1 · Wqᵀ + bq)
// wrote them: before a linear or delta layer's feature map, before softmax's 1/√hs.
Expected<View> head_qkv(const Activations& acts, int layer, int row, int head, Qkv which);
// (T,hs): head `head`'s output before Wo (after ablations and patches).
Expected<View> head_output(const Activations& acts, int layer, int row, int head);
// (T,C): every head's output before Wo, head h in columns h*hs.. (what Wo reads).
Expected<View> heads_output(const Activations& acts, int layer, int row);
// (T,C): the residual stream after `layer` (0 = embeddings, l = after block l, 1..L).
Expected<View> residual_stream(const Activations& acts, int layer, int row);
// (H,T): a delta layer's step sizes β per head and position (an error for other kinds).
Expected<View> delta_betas(const Model& model, const Activations& acts, int layer, int row);
// (T,V): the softmax head's logits (an error for a model without one).
Expected<View> logits(const Model& model, const Activations& acts, int row);

}  // namespace icl::gpt

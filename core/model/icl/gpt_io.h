// The pieces both architectures share (gpt.cpp's transformer, gru.cpp's recurrent
// control): checking a Batch against the config, the input embedding, the final
// LayerNorm with the two readouts and their losses, and the backward of each. Internal
// to core/model: callers use gpt::forward / gpt::backward.
#pragma once
#include <cstddef>

#include "icl/gpt.h"

namespace icl::gpt::detail {

// Hands out consecutive offsets into Activations::buf.
struct Arena {
    size_t n = 0;
    size_t take(size_t count) {
        const size_t off = n;
        n += count;
        return off;
    }
};

// Every check forward makes before it allocates (see forward in gpt.h); `what` names the
// caller in the messages ("gpt forward", "gru forward").
Status check_batch(const Model& model, const Batch& batch, const char* what);

// Floats the readout part of the activations takes: lnf (B,T,C) with its mean and rstd,
// logits and probs (B,T,V) and losses (B,T) with the softmax head, yhat (B,T,D_out).
size_t readout_count(const Config& c, int B, int T);
// Takes those offsets from the arena (lnf, logits, probs, losses, yhat in that order).
void take_readout(Activations& a, const Config& c, Arena& arena, int B, int T);
// Sizes buf to the arena (keeping its capacity), and the per-position loss buffers.
void finish_allocate(Activations& a, const Arena& arena);

// Copies the batch's inputs and targets into acts (tokens, vectors, targets,
// target_vectors, the mask as 0/1 for every position) and sets has_ce / has_mse.
void bind_batch(Activations& acts, const Config& c, const Batch& batch);

// out (B,T,C) = [wte[tokens]] + [wpe[t]] + [vectors · wxᵀ + bx], each part the config has
// (the GRU has no wpe), from the tokens and vectors bind_batch kept.
void input_forward(const Model& model, const Activations& acts, float* out);
// dwte (the embedding part) +=, dwpe +=, and dwx, dbx (+)= (add) from dout (B,T,C).
void input_backward(const Model& model, const Activations& acts, float* grads, const float* dout, bool add);

// lnf = LNf(x); logits = lnf · wteᵀ (softmax head); yhat = lnf · wyᵀ + by (regression);
// with targets, the losses into acts.ce_loss, acts.mse_loss and acts.loss. x (B,T,C).
Status readout_forward(const Model& model, Activations& acts, const float* x, const char* what);
// Floats of scratch readout_backward takes: dlogits (B,T,V) and dy (B,T,D_out).
size_t readout_scratch(const Config& c, int B, int T);
// From the loss to dx (B,T,C), ADDED into (LNf's backward adds): through the heads the
// last forward scored, then LNf. dln (B,T,C) and scratch (readout_scratch) are
// overwritten; the head weights' gradients are stored (add = false) or added.
void readout_backward(const Model& model, Activations& acts, float* grads, float* dx, const float* x,
                      float* dln, float* scratch, bool add);

// Arch::gru's forward, backward and activation count (gru.cpp), which gpt::forward,
// gpt::backward and gpt::activation_count hand a GRU model to.
size_t gru_activation_count(const Config& c, int B, int T);
Status gru_forward(const Model& model, Activations& acts, const Batch& batch);
Status gru_backward(const Model& model, Activations& acts, float* grads, GradsOnEntry on_entry);

}  // namespace icl::gpt::detail

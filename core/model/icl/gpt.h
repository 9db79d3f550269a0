// The tiny GPT: a GPT-2 decoder at lesson scale (Radford et al. 2019), with the
// per-layer attention patterns GPT-3 uses (Brown et al. 2020: dense layers
// alternating with locally banded sparse ones).
//
// token + learned position embeddings -> L pre-LN blocks
//   x = x + Wo · attn(LN1(x))        causal multi-head attention, per-layer mask
//   x = x + W2 · gelu(W1 · LN2(x))   (absent in the attention-only variant)
// -> final LN -> logits = LNf(x) · wteᵀ   (LM head tied to the token embedding)
//
// Inputs and readouts are configuration (Config): the token embedding, a linear
// embedding of a real vector per position (wx · v_t + bx), or both summed; the tied
// softmax head with a cross-entropy loss, a linear regression readout
// ŷ_t = wy · LNf(x_t) + by with a mean squared error on the positions a mask chooses,
// or both (the losses summed). Arch::gru swaps the blocks for a GRU stack over the same
// inputs and readouts (a recurrent control; gru.cpp): no position embedding, no blocks,
// L GRU layers of hidden size C, then the same LNf and heads.
//
// Shapes use B batch rows, T positions (T <= config.context), C = width,
// H heads of hs = C / H, F = mlp_ratio * C, V = vocab. Linear weights are stored
// (out, in) as in PyTorch's nn.Linear, so y = x · Wᵀ + b.
//
// All parameters live in one contiguous buffer; each named tensor is a slice of it.
// Gradients use the same layout. forward() keeps what backward() needs in an
// Activations object; backward() is written by hand, one function per layer, in
// reverse order (llm.c's shape). Those activations double as the read hooks:
// attention maps, head outputs and the residual stream after every layer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/kernels.h"

namespace icl::gpt {

// What a layer's heads compute from q, k, v (B,H,T,hs). Each non-softmax kind has two
// forms that agree to float precision: a parallel attention form over the whole
// sequence (forward/backward, training) and a recurrent fast-weight form with one
// (hs+1, hs) or (hs, hs) state per head (generate's step, fast_weight_head).
//   softmax: softmax(q kᵀ / √hs) v, masked (today's GPT-2 attention).
//   linear:  Katharopoulos et al. 2020, φ = elu + 1, causal, with the usual normaliser:
//            y_t = Σ_{j≤t} (φ(q_t)·φ(k_j)) v_j / Σ_{j≤t} φ(q_t)·φ(k_j)
//            = S_t φ(q_t) / (z_t·φ(q_t)),  S_t = S_{t−1} + v_t ⊗ φ(k_t), z_t = z_{t−1} + φ(k_t).
//   delta:   Schlag, Irie, Schmidhuber 2021: with k̂ = φ(k)/Σφ(k), q̂ = φ(q)/Σφ(q) (their sum
//            normalisation) and β_t = σ(w_β,h · x_t + b_β,h) per head (x_t the LN1 output),
//            W_t = W_{t−1} + β_t (v_t − W_{t−1} k̂_t) ⊗ k̂_t  (one gradient step of size β_t on
//            ½‖W k̂_t − v_t‖²), y_t = W_t q̂_t, no denominator. Its attention form: with
//            u_j the value written at step j, W_t = Σ_{j≤t} u_j ⊗ k̂_j, so
//            y_t = Σ_{j≤t} (q̂_t·k̂_j) u_j,  u_j = β_j (v_j − Σ_{i<j} (k̂_i·k̂_j) u_i):
//            a triangular solve along the sequence (its O(T²) loops are the training form).
// Linear and delta layers take the causal mask only, and no momentum.
enum class AttentionKind { softmax = 0, linear = 1, delta = 2 };
const char* attention_kind_name(AttentionKind kind);  // "softmax" | "linear" | "delta"

// The stack between the input embedding and the final LayerNorm.
//   transformer: the pre-LN blocks above.
//   gru:         PyTorch's nn.GRU, L layers of hidden size C, h_0 = 0, per layer and step
//                r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
//                n = tanh(W_in x + b_in + r ∘ (W_hn h + b_hn)), h' = (1 − z) ∘ n + z ∘ h.
//                The embedding has no position part (the recurrence knows the order);
//                heads, mlp_ratio, attention, kinds and momentum are not read.
enum class Arch { transformer = 0, gru = 1 };
const char* arch_name(Arch arch);  // "transformer" | "gru"

// A head's name in the panels and the demos' parameters: "L1H0" is layer 1's head 0.
inline std::string head_name(int layer, int head) { return "L" + std::to_string(layer) + "H" + std::to_string(head); }

struct Config {
    int vocab = 64;        // V
    int context = 64;      // T_max: longest sequence
    int width = 64;        // C
    int layers = 2;        // L
    int heads = 4;         // H (divides C)
    int mlp_ratio = 4;     // F = mlp_ratio * C
    bool attention_only = false;      // no MLP, no LN2 (the induction-head model)
    std::vector<AttentionMask> attention;  // one per layer; empty = every layer dense (causal)
    // Momentum attention (Dai et al. 2023): every head's output at t gains
    // Σ_{i<t} momentum^{t−i} v_i. 0 = plain attention. Only the full-sequence forward and
    // backward implement it (generate's KV-cache step refuses it), and checkpoint v1
    // does not store it: it is for models trained live.
    float momentum = 0.0f;
    std::vector<AttentionKind> kinds;  // one per layer; empty = every layer softmax
    Arch arch = Arch::transformer;
    // Inputs (at least one): tokens through wte, and/or a real vector per position.
    int input_dim = 0;          // D_in > 0: the embedding gains wx (C,D_in) · v_t + bx (C)
    bool token_input = true;    // false: no tokens are read (then input_dim > 0)
    // Readouts (at least one): the tied softmax head, and/or a regression head.
    int output_dim = 0;         // D_out > 0: ŷ_t = wy (D_out,C) · LNf(x_t) + by (D_out)
    bool token_output = true;   // false: no softmax head (then output_dim > 0)

    AttentionMask mask(int layer) const {
        return attention.empty() ? AttentionMask{} : attention[(size_t)layer];
    }
    AttentionKind kind(int layer) const {
        return kinds.empty() ? AttentionKind::softmax : kinds[(size_t)layer];
    }
    int head_size() const { return width / heads; }     // hs
    int ffn_width() const { return mlp_ratio * width; }  // F
    bool has_wte() const { return token_input || token_output; }  // wte (V,C) exists only then
    // A token-in, token-out transformer: what generation, the probes and the KV cache take.
    bool is_token_lm() const { return arch == Arch::transformer && token_input && token_output; }
};

// Declared bounds: a model or batch past these is refused before anything is
// allocated. They keep a model with its gradients, AdamW moments and a batch's
// activations well inside the wasm module's 1 GB.
struct Bounds {
    static constexpr int max_vocab = 4096;
    static constexpr int max_context = 2048;  // bench/run fastweights generates to 2048
    static constexpr int max_width = 1024;
    static constexpr int max_layers = 24;
    static constexpr int max_heads = 32;
    static constexpr int max_mlp_ratio = 8;
    static constexpr int max_input_dim = 1024;   // D_in
    static constexpr int max_output_dim = 1024;  // D_out
    static constexpr size_t max_params = 8u << 20;        // 8 Mi floats (32 MB)
    static constexpr size_t max_activations = 80u << 20;  // 80 Mi floats (320 MB)
};

// Checks every field against Bounds and the shape rules (heads divide width,
// one attention mask per layer with window/stride >= 1, at least one input and one
// readout). The error names the field.
Status validate(const Config& config);

// GPT-3's pattern: even layers dense, odd layers locally banded with `window`.
std::vector<AttentionMask> alternating_dense_banded(int layers, int window);

// One named parameter tensor: a slice of the parameter buffer.
struct TensorInfo {
    std::string name;          // e.g. "h0.attn.wk"
    std::vector<int> shape;
    size_t offset = 0;         // in floats, into the parameter buffer
    size_t size = 0;
    bool decay = false;        // matrices and embeddings decay; LayerNorm and biases do not
};

// Offsets of one block's tensors. wq, wk, wv are consecutive (C,C) slices, so
// wqkv (3C,C) is one matrix; likewise bq, bk, bv form bqkv (3C). A delta-rule layer
// adds wb (H,C) and bb (H) after bo: the per-head step size β = σ(wb · x + bb).
struct BlockSlots {
    size_t ln1_w, ln1_b, wq, wk, wv, bq, bk, bv, wo, bo;
    size_t wb = 0, bb = 0;                // delta-rule layers only
    size_t ln2_w, ln2_b, w1, b1, w2, b2;  // unused in the attention-only variant
};

// One GRU layer's tensors (PyTorch's nn.GRU names and gate order r, z, n).
struct GruSlots {
    size_t w_ih, w_hh, b_ih, b_hh;  // (3C,C), (3C,C), (3C), (3C)
};

// wte exists when a token input or the softmax head reads it (Config::has_wte), wpe in a
// transformer only, wx/bx with a vector input, wy/by with a regression readout; a slot
// that does not exist is 0 (and is never read).
struct Layout {
    size_t wte = 0, wpe = 0, lnf_w = 0, lnf_b = 0;
    size_t wx = 0, bx = 0, wy = 0, by = 0;
    std::vector<BlockSlots> blocks;
    std::vector<GruSlots> gru;        // Arch::gru
    std::vector<TensorInfo> tensors;  // in buffer order
    size_t total = 0;                 // floats
};

// The parameter layout a config implies (validate first).
Layout make_layout(const Config& config);
size_t parameter_count(const Config& config);

struct Model {
    Config config;
    Layout layout;
    std::vector<float> params;  // layout.total floats

    float* at(size_t offset) { return params.data() + offset; }
    const float* at(size_t offset) const { return params.data() + offset; }
    // The named tensor, or nullptr.
    const TensorInfo* find(const std::string& name) const;
};

// GPT-2 initialisation: every matrix and embedding ~ N(0, 0.02²), the residual
// projections (wo, w2) scaled by 1/sqrt(2L), biases 0, LayerNorm gains 1. GRU layers as
// PyTorch's nn.GRU: every weight and bias ~ U(−1/√C, 1/√C).
Expected<Model> make_model(const Config& config, uint64_t seed);

// ---- hooks that change the computation ---------------------------------------------

// Adds `vector` (C) to the residual stream after `layer` (0 = after the embeddings,
// l = after block l, 1..L) at position `position` of every batch row.
struct ResidualAdd {
    int layer = 0;
    int position = 0;
    std::vector<float> vector;
};
// Zeroes head `head` of block `layer` (0-based): its output before Wo.
struct HeadAblation {
    int layer = 0;
    int head = 0;
};
// Replaces head `head` of block `layer` at position `position` of every batch row by
// `output` (hs = C / H), before Wo: activation patching (Todd et al. 2024).
struct HeadPatch {
    int layer = 0;
    int head = 0;
    int position = 0;
    std::vector<float> output;
};
// Passed to forward (nullptr = none). backward() is correct under them too (a patched
// or ablated entry passes no gradient to its q, k, v).
struct Hooks {
    std::vector<ResidualAdd> residual_adds;
    std::vector<HeadAblation> ablations;
    std::vector<HeadPatch> head_patches;
};
Status validate(const Hooks& hooks, const Config& config);

// ---- activations: what forward keeps (and what the read hooks read) ----------------

struct BlockActs {  // offsets into Activations::buf
    size_t ln1, ln1_mean, ln1_rstd;  // (B,T,C), (B,T), (B,T)
    size_t qkv;                      // (B,T,3C) every head's q, k, v, the projection's bias in:
                                     // head h's q in columns h*hs.., k in C + h*hs.., v in 2C + h*hs..
    size_t att;                      // (B,H,T,T) attention probabilities, 0 where masked
                                     // (linear: the normalised weights; delta: q̂_t·k̂_j, j ≤ t)
    size_t beta = 0, u = 0;          // delta layers: β (B,H,T) and u (B,H,T,hs) (see AttentionKind)
    size_t atty;                     // (B,T,C) heads' outputs, head h in columns h*hs..
    size_t res_attn;                 // (B,T,C) residual after the attention sublayer
    size_t ln2, ln2_mean, ln2_rstd;  // (B,T,C), (B,T), (B,T)
    size_t fc;                       // (B,T,F) before GELU (gelu(fc) is recomputed: see mlp_out)
    size_t res_out;                  // (B,T,C) residual after the block
};

// One GRU layer's activations (offsets into Activations::buf). The recurrence runs over
// time-major rows (t, b): a step's h_{t−1} for every batch row is one contiguous (B,C).
struct GruActs {
    size_t gi;     // (B,T,3C) W_ih x + b_ih, every position at once (batch-major, as x)
    size_t gates;  // (T,B,3C) r, z, n after their nonlinearities
    size_t ghn;    // (T,B,C) W_hn h_{t−1} + b_hn (n's recurrent part, before r multiplies it)
    size_t h;      // (T+1,B,C) h_0 = 0, h_1 .. h_T
    size_t out;    // (B,T,C) h_1 .. h_T batch-major: the next layer's input
};

// One batch for forward / Trainer::step. Which pointers a model needs follows its Config:
// tokens with token_input, vectors with input_dim > 0. Targets: targets for the softmax
// head, target_vectors for the regression readout (with the mask); a loss term is
// computed for each given, and at least one is needed to train.
struct Batch {
    int B = 0, T = 0;
    const int* tokens = nullptr;             // (B,T) token ids
    const float* vectors = nullptr;          // (B,T,D_in) input vectors
    const int* targets = nullptr;            // (B,T) next-token targets, -1 = not scored
    const float* target_vectors = nullptr;   // (B,T,D_out) regression targets
    const uint8_t* target_mask = nullptr;    // (B,T) nonzero = scored by the MSE; null = every position
};

struct Activations {
    int B = 0, T = 0, C = 0, H = 0;
    std::vector<float> buf;
    size_t embed = 0;                            // (B,T,C) residual after the embeddings
    std::vector<BlockActs> blocks;
    size_t mlp_out = 0;                          // (B,T,F) one layer's gelu(fc) at a time: the
                                                 // forward's fc2 reads it; the backward's scratch
                                                 // (gelu_linear_backward's y)
    size_t lnf = 0, lnf_mean = 0, lnf_rstd = 0;  // (B,T,C), (B,T), (B,T)
    size_t logits = 0, probs = 0, losses = 0;    // (B,T,V), (B,T,V), (B,T) (softmax head)
    size_t yhat = 0;                             // (B,T,D_out) regression readout
    std::vector<GruActs> gru;                    // Arch::gru: one per layer
    std::vector<int> tokens, targets;            // (B,T); target -1 = not scored
    std::vector<float> vectors, target_vectors;  // (B,T,D_in), (B,T,D_out) as given
    std::vector<uint8_t> target_mask;            // (B,T) 1 = scored by the MSE
    int scored = 0;                              // targets that count in the mean cross-entropy
    int mse_scored = 0;                          // positions that count in the MSE
    float loss = 0.0f;                           // ce_loss + mse_loss (the terms given)
    float ce_loss = 0.0f;                        // mean cross-entropy over the scored targets
    float mse_loss = 0.0f;                       // mean over scored positions and D_out of (ŷ − y)²
    bool has_targets = false;                    // any loss term (backward needs one)
    bool has_ce = false, has_mse = false;
    std::vector<HeadAblation> ablations;         // from the hooks, for backward
    std::vector<HeadPatch> head_patches;         // from the hooks, for backward

    // forward: a linear or delta layer's q, k, v split into heads, then one head's scratch;
    // backward: the gradients flowing through the layers; with targets, each position's
    // target for the cross-entropy kernel (-1 read as 0) and its weight in the mean loss
    // (1/scored or 0). Kept between calls so a training loop does not allocate.
    std::vector<float> scratch, grad_scratch, loss_weights;
    std::vector<int> kernel_targets;

    const float* ptr(size_t offset) const { return buf.data() + offset; }
    float* ptr(size_t offset) { return buf.data() + offset; }

    // read hooks (valid after forward); attention maps, head outputs and the residual
    // stream, a head's q, k, v are read as views through gpt_probe.h
    const float* logits_ptr() const { return ptr(logits); }                   // (B,T,V)
    const float* predictions() const { return ptr(yhat); }                    // (B,T,D_out)
    // residual stream after `layer`: 0 = embeddings, l = after block l   (B,T,C)
    const float* residual(int layer) const;
};

// Floats one (B,T) batch's activations take; compare with Bounds::max_activations.
size_t activation_count(const Config& config, int B, int T);

// Forward over a (B,T) batch (either architecture). With targets it also computes the
// loss into acts.loss (acts.ce_loss + acts.mse_loss). Errors: B or T out of range,
// activations past the bound, a missing input the config needs, a token or target id
// >= V (named with its position), a non-finite input or target vector, a mask that
// scores nothing, hooks out of range or given to a GRU, a NaN/Inf loss.
Status forward(const Model& model, Activations& acts, const Batch& batch, const Hooks* hooks = nullptr);
// The token-model form: forward(model, acts, {B, T, tokens, nullptr, targets}, hooks).
Status forward(const Model& model, Activations& acts, const int* tokens, const int* targets, int B,
               int T, const Hooks* hooks = nullptr);
// The vector-model form without targets (predictions only): forward(model, acts, {B, T,
// nullptr, vectors}, hooks), vectors (B,T,D_in).
Status forward(const Model& model, Activations& acts, const float* vectors, int B, int T,
               const Hooks* hooks = nullptr);

// What grads holds when backward starts. `any`: backward adds to it (the convention of
// every *_backward). `zero`: the caller guarantees every entry is 0, and the weight
// products then store their gradient instead of adding it (the same numbers, 0 + x = x,
// without first reading a buffer the optimizer last touched a whole step ago).
enum class GradsOnEntry { any, zero };

// Backward of the loss of the last forward (which must have had targets of either kind),
// for either architecture.
// grads (model.layout.total) are ACCUMULATED into: zero them first (and say so with
// GradsOnEntry::zero, which lets the first write replace instead of add).
Status backward(const Model& model, Activations& acts, float* grads,
                GradsOnEntry on_entry = GradsOnEntry::any);

// ---- the per-layer pieces (llm.c's shape), used by forward/backward and generate --------

// `role` names the product in a profile ("qkv", "proj", "fc", "fc2": the phase reads
// "fwd qkv matmul_nt_add", icl/profile.h); nothing else reads it.
// out (N,OC) = inp (N,IC) · W(OC,IC)ᵀ + bias (OC) (+ residual (N,OC)); bias, residual may be nullptr
void linear_forward(const char* role, float* out, const float* inp, const float* W, const float* bias, int N,
                    int IC, int OC, const float* residual = nullptr);
// dinp (N,IC) = or += (accumulate_dinp), dW (OC,IC) and dbias (OC) = or += (accumulate_dw)
// from dout (N,OC); dW nullptr: dinp only (the weight gradient taken elsewhere)
void linear_backward(const char* role, float* dinp, float* dW, float* dbias, const float* dout, const float* inp,
                     const float* W, int N, int IC, int OC, bool accumulate_dinp = true,
                     bool accumulate_dw = true);

// One block's multi-head attention, hs = C / H: qkv (B,T,3C) rows (head h's q in columns
// h*hs.., its k in C + h*hs.., its v in 2C + h*hs.., each head read in place) -> att
// (B,H,T,T) probabilities (exactly 0 where `mask` forbids), atty (B,T,C) the heads'
// outputs, head h in columns h*hs... With momentum η > 0 each head's output at t gains
// Σ_{i<t} η^{t−i} v_i. A banded mask with window w < T computes only its band, O(T·w·hs)
// per head; the other masks multiply (T,T) matrices and then mask.
// scratch: T*T + 4*T*hs + hs floats.
void attention_forward(float* att, float* atty, const float* qkv, float* scratch, int B, int T, int C,
                       int H, AttentionMask mask, float momentum);
// dqkv (B,T,3C): d(q, k, v) in the places qkv holds them, from dO (B,T,C) (head h in
// columns h*hs..), with qkv and att of the forward under the same mask and momentum.
// WRITTEN, not accumulated: a head's q, k, v feed nothing else.
// scratch: 2*T*T + 7*T*hs + hs floats.
void attention_backward(float* dqkv, const float* dO, const float* qkv, const float* att,
                        float* scratch, int B, int T, int C, int H, AttentionMask mask,
                        float momentum);

// ---- the recurrent control: one GRU layer (gru.cpp) -------------------------------------

// x (B,T,C) -> out (B,T,C), hidden size C, h_0 = 0 (see Arch::gru). Keeps for the backward:
// gi (B,T,3C) = x · w_ihᵀ + b_ih; gates (T,B,3C) r, z, n; ghn (T,B,C) = h_{t−1} · w_hnᵀ + b_hn;
// h (T+1,B,C) = h_0 .. h_T, time-major. w_ih, w_hh (3C,C), b_ih, b_hh (3C), rows r, z, n.
// scratch: B*3C floats.
void gru_layer_forward(float* out, float* gi, float* gates, float* ghn, float* h, const float* x,
                       const float* w_ih, const float* w_hh, const float* b_ih, const float* b_hh,
                       float* scratch, int B, int T, int C);
// dx (B,T,C) WRITTEN from dout (B,T,C); dw_ih, dw_hh, db_ih, db_hh stored (add = false) or
// added. scratch: B*T*3C + T*B*3C + B*C floats.
void gru_layer_backward(float* dx, float* dw_ih, float* dw_hh, float* db_ih, float* db_hh, const float* dout,
                        const float* x, const float* gates, const float* ghn, const float* h,
                        const float* w_ih, const float* w_hh, float* scratch, int B, int T, int C, bool add);

// ---- linear and delta-rule heads: the parallel form (training) -------------------------

// One linear-attention head (see AttentionKind): P (T,T) the normalised weights (0 above
// the diagonal), O (T,hs); q, k, v (T,hs). scratch: 2*T*hs floats.
void linear_head_forward(float* P, float* O, const float* q, const float* k, const float* v,
                         float* scratch, int T, int hs);
// dq, dk, dv (T,hs) WRITTEN from dO (T,hs). scratch: T*T + 4*T*hs floats.
void linear_head_backward(float* dq, float* dk, float* dv, const float* dO, const float* q,
                          const float* k, const float* v, const float* P, float* scratch, int T,
                          int hs);
// One delta-rule head in attention form: A (T,T) = q̂_t·k̂_j for j ≤ t, U (T,hs) the
// written values u_j, O (T,hs) = A U; q, k, v (T,hs), beta (T) in (0, 1).
// scratch: T*T + 2*T*hs floats.
void delta_head_forward(float* A, float* U, float* O, const float* q, const float* k,
                        const float* v, const float* beta, float* scratch, int T, int hs);
// dq, dk, dv (T,hs) and dbeta (T) WRITTEN from dO (T,hs).
// scratch: 2*T*T + 6*T*hs + 2*T + hs floats.
void delta_head_backward(float* dq, float* dk, float* dv, float* dbeta, const float* dO,
                         const float* q, const float* k, const float* v, const float* beta,
                         const float* A, const float* U, float* scratch, int T, int hs);

// ---- the recurrent fast-weight form (generation) --------------------------------------

// Rows of one head's fast-weight state: linear keeps S (hs,hs) and z (hs) as one
// (hs+1, hs) matrix (v extended by a 1 writes z); delta keeps W (hs,hs).
int fast_weight_rows(AttentionKind kind, int hs);
// One head of a linear or delta layer, token by token with fast_weight_step from a zero
// state: O (T,hs); if states is not null, the state after every token, (T, rows, hs).
// beta (T) is read for delta only.
void fast_weight_head(AttentionKind kind, float* O, float* states, const float* q, const float* k,
                      const float* v, const float* beta, int T, int hs);
// One token of fast_weight_head: updates W (rows, hs) and writes y (hs). scratch: 4*hs+2.
void fast_weight_token(AttentionKind kind, float* W, float* y, const float* q, const float* k,
                       const float* v, float beta, float* scratch, int hs);

}  // namespace icl::gpt

// The tiny GPT's checkpoint: a versioned, validated binary image of a Model.
//
// Version 1 (f32 weights), little-endian, fixed-width fields:
//   "ICLGPTCK"                      8 bytes magic
//   u32 version (1)
//   u32 header_size                 bytes from the start to the tensor data
//   u32 vocab, context, width, layers, heads, mlp_ratio, attention_only (0/1)
//   layers x (u32 kind (0 dense, 1 banded, 2 strided), u32 window, u32 stride)
//   u32 tensor count, then per tensor:
//     u32 name length, name bytes, u32 ndim, u32 dims[ndim], u64 offset, u64 count
//                                   (offset and count in floats, into the data)
//   f32 data, every tensor in the order of the table
//   u64 FNV-1a 64 checksum of every byte before it
//
// Version 2 (weights stored smaller): version 1 with one more header field after the
// tensor table, u32 encoding (1 = f16: IEEE binary16, rounded to nearest even), and the
// data in that encoding (f16: 2 bytes a value). f32 weights are always written as
// version 1, so every model has one encoding per storage form and a file that loads
// saves back to the same bytes. Offsets and counts in the table stay in values.
//
// Version 3 (a layer that is not softmax, gpt.h AttentionKind): version 2 with each
// layer's record followed by u32 attention kind (0 softmax, 1 linear, 2 delta), and the
// encoding field also allowing 0 = f32. Models whose layers are all softmax are written
// as versions 1 and 2, byte for byte as before.
//
// Version 4 (a GRU, a vector input or a regression readout, gpt.h Config): version 3 with
// u32 arch (0 transformer, 1 gru), input_dim, token_input (0/1), output_dim, token_output
// (0/1) right after attention_only. Token-in, token-out transformers are written as
// versions 1 to 3, byte for byte as before.
//
// The table must match the layout the config implies (gpt::make_layout): same
// names, order, shapes and offsets. Bytes are the core API (the web fetches them);
// the file helpers are thin wrappers for native builds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"

namespace icl::checkpoint {

constexpr uint32_t kVersion = 4;  // the newest this build reads and writes

// How the weights are stored: f32 (version 1) or f16 (version 2, half the bytes).
enum class Encoding : uint32_t { f32 = 0, f16 = 1 };
const char* encoding_name(Encoding e);                          // "f32" | "f16"
Expected<Encoding> parse_encoding(const std::string& name);   // error names the choices

// f32, version 1.
std::vector<uint8_t> save(const gpt::Model& model);
// In `encoding`; an error names the first weight that f16 cannot hold (|w| > 65504).
Expected<std::vector<uint8_t>> save(const gpt::Model& model, Encoding encoding);

// A model from checkpoint bytes (versions 1 to 4); `stored`, if given, receives the
// file's encoding. Errors name the problem: truncated (and where), bad magic,
// unsupported version or encoding, an invalid config, a tensor whose name, shape or
// offset disagrees with the config, trailing bytes, a checksum mismatch.
Expected<gpt::Model> load(const uint8_t* data, size_t size, Encoding* stored = nullptr);

// Loads into an existing model whose config must match the file's; on any error
// (including a differing config, named field by field) `into` is unchanged.
Status load_into(gpt::Model& into, const uint8_t* data, size_t size);

uint64_t fnv1a64(const uint8_t* data, size_t size);

// Files (native builds; core/host/checkpoint_file.cpp).
Status save_file(const gpt::Model& model, const std::string& path, Encoding encoding = Encoding::f32);
Expected<gpt::Model> load_file(const std::string& path, Encoding* stored = nullptr);

}  // namespace icl::checkpoint

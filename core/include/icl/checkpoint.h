// The tiny GPT's checkpoint: a versioned, validated binary image of a Model.
//
// Version 1 or 2, little-endian, fixed-width fields (version 2 only adds each layer's
// attention kind; a model whose layers are all softmax is written as version 1, so its
// bytes are those of version 1):
//   "ICLGPTCK"                      8 bytes magic
//   u32 version (1)
//   u32 header_size                 bytes from the start to the tensor data
//   u32 vocab, context, width, layers, heads, mlp_ratio, attention_only (0/1)
//   layers x (u32 kind (0 dense, 1 banded, 2 strided), u32 window, u32 stride
//             [version 2: u32 attention kind (0 softmax, 1 linear, 2 delta), gpt.h])
//   u32 tensor count, then per tensor:
//     u32 name length, name bytes, u32 ndim, u32 dims[ndim], u64 offset, u64 count
//                                   (offset and count in floats, into the data)
//   f32 data, every tensor in the order of the table
//   u64 FNV-1a 64 checksum of every byte before it
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

constexpr uint32_t kVersion = 2;  // reads 1 and 2

std::vector<uint8_t> save(const gpt::Model& model);

// A model from checkpoint bytes. Errors name the problem: truncated (and where),
// bad magic, unsupported version, an invalid config, a tensor whose name, shape or
// offset disagrees with the config, trailing bytes, a checksum mismatch.
Expected<gpt::Model> load(const uint8_t* data, size_t size);

// Loads into an existing model whose config must match the file's; on any error
// (including a differing config, named field by field) `into` is unchanged.
Status load_into(gpt::Model& into, const uint8_t* data, size_t size);

uint64_t fnv1a64(const uint8_t* data, size_t size);

// Files (native builds; core/src/native/checkpoint_file.cpp).
Status save_file(const gpt::Model& model, const std::string& path);
Expected<gpt::Model> load_file(const std::string& path);

}  // namespace icl::checkpoint

// Named read-only byte files that demos need (trained checkpoints, mostly), looked up
// by a path relative to the lessons/ folder, e.g. "checkpoints/tasks-s.icl".
//
// Natively the store reads them lazily from a folder (set_asset_dir; the CLI and the
// desktop app point it at lessons/). In wasm there is no file system: the web worker
// fetches each asset a demo lists in DemoDef::assets and hands the bytes to put_asset
// before starting it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"

namespace icl {

void set_asset_dir(const std::string& dir);
void put_asset(const std::string& name, std::vector<uint8_t> bytes);
// The bytes, or an error naming the asset and why it is missing. The reference stays
// valid until the same name is put again.
Expected<const std::vector<uint8_t>*> get_asset(const std::string& name);

}  // namespace icl

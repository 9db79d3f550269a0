// A zip archive of stored (uncompressed) files, for `icl lessons package`: the local
// headers, the central directory and its end record of the zip format (PKWARE's
// APPNOTE, version 2.0 features only; no zip64, so the archive stays under 4 GiB and
// 65,535 files, which the caller checks with fits()). Names are UTF-8 (bit 11 set).
// The bytes of a pure function of the files: no times (every entry carries the format's earliest date),
// so the same files give the same archive.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace icl::zip {

using Entry = std::pair<std::string, std::string>;  // name inside the archive, bytes

uint32_t crc32(const std::string& bytes);
// Whether the entries fit the format without zip64: under 65,535 entries, the whole
// archive under 4 GiB.
bool fits(const std::vector<Entry>& entries);
// The archive's bytes. Precondition: fits(entries).
std::string store(const std::vector<Entry>& entries);

}  // namespace icl::zip

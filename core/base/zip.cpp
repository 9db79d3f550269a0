#include "icl/zip.h"

namespace icl::zip {

uint32_t crc32(const std::string& bytes) {
    static const auto table = [] {
        std::vector<uint32_t> t(256);
        for (uint32_t n = 0; n < 256; ++n) {
            uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

bool fits(const std::vector<Entry>& entries) {
    uint64_t size = 22;
    for (const auto& [name, data] : entries) size += 30 + 46 + 2 * (uint64_t)name.size() + data.size();
    return entries.size() < 0xFFFF && size < 0xFFFFFFFFull;
}

namespace {
void put(std::string& out, uint64_t value, int bytes) {  // little-endian
    for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xFF));
}
}  // namespace

std::string store(const std::vector<Entry>& entries) {
    std::string out, central;
    const uint16_t kUtf8 = 1 << 11, kDate = (0 << 9) | (1 << 5) | 1;  // the format's earliest date, midnight
    for (const auto& [name, data] : entries) {
        const uint32_t crc = crc32(data), offset = (uint32_t)out.size();
        // The fields local and central headers share, from "version needed" to the name length.
        std::string common;
        put(common, 10, 2); put(common, kUtf8, 2); put(common, 0, 2);  // version 1.0, flags, stored
        put(common, 0, 2); put(common, kDate, 2); put(common, crc, 4);  // time, date, CRC-32
        put(common, data.size(), 4); put(common, data.size(), 4); put(common, name.size(), 2);
        put(out, 0x04034b50, 4); out += common; put(out, 0, 2); out += name; out += data;
        put(central, 0x02014b50, 4); put(central, 0x031E, 2);  // made by: Unix, spec 3.0
        central += common;
        put(central, 0, 2); put(central, 0, 2); put(central, 0, 2);  // extra, comment, disk
        put(central, 0, 2); put(central, 0100644u << 16, 4);         // internal, external: -rw-r--r--
        put(central, offset, 4); central += name;
    }
    const uint32_t at = (uint32_t)out.size();
    out += central;
    put(out, 0x06054b50, 4); put(out, 0, 2); put(out, 0, 2);
    put(out, entries.size(), 2); put(out, entries.size(), 2);
    put(out, central.size(), 4); put(out, at, 4); put(out, 0, 2);
    return out;
}

}  // namespace icl::zip

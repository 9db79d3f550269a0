// File wrappers around the byte-level checkpoint API.
#include <fstream>

#include "icl/checkpoint.h"
#include "icl/file_read.h"

namespace icl::checkpoint {

Status save_file(const gpt::Model& model, const std::string& path, Encoding encoding) {
    Expected<std::vector<uint8_t>> encoded = save(model, encoding);
    if (!encoded) return make_error(path + ": " + encoded.error().message);
    const std::vector<uint8_t>& bytes = encoded.value();
    // Never in place: a crash or a full disk leaves the old checkpoint whole.
    if (Status s = replace_file(path, std::string(bytes.begin(), bytes.end())); !s)
        return make_error("checkpoint: " + s.error().message);
    return Ok{};
}

Expected<gpt::Model> load_file(const std::string& path, Encoding* stored) {
    auto read = read_regular_file_bytes(path, file_limits::kCheckpoint);
    if (!read) return make_error("checkpoint: " + read.error().message);
    const std::vector<uint8_t>& bytes = read.value();
    Expected<gpt::Model> m = load(bytes.data(), bytes.size(), stored);
    if (!m) return make_error(path + ": " + m.error().message);
    return m;
}

}  // namespace icl::checkpoint

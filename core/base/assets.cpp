#include "icl/assets.h"

#include <sys/stat.h>
#include <map>
#include <memory>
#include <mutex>

#include "icl/file_read.h"

namespace icl {

namespace {
// The lint starts demos on several threads at once: the store takes one at a time. An
// entry, once in, is never replaced while a reader may hold it (put_asset is for setup).
struct Store {
    std::mutex mutex;
    std::string dir;
    std::map<std::string, std::unique_ptr<std::vector<uint8_t>>> files;
};
Store& store() {
    static Store s;
    return s;
}

// Asset names are relative paths inside the asset folder: no "..", no absolute paths.
bool safe_name(const std::string& name) {
    if (name.empty() || name[0] == '/' || name.find('\\') != std::string::npos) return false;
    size_t start = 0;
    while (start <= name.size()) {
        const size_t end = name.find('/', start);
        const std::string part = name.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (part.empty() || part == "." || part == "..") return false;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return true;
}

bool is_missing(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) != 0;
}
}  // namespace

void set_asset_dir(const std::string& dir) {
    std::lock_guard<std::mutex> lock(store().mutex);
    store().dir = dir;
}

void put_asset(const std::string& name, std::vector<uint8_t> bytes) {
    std::lock_guard<std::mutex> lock(store().mutex);
    store().files[name] = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
}

Expected<const std::vector<uint8_t>*> get_asset(const std::string& name) {
    Store& s = store();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!safe_name(name)) return make_error("asset name '" + name + "' is not a relative path inside the lessons folder");
    auto it = s.files.find(name);
    if (it != s.files.end()) return static_cast<const std::vector<uint8_t>*>(it->second.get());
    if (s.dir.empty()) return make_error("asset '" + name + "' was not loaded");
    const std::string path = s.dir + "/" + name;
    // Recipes are small JSON; anything else an asset holds is a checkpoint.
    const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    auto read = read_regular_file_bytes(path, json ? file_limits::kRecipe : file_limits::kCheckpoint);
    if (!read) {
        if (is_missing(path)) return make_error("cannot open '" + path + "' (missing? run the recipe with icl train to make it)");
        return make_error(read.error().message);
    }
    auto bytes = std::make_unique<std::vector<uint8_t>>(std::move(read.value()));
    const std::vector<uint8_t>* out = bytes.get();
    s.files[name] = std::move(bytes);
    return out;
}

}  // namespace icl

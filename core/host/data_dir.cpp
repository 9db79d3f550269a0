#include "icl/data_dir.h"

#include <cstdlib>
#include <filesystem>

namespace icl {

std::string find_lessons_dir(const std::string& source_tree) {
    if (const char* env = std::getenv("ICL_LESSONS_DIR"); env && *env) return env;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path bin = exe.parent_path();
        for (const fs::path& p : {bin / ".." / "share" / "icl-lab" / "lessons", bin / ".." / ".." / "lessons"})
            if (fs::is_directory(p, ec)) return p.lexically_normal().string();
    }
    if (!source_tree.empty() && fs::is_directory(fs::path(source_tree) / "lessons", ec))
        return (fs::path(source_tree) / "lessons").string();
    return "lessons";
}

}  // namespace icl

// Fuzzes the lesson folder reader (icl::load_lesson_set, the lint that `icl lessons
// check` and the desktop app run) and the lesson build with directory trees built from
// the input: lesson files with fuzzed text, links that loop, dangle or lead to
// /dev/zero or to a folder, FIFOs, folders named *.md, a sparse file past the size limit,
// language folders that are links. Nothing may hang, crash or throw; the build may only
// write inside its output folder.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "icl/lesson_set.h"

namespace fs = std::filesystem;

namespace {

const char* const kNames[] = {"01-a.md", "02-b.md", "03-c.md", "x.md", "01-a.json", "sub"};
const char* const kLangs[] = {"en", "ko"};

struct Reader {
    const uint8_t* p;
    size_t n;
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    std::string text(size_t len) {
        len = len < n ? len : n;
        std::string s(reinterpret_cast<const char*>(p), len);
        p += len;
        n -= len;
        return s;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path root = fs::temp_directory_path() / ("icl_fuzz_tree_" + std::to_string(getpid()));
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root / "en", ec);
    fs::create_directories(root / "ko", ec);
    Reader in{data, size};
    for (int op = 0; op < 24 && in.n; ++op) {
        const uint8_t kind = in.byte();
        const fs::path dir = root / kLangs[in.byte() & 1];
        const fs::path path = dir / kNames[in.byte() % 6];
        fs::remove_all(path, ec);
        switch (kind % 11) {
        case 0: case 1: case 2:  // a file with fuzzed text
            std::ofstream(path, std::ios::binary) << in.text(in.byte() * 8u);
            break;
        case 3: fs::create_symlink(path.filename(), path, ec); break;                 // a loop onto itself
        case 4: fs::create_symlink("/dev/zero", path, ec); break;
        case 5: fs::create_symlink("no-such-file.md", path, ec); break;               // dangling
        case 6: ::mkfifo(path.c_str(), 0600); break;
        case 7: fs::create_directories(path, ec); break;                            // a folder named *.md
        case 8: fs::create_symlink(kNames[in.byte() % 6], path, ec); break;           // a -> b -> a ...
        case 9: {  // a language folder that is a link (to the other one, to the root, to itself);
                   // never out of the scratch folder, which the next input removes
            const fs::path lang = root / kLangs[in.byte() & 1];
            fs::remove_all(lang, ec);
            const char* targets[] = {"en", "ko", ".", "en/sub", "missing"};
            fs::create_directory_symlink(targets[in.byte() % 5], lang, ec);
            break;
        }
        case 10: {  // a sparse file past the lesson size limit
            std::ofstream(path, std::ios::binary) << "---\n";
            fs::resize_file(path, (4u << 20) + 1, ec);
            break;
        }
        }
    }
    icl::LintOptions options;
    options.draft = true;
    const icl::LessonSet set = icl::load_lesson_set(root.string(), options);
    for (const icl::Diagnostic& d : set.problems)
        if (d.file.empty() && d.message.empty()) __builtin_trap();
    if (set.errors() == 0) (void)icl::write_lesson_json(set, (root / "out").string());
    fs::remove_all(root, ec);
    return 0;
}

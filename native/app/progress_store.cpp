#include "progress_store.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "icl/file_read.h"
#endif

namespace fs = std::filesystem;
namespace pg = icl::progress;

namespace {

constexpr size_t kMaxBytes = pg::Bounds{}.max_bytes;

// What is stored: missing (a first run), the text, or why it cannot be read.
struct Stored {
    bool missing = false;
    std::string text;
    std::string problem;   // non-empty: not readable (not a regular file, too big, ...)
};

#ifdef __EMSCRIPTEN__
// /lab/: the browser's localStorage, under the lesson pages' key (same document).
const char* kKey = "icl-lab.progress";
const char* kAsideKey = "icl-lab.progress.corrupt";

EM_JS(int, lab_storage_length, (const char* key), {
    try {
        const v = localStorage.getItem(UTF8ToString(key));
        Module.iclStored = v;
        return v === null ? -1 : lengthBytesUTF8(v);
    } catch (e) {
        return -2;
    }
});
// Stores value under key, or under key-<ms>-<n> if key is taken: set-aside copies never
// overwrite each other (the lesson pages' rule, web/src/progress.js).
EM_JS(int, lab_storage_set_aside, (const char* key, const char* value), {
    try {
        const base = UTF8ToString(key);
        let k = base;
        for (let n = 0; localStorage.getItem(k) !== null; n++) k = base + '-' + Date.now() + '-' + n;
        localStorage.setItem(k, UTF8ToString(value));
        return 1;
    } catch (e) {
        return 0;
    }
});
EM_JS(void, lab_storage_copy, (char* buffer, int size), { stringToUTF8(Module.iclStored, buffer, size); });
EM_JS(int, lab_storage_set, (const char* key, const char* value), {
    try {
        localStorage.setItem(UTF8ToString(key), UTF8ToString(value));
        return 1;
    } catch (e) {
        return 0;
    }
});

Stored read_stored_text(const std::string&) {
    Stored s;
    const int n = lab_storage_length(kKey);
    if (n == -1) { s.missing = true; return s; }
    if (n < 0) { s.problem = "the browser's storage is off"; return s; }
    if (static_cast<size_t>(n) > kMaxBytes) { s.problem = "it is larger than 1 MiB"; return s; }
    std::string buffer(static_cast<size_t>(n) + 1, '\0');
    lab_storage_copy(buffer.data(), n + 1);
    buffer.resize(static_cast<size_t>(n));
    s.text = std::move(buffer);
    return s;
}

icl::Status write_stored_text(const std::string&, const std::string& text) {
    if (!lab_storage_set(kKey, text.c_str())) return icl::make_error("the browser's storage refused it (full or off)");
    return icl::Ok{};
}

// Returns where the text went, or an error.
icl::Expected<std::string> set_aside(const std::string&, bool /*copy*/) {
    const int n = lab_storage_length(kKey);
    if (n >= 0) {
        std::string buffer(static_cast<size_t>(n) + 1, '\0');
        lab_storage_copy(buffer.data(), n + 1);
        buffer.resize(static_cast<size_t>(n));
        if (!lab_storage_set_aside(kAsideKey, buffer.c_str())) return icl::make_error("the browser's storage refused it");
    }
    return std::string("the browser's storage under ") + kAsideKey + " (or " + kAsideKey + "-<ms>-<n>)";
}

struct Lock {
    explicit Lock(const std::string&) {}
    bool ok() const { return true; }
};
#else
// Only a regular file of at most kMaxBytes is read (icl/file_read.h): a FIFO would
// block, /dev/zero or a 4 GB file would exhaust memory.
Stored read_stored_text(const std::string& path) {
    Stored s;
    auto text = icl::read_regular_file(path, kMaxBytes, &s.missing);
    if (text) s.text = std::move(text.value());
    else if (!s.missing) s.problem = text.error().message;
    return s;
}

icl::Status write_stored_text(const std::string& path, const std::string& text) {
    const std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) return icl::make_error("cannot write " + temp);
    }
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) return icl::make_error("cannot replace " + path + ": " + ec.message());
    return icl::Ok{};
}

// Moves (or copies) the file to a name no other set-aside file has:
// <path>.corrupt-<seconds>-<n>. Called under the lock, so no other app instance races.
icl::Expected<std::string> set_aside(const std::string& path, bool copy) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch()).count();
    for (int n = 0; n < 10000; ++n) {
        const std::string aside = path + ".corrupt-" + std::to_string(seconds) + "-" + std::to_string(n);
        std::error_code ec;
        if (fs::symlink_status(aside, ec).type() != fs::file_type::not_found) continue;
        if (copy) fs::copy_file(path, aside, ec);
        else fs::rename(path, aside, ec);
        if (ec) return icl::make_error(ec.message());
        return aside;
    }
    return icl::make_error("too many set-aside files");
}

// An exclusive lock on <path>.lock for as long as it lives.
struct Lock {
    int fd = -1;
    explicit Lock(const std::string& path) {
        fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
        if (fd >= 0)
            while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {}
    }
    ~Lock() {
        if (fd >= 0) ::close(fd);
    }
    bool ok() const { return fd >= 0; }
};
#endif

// The stored document (under the lock). A store that cannot be read is set aside; a
// notice says what happened.
Progress read_stored(const std::string& path, std::string& notice) {
    Stored stored = read_stored_text(path);
    if (stored.missing) return Progress{};
    icl::Expected<pg::Read> parsed = icl::make_error(stored.problem);
    if (stored.problem.empty()) parsed = pg::read(stored.text);
    if (parsed && parsed.value().skipped == 0) return parsed.value().doc;
    if (parsed) {  // readable but for some records: keep those, copy the file aside
        const pg::Read& r = parsed.value();
        auto aside = set_aside(path, /*copy=*/true);
        notice = std::to_string(r.skipped) + " saved answer" + (r.skipped == 1 ? "" : "s") + " could not be read (" +
                 r.first_skipped + "); the others are kept and " +
                 (aside ? "the file was copied to " + aside.value()
                        : "the file could not be copied aside (" + aside.error().message + ")");
        return r.doc;
    }
    auto aside = set_aside(path, /*copy=*/false);
    notice = "the progress file was not valid (" + parsed.error().message + "); " +
             (aside ? "it was moved to " + aside.value() : "it could not be moved aside (" + aside.error().message + ")") +
             " and progress starts afresh";
    return Progress{};
}

icl::Status make_parent(const std::string& path) {
#ifndef __EMSCRIPTEN__
    if (path.empty()) return icl::make_error("no place for the progress file: neither XDG_STATE_HOME nor HOME is set");
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return icl::make_error("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
#endif
    return icl::Ok{};
}

}  // namespace

std::string default_progress_path() {
    const char* state_home = std::getenv("XDG_STATE_HOME");
    if (state_home && *state_home && fs::path(state_home).is_absolute())
        return (fs::path(state_home) / "icl-lab" / "progress.json").string();
    const char* home = std::getenv("HOME");
    if (home && *home) return (fs::path(home) / ".local" / "state" / "icl-lab" / "progress.json").string();
    return "";
}

int64_t progress_now_ms() {
    if (const char* fixed = std::getenv("ICL_NOW_MS"); fixed && *fixed) return std::strtoll(fixed, nullptr, 10);
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

LoadedProgress load_progress(const std::string& path) {
    LoadedProgress loaded;
#ifndef __EMSCRIPTEN__
    if (path.empty()) return loaded;
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return loaded;  // a first run
#endif
    if (!make_parent(path)) return loaded;
    Lock lock(path);
    loaded.progress = read_stored(path, loaded.notice);
    return loaded;
}

icl::Status update_progress(Progress& progress, const std::string& path, const std::function<void(Progress&)>& change,
                            std::vector<std::string>* notices) {
    if (auto made = make_parent(path); !made) return made;
    Lock lock(path);
    if (!lock.ok()) return icl::make_error("cannot lock " + path + ".lock");
    std::string notice;
    pg::merge(progress, read_stored(path, notice));
    if (!notice.empty() && notices) notices->push_back(notice);
    pg::bound_times(progress, progress_now_ms());
    Progress next = progress;
    if (change) change(next);
    // Never store what the next start would refuse: the change is dropped, the file kept.
    if (auto fits = pg::fits(next); !fits) return fits.error();
    progress = std::move(next);
    return write_stored_text(path, pg::write(progress));
}

icl::Expected<pg::MergeCount> import_progress(Progress& progress, const std::string& path, const std::string& file) {
#ifdef __EMSCRIPTEN__
    (void)progress, (void)path;
    return icl::make_error("cannot import " + file + " here: use the lesson index page's import");
#else
    const Stored stored = read_stored_text(file);
    if (stored.missing) return icl::make_error("cannot import " + file + ": there is no such file");
    if (!stored.problem.empty()) return icl::make_error("cannot import " + file + ": " + stored.problem);
    auto in = pg::read(stored.text);
    if (!in) return icl::make_error("cannot import " + file + ": it is not a progress file (" + in.error().message + ")");
    if (in.value().skipped > 0)
        return icl::make_error("cannot import " + file + ": it is damaged (" + std::to_string(in.value().skipped) +
                               " record(s) cannot be read: " + in.value().first_skipped + "); nothing was imported");
    pg::Document from = in.value().doc;
    pg::bound_times(from, progress_now_ms());
    pg::MergeCount count;
    auto saved = update_progress(progress, path, [&](Progress& p) { count = pg::merge(p, from); });
    if (!saved) return icl::make_error("cannot import " + file + ": " + saved.error().message + "; nothing was imported");
    return count;
#endif
}

namespace {
icl::Status write_file(const std::string& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return icl::make_error("cannot write " + file);
    return icl::Ok{};
}
}  // namespace

icl::Status export_progress(const Progress& progress, const std::string& file) {
    return write_file(file, pg::write(progress));
}

icl::Status export_summary_csv(const Progress& progress, const std::string& file) {
    return write_file(file, pg::summary_csv(progress));
}

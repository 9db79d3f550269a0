#include "icl/file_read.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace icl {

namespace {

std::string kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string mib(size_t bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return buf;
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

template <class Out>
Expected<Out> read_into(const std::string& path, size_t max_bytes, bool* missing) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    // The mode is checked right after, on the opened file (no race with a swapped link).
    // O_NOCTTY: a terminal device is refused below, and must not become ours meanwhile.
    if (missing) *missing = false;
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f.fd < 0) {
        if (missing) *missing = errno == ENOENT;
        return make_error("cannot open '" + path + "': " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return make_error("cannot read '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return make_error("'" + path + "' is " + kind_of(st.st_mode) + ", not a regular file; it was not read");
    if (st.st_size < 0 || static_cast<uint64_t>(st.st_size) > max_bytes)
        return make_error("'" + path + "' is " + mib(static_cast<size_t>(st.st_size)) + ", larger than the " + mib(max_bytes) +
                          " such a file may be (" + std::to_string(st.st_size) + " bytes, more than the " +
                          std::to_string(max_bytes) + "); it was not read");
    const int flags = ::fcntl(f.fd, F_GETFL);
    if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
    Out out;
    out.resize(static_cast<size_t>(st.st_size));
    size_t have = 0;
    for (;;) {
        if (have == out.size()) {
            // The file may have grown since fstat: read on, up to the limit.
            if (have >= max_bytes + 1) break;
            out.resize(std::min(max_bytes + 1, have + 65536));
        }
        const ssize_t n = ::read(f.fd, &out[have], out.size() - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error("error reading '" + path + "': " + std::strerror(errno));
        }
        if (n == 0) break;
        have += static_cast<size_t>(n);
    }
    if (have > max_bytes)
        return make_error("'" + path + "' grew past the " + mib(max_bytes) + " such a file may be while it was read; it was not read");
    out.resize(have);
    return out;
}

}  // namespace

Expected<std::string> read_regular_file(const std::string& path, size_t max_bytes, bool* missing) {
    return read_into<std::string>(path, max_bytes, missing);
}

Expected<std::vector<uint8_t>> read_regular_file_bytes(const std::string& path, size_t max_bytes) {
    return read_into<std::vector<uint8_t>>(path, max_bytes, nullptr);
}

Status replace_file(const std::string& path, const std::string& text) {
    const std::string temp = path + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return make_error("cannot write '" + temp + "': " + std::strerror(errno));
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(temp.c_str());
            return make_error("cannot write '" + temp + "': " + why);
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        return make_error("cannot write '" + temp + "': " + why);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        return make_error("cannot replace '" + path + "': " + why);
    }
    return Ok{};
}

}  // namespace icl

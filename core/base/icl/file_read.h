// Reading a whole file that a learner, a teacher or a damaged folder hands the program.
//
// Every file core reads (lessons, recipes, checkpoints, the desktop app's progress) goes
// through read_regular_file: it opens only regular files (a FIFO, a device such as a
// link to /dev/zero, a directory or a socket is refused without blocking on it), and
// refuses a file larger than the caller's limit before reading it, so nothing hangs and
// nothing ends in bad_alloc. Errors name the path and the problem.
//
// Host code (core/base/file_read.cpp); POSIX, so the wasm unit tests under node
// (NODERAWFS) use the same code. In the browser there is no file system and every read
// is an error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "icl/expected.h"

namespace icl {

// Limits for the files core reads: each well above the largest shipped file of its kind
// and far below what would hurt (the checkpoint limit follows gpt::Bounds::max_params).
namespace file_limits {
constexpr size_t kLesson = 4u << 20;        // a lesson source (.md); the shipped ones are < 40 KB
constexpr size_t kRecipe = 1u << 20;        // a checkpoint recipe (.json); the shipped ones are < 4 KB
constexpr size_t kCheckpoint = 40u << 20;   // a checkpoint (.icl): 8 Mi floats (32 MiB) + table
}  // namespace file_limits

// The file's bytes, or an error "'<path>': <problem>" where the problem is one of:
// cannot open (with the system's reason), is not a regular file (a FIFO / a device /
// a directory / a socket), is larger than the limit (its size and the limit, in MiB and
// in bytes), a read error. `max_bytes` bounds what is read even if the file grows while
// it is read. When `missing` is given it is set to whether the error is that the file
// does not exist (ENOENT: a first run, for a caller with a file of its own).
Expected<std::string> read_regular_file(const std::string& path, size_t max_bytes, bool* missing = nullptr);
Expected<std::vector<uint8_t>> read_regular_file_bytes(const std::string& path, size_t max_bytes);

// Replaces the file at `path` with `text` without ever leaving it half written: the text
// goes to a new file beside it (<path>.tmp-<pid>), which is then renamed over `path`. A
// crash or a full disk leaves the old file whole; the temporary file is removed on error.
Status replace_file(const std::string& path, const std::string& text);

}  // namespace icl

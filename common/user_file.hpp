// One way to open a file a user named (a traffic matrix, a routing file, a
// spec, a model, a replay record): a regular file only (a FIFO, /dev/zero or
// a directory is refused without blocking: opened O_NONBLOCK), at most
// `max_bytes` (a sparse 8 GiB file is refused before a byte is read), read
// whole. Every refusal is one line naming the file (a UsageError: exit 2).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ccb {

inline constexpr std::size_t kMaxUserFileBytes = std::size_t{64} << 20;

// A descriptor of `path` opened read-only and its size, or -1 with why not
// in `why` ("not a regular file", "No such file or directory").
int open_regular_file(const std::string& path, std::size_t& size, std::string& why);

// Up to `bytes` from the start of an open descriptor (fewer at its end),
// which it closes; false with why in `why` when a read failed.
bool read_prefix(int fd, std::size_t bytes, std::string& text, std::string& why);

// The whole text of `path`, or a UsageError "WHAT PATH: cannot read (why)"
// (`what` names the file's role: "--traffic matrix", "routing file"; "" for
// none).
std::string read_user_file(const std::string& path, std::string_view what, std::size_t max_bytes = kMaxUserFileBytes);

}  // namespace ccb

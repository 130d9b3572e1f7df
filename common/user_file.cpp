#include "common/user_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

int open_regular_file(const std::string& path, std::size_t& size, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    why = "not a regular file";
    return -1;
  }
  size = static_cast<std::size_t>(st.st_size);
  return fd;
}

bool read_prefix(int fd, std::size_t bytes, std::string& text, std::string& why) {
  text.assign(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::pread(fd, text.data() + got, bytes - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;  // shorter than its size said: what is there
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  return true;
}

std::string read_user_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const std::string name = what.empty() ? terminal_safe(path) : fmt::format("{} {}", what, terminal_safe(path));
  std::size_t size = 0;
  std::string why;
  const int fd = open_regular_file(path, size, why);
  if (fd < 0) throw UsageError(fmt::format("{}: cannot read ({})", name, why));
  if (size > max_bytes) {
    ::close(fd);
    throw UsageError(fmt::format("{}: cannot read ({} bytes, over the {} MiB limit)", name, size, max_bytes >> 20));
  }
  std::string text;
  if (!read_prefix(fd, size, text, why)) throw UsageError(fmt::format("{}: cannot read ({})", name, why));
  return text;
}

}  // namespace ccb

#include "results/import/text_input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "common/user_file.hpp"

namespace ccb {

namespace {

// A descriptor of a regular file opened for reading (common/user_file's
// open_regular_file: never blocking on a FIFO), and its size; ImportError for anything else.
int open_regular(const std::string& path, std::size_t& size) {
  std::string why;
  const int fd = open_regular_file(path, size, why);
  if (fd < 0)
    throw ImportError(why == "not a regular file" ? fmt::format("{}: not a regular file", path)
                                                  : fmt::format("{}: cannot open ({})", path, why));
  return fd;
}

}  // namespace

MappedFile::MappedFile(const std::string& path) {
  const int fd = open_regular(path, size_);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw ImportError(fmt::format("{}: cannot read ({})", path, std::strerror(err)));
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(p);
  }
  ::close(fd);
}

std::string read_head(const std::string& path, std::size_t bytes) {
  std::size_t size = 0;
  const int fd = open_regular(path, size);
  std::string head, why;
  if (!read_prefix(fd, std::min(bytes, size), head, why))
    throw ImportError(fmt::format("{}: cannot read ({})", path, why));
  return head;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(s[i]) != lower(prefix[i])) return false;
  return true;
}

bool contains_icase(std::string_view s, std::string_view needle) {
  for (std::size_t i = 0; i + needle.size() <= s.size(); ++i)
    if (starts_with_icase(s.substr(i), needle)) return true;
  return false;
}

std::optional<double> parse_double(std::string_view token) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc{} || end != token.data() + token.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_uint(std::string_view token) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc{} || end != token.data() + token.size() || token.empty()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> count_from_double(double v) {
  if (!(v >= 0) || v >= 18446744073709551616.0 || v != std::floor(v)) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

std::string quote_value(std::string_view value, std::size_t limit) {
  std::string out = "'";
  for (std::size_t i = 0; i < value.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (value.size() > limit) out += "...";
  return out + "'";
}

std::string_view strip_mpirun_tag(std::string_view line) {
  if (line.empty() || line.front() != '[') return line;
  const std::size_t close = line.find("]<std");
  if (close == std::string_view::npos || close > 24) return line;
  const std::size_t colon = line.find(">:", close);
  return colon == std::string_view::npos ? line : line.substr(colon + 2);
}

}  // namespace ccb

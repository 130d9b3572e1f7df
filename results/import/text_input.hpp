// Reading result files: a whole file mapped read-only, walked line by line,
// split into whitespace-separated tokens, numbers parsed without locale or
// allocation. Lines longer than kMaxLine are reported, not read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "results/record.hpp"

namespace ccb {

// The longest line a reader takes: ccbench's own longest, a point with
// --samples (two placements of kMaxSamplesWritten samples), plus 1 MiB for
// the rest of the record; longer lines cannot be results and are skipped.
// How much of a file's start decides its format.
inline constexpr std::size_t kFormatHead = 64 * 1024;

inline constexpr std::size_t kMaxLine = 2 * kMaxSamplesWritten * kMaxSampleChars + (std::size_t{1} << 20);

// A file's bytes, mapped (regular files) and unmapped on destruction. Throws
// ImportError for anything that is not a readable regular file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

// The first `bytes` of a regular file (fewer when it is shorter). Throws
// ImportError like MappedFile.
std::string read_head(const std::string& path, std::size_t bytes);

// A file the comparator cannot use at all (missing, unreadable, a device).
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Walks lines; `number` is 1-based. A trailing '\r' is dropped.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : rest_(text) {}
  bool next(std::string_view& line) {
    if (rest_.empty()) return false;
    const std::size_t end = rest_.find('\n');
    line = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view{} : rest_.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number_;
    return true;
  }
  std::uint32_t number() const { return number_; }

 private:
  std::string_view rest_;
  std::uint32_t number_ = 0;
};

// Splits on spaces and tabs into at most N tokens; returns how many (N + 1
// when there were more).
template <std::size_t N>
std::size_t split_tokens(std::string_view line, std::string_view (&out)[N]) {
  std::size_t n = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (n == N) return N + 1;
    out[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

std::string_view trim(std::string_view s);
bool starts_with_icase(std::string_view s, std::string_view prefix);
bool contains_icase(std::string_view s, std::string_view needle);

// Finite decimal numbers only: no NaN, no infinity, whole token consumed.
std::optional<double> parse_double(std::string_view token);
std::optional<std::uint64_t> parse_uint(std::string_view token);
// A count that arrived as a double (JSON, "%g" columns): whole, >= 0 and
// below 2^64, else nullopt (converting anything else would be undefined).
std::optional<std::uint64_t> count_from_double(double v);

// A value from a file, fit to quote in a message: printable ASCII, at most 40
// characters (longer values are cut and marked).
std::string quote_value(std::string_view value, std::size_t limit = 40);

// Drops an mpirun --tag-output prefix ("[1,0]<stdout>:") from a line.
std::string_view strip_mpirun_tag(std::string_view line);

}  // namespace ccb

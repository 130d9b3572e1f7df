#include "results/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/errors.hpp"

namespace ccb {
namespace {

std::string folder_of(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string parent = p.parent_path().string();
  return parent.empty() ? "." : parent;
}

// lstat: errno 0 and st_mode 0 when nothing is there.
struct Existing {
  bool exists = false;
  bool followed = false;  // a /dev or /proc link, seen through
  struct stat st {};
};

Existing look(const std::string& path) {
  Existing e;
  e.exists = ::lstat(path.c_str(), &e.st) == 0;
  return e;
}

// The temporary file being written, removed when SIGINT, SIGTERM or SIGHUP
// ends the process meanwhile: only where the signal's action is the default
// (a run's stop handler lets the write finish and rename it). One at a time
// (a second concurrent write is not covered; none happens today).
char g_temporary[4096];
std::atomic<bool> g_temporary_claimed{false};
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporary_and_end(int sig) {
  ::unlink(g_temporary);
  ::raise(sig);  // SA_RESETHAND | SA_NODEFER: the default action, now
}

class TemporaryGuard {
 public:
  explicit TemporaryGuard(const std::string& tmp) {
    if (tmp.size() >= sizeof g_temporary || g_temporary_claimed.exchange(true)) return;
    std::memcpy(g_temporary, tmp.c_str(), tmp.size() + 1);
    claimed_ = true;
    struct sigaction sa {};
    sa.sa_handler = remove_temporary_and_end;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i) {
      struct sigaction old {};
      if (::sigaction(kEndingSignals[i], nullptr, &old) == 0 && old.sa_handler == SIG_DFL &&
          !(old.sa_flags & SA_SIGINFO))
        installed_[i] = ::sigaction(kEndingSignals[i], &sa, nullptr) == 0;
    }
  }
  ~TemporaryGuard() {
    if (!claimed_) return;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i)
      if (installed_[i]) ::sigaction(kEndingSignals[i], &dfl, nullptr);
    g_temporary_claimed = false;
  }
  TemporaryGuard(const TemporaryGuard&) = delete;
  TemporaryGuard& operator=(const TemporaryGuard&) = delete;

 private:
  bool claimed_ = false;
  bool installed_[std::size(kEndingSignals)] = {};
};

bool is_stream(const struct stat& st) { return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode); }

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are links to what
// the caller opened: written into as they are, never created, renamed over or
// truncated.
bool system_stream_path(const std::string& path) { return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0; }

// What is at `path`, seen as ccbench will write it: a system stream path is
// looked at through its links.
Existing look_output(const std::string& path) {
  Existing e = look(path);
  if (e.exists && S_ISLNK(e.st.st_mode) && system_stream_path(path)) {
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0) {
      e.st = target;
      e.followed = true;
    }
  }
  return e;
}

constexpr const char* kNoLinks = "is a symbolic link; ccbench does not write through links (give the file's own path)";

[[noreturn]] void refuse(const std::string& flag, const std::string& path, const std::string& what) {
  throw UsageError(fmt::format("{} {}: {}", flag, path, what));
}

// The bytes did not reach the file (disk full, I/O error): exit 5, not 2.
[[noreturn]] void write_failed(const std::string& flag, const std::string& path, int err) {
  throw OutputError(fmt::format("{} {}: cannot write: {}", flag, path, std::strerror(err)));
}

// Opens a character device or FIFO for writing without blocking on a FIFO
// that has no reader (ENXIO), then makes the descriptor blocking again.
int open_stream(const std::string& flag, const std::string& path) {
  const int nofollow = system_stream_path(path) ? 0 : O_NOFOLLOW;
  const int fd = ::open(path.c_str(), O_WRONLY | nofollow | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENXIO) refuse(flag, path, "a FIFO with no reader (start the reader first)");
    refuse(flag, path, fmt::format("cannot write: {}", std::strerror(errno)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool written_into(const Existing& e) { return e.exists && (is_stream(e.st) || e.followed); }

void check_kind(const std::string& flag, const std::string& path, const Existing& e) {
  // Under /dev/ and /proc/ ccbench writes into what is there, never creates a file.
  if (!e.exists && system_stream_path(path))
    refuse(flag, path, "does not exist; under /dev/ and /proc/ ccbench only writes into an existing device or stream");
  if (!e.exists || e.followed) return;
  if (S_ISLNK(e.st.st_mode)) refuse(flag, path, kNoLinks);
  if (S_ISDIR(e.st.st_mode)) refuse(flag, path, "is a folder");
  if (!S_ISREG(e.st.st_mode) && !is_stream(e.st))
    refuse(flag, path, "is not a regular file, character device or FIFO; ccbench does not write there");
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A key that is the same for two spellings of one file: device and inode when
// it exists, else the resolved folder and the name.
std::string identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return fmt::format("@{}:{}", st.st_dev, st.st_ino);
  std::error_code ec;
  const auto folder = std::filesystem::weakly_canonical(folder_of(path), ec);
  return (ec ? std::filesystem::path(folder_of(path)) : folder).string() + "/" +
         std::filesystem::path(path).filename().string();
}

}  // namespace

void check_output_writable(const std::string& flag, const std::string& path) {
  const Existing e = look_output(path);
  check_kind(flag, path, e);
  if (written_into(e)) {
    ::close(open_stream(flag, path));
    return;
  }
  if (e.exists && ::access(path.c_str(), W_OK) != 0)
    refuse(flag, path, fmt::format("cannot write: {}", std::strerror(errno)));
  const std::string folder = folder_of(path);
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    refuse(flag, path, fmt::format("cannot write in folder {}: {}", folder, std::strerror(errno)));
}

void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::pair<std::string, std::string>>& inputs) {
  struct Seen {
    std::string id, flag, path;
  };
  std::vector<Seen> seen;
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    struct stat st {};
    // A character device or FIFO (/dev/null, /dev/stdout) may take several outputs.
    if (::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) continue;
    const std::string id = identity(path);
    for (const Seen& s : seen)
      if (s.id == id)
        throw UsageError(fmt::format("{} {}: the same file as {}; give each output its own file", flag, path, s.flag));
    seen.push_back({id, flag, path});
  }
  for (const auto& [flag, path] : inputs) {
    if (path.empty()) continue;
    const std::string id = identity(path);
    for (const Seen& s : seen)
      if (s.id == id)
        throw UsageError(
            fmt::format("{} {}: is also the input {}; writing it would destroy the input", s.flag, s.path, flag));
    // A folder is read file by file: every file in it (and below, up to
    // kMaxInputFolderEntries) is an input too. A new output inside an input
    // folder would be read back by the next run, but loses nothing: allowed.
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) continue;
    std::size_t entries = 0;
    for (auto it = std::filesystem::recursive_directory_iterator(
             path, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator() && entries < kMaxInputFolderEntries;
         it.increment(ec), ++entries) {
      if (!it->is_regular_file(ec)) continue;
      const std::string inner = identity(it->path().string());
      for (const Seen& s : seen)
        if (s.id == inner)
          throw UsageError(
              fmt::format("{} {}: is also {}, read as input from {} {}; writing it would destroy the input", s.flag,
                          s.path, it->path().string(), flag, path));
    }
  }
}

void check_inputs_outside(const std::string& flag, const std::string& folder,
                          const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::weakly_canonical(folder, ec);
  if (ec) return;
  for (const auto& [what, path] : inputs) {
    if (path.empty()) continue;
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    if (ec) continue;
    const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    if (r == root.end())
      throw UsageError(
          fmt::format("{} {}: the input {} {} is inside {}, which this command rewrites; move it out first", flag,
                      folder, what, path, folder));
  }
}

OutputFile::OutputFile(const std::string& flag, const std::string& path, bool append) : path_(path) {
  const Existing e = look_output(path);
  check_kind(flag, path, e);
  if (written_into(e)) {
    fd_ = open_stream(flag, path);
    return;
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd_ < 0) {
    if (errno == ELOOP) refuse(flag, path, kNoLinks);
    refuse(flag, path, fmt::format("cannot write: {}", std::strerror(errno)));
  }
  struct stat st {};
  ::fstat(fd_, &st);
  regular_ = S_ISREG(st.st_mode);
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  if (regular_) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        refuse(flag, path, "another ccbench run is writing this file (it holds the lock); choose another file");
      refuse(flag, path, fmt::format("cannot lock: {}", std::strerror(err)));
    }
    if (append) {
      good_ = static_cast<long long>(::lseek(fd_, 0, SEEK_END));
      if (good_ < 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        refuse(flag, path, fmt::format("cannot append: {}", std::strerror(err)));
      }
    } else if (::ftruncate(fd_, 0) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      refuse(flag, path, fmt::format("cannot truncate: {}", std::strerror(err)));
    }
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);  // also drops the lock
}

bool OutputFile::write(std::string_view record) {
  if (!error_.empty() || fd_ < 0) return false;
  if (write_all(fd_, record.data(), record.size())) {
    good_ += static_cast<long long>(record.size());
    return true;
  }
  error_ = fmt::format("{}: {}", path_, std::strerror(errno));
  // Cut a partly written record off, so that the file ends with a whole one.
  if (regular_ && ::ftruncate(fd_, good_) == 0) ::lseek(fd_, good_, SEEK_SET);
  return false;
}

void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::function<void(std::FILE*)>& write) {
  const Existing e = look_output(path);
  check_kind(flag, path, e);
  if (written_into(e)) {
    std::FILE* out = ::fdopen(open_stream(flag, path), "wb");
    if (!out) refuse(flag, path, fmt::format("cannot write: {}", std::strerror(errno)));
    write(out);
    const int err = std::fflush(out) != 0 || std::ferror(out) ? (errno ? errno : EIO) : 0;
    std::fclose(out);
    if (err) write_failed(flag, path, err);
    return;
  }
  const std::filesystem::path target(path);
  std::string tmp = (std::filesystem::path(folder_of(path)) / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // O_CREAT | O_EXCL: never an existing name or link
  if (fd < 0)  // a read-only folder or mount, no space, no inode: the output cannot be written (5)
    throw OutputError(fmt::format("{} {}: cannot create a temporary file in {}: {}", flag, path, folder_of(path),
                                  std::strerror(errno)));
  const TemporaryGuard guard(tmp);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  std::FILE* out = ::fdopen(fd, "wb");
  if (!out) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    refuse(flag, path, fmt::format("cannot write: {}", std::strerror(err)));
  }
  write(out);
  int err = std::fflush(out) != 0 || std::ferror(out) ? (errno ? errno : EIO) : 0;
  if (std::fclose(out) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    write_failed(flag, path, err);
  }
}

void write_file_atomically(const std::string& flag, const std::string& path, const std::string& text) {
  write_file_atomically(flag, path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

bool write_stdout(std::string_view text, std::string* error) {
  errno = 0;
  const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok) {
    const int err = errno ? errno : EIO;
    std::clearerr(stdout);
    if (error) *error = fmt::format("stdout: {}", std::strerror(err));
  }
  return ok;
}

int print_or_fail(std::string_view text) {
  std::string error;
  if (write_stdout(text, &error)) return kExitOk;
  fmt::print(stderr, "ccbench: cannot write {}\n", error);
  return kExitOutput;
}

}  // namespace ccb

#include "io/workspace.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/errors.hpp"

namespace ccb {
namespace {

std::string errno_text() { return std::strerror(errno); }

struct FsKind {
  long magic;
  const char* name;
  bool shared;
};
// statfs(2) f_type values (linux/magic.h and the file systems' own headers).
constexpr FsKind kFileSystems[] = {
    {0xEF53, "ext4", false},      {0x58465342, "xfs", false},       {0x9123683E, "btrfs", false},
    {0x01021994, "tmpfs", false}, {0x2FC12FC1, "zfs", false},       {0x6969, "nfs", true},
    {0x0BD00BD0, "lustre", true}, {0x47504653, "gpfs", true},       {0x00C36400, "cephfs", true},
    {0x19830326, "beegfs", true}, {0xFE534D42, "smb2", true},       {0xFF534D42, "cifs", true},
    {0x65735546, "fuse", true},   {0x794C7630, "overlayfs", false}, {0x5346414F, "afs", true},
};

}  // namespace

void check_target_dir(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) throw UsageError(fmt::format("io {}: {}", dir, errno_text()));
  if (!S_ISDIR(st.st_mode)) throw UsageError(fmt::format("io {}: not a directory", dir));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("io {}: cannot write there ({})", dir, errno_text()));
}

FreeSpace free_space(const std::string& dir) {
  FreeSpace out;
  struct statvfs v {};
  if (statvfs(dir.c_str(), &v) != 0) throw UsageError(fmt::format("io {}: {}", dir, errno_text()));
  out.available = sat_mul(static_cast<std::uint64_t>(v.f_bavail), v.f_frsize);
  if (v.f_files > 0) out.inodes_available = static_cast<std::uint64_t>(v.f_favail);
  struct statfs f {};
  out.fs_type = "unknown";
  if (statfs(dir.c_str(), &f) == 0) {
    out.fs_type = fmt::format("0x{:x}", static_cast<unsigned long>(f.f_type));
    for (const FsKind& k : kFileSystems)
      if (static_cast<unsigned long>(f.f_type) == static_cast<unsigned long>(k.magic)) {
        out.fs_type = k.name;
        out.shared = k.shared;
      }
  }
  return out;
}

Workspace::Workspace(const std::string& dir, const std::string& name, bool keep)
    : path_(dir + "/" + name), keep_(keep) {
  if (mkdir(path_.c_str(), 0700) == 0) return;
  if (errno != EEXIST) throw UsageError(fmt::format("io {}: cannot create {} ({})", dir, name, errno_text()));
  struct stat st {};
  if (lstat(path_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    throw UsageError(fmt::format("io {}: {} exists and is not this run's folder: not touched", dir, name));
}

Workspace::~Workspace() { clean(); }

int Workspace::create(const std::string& name) {
  const std::string p = file(name);
  const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(fmt::format("create {}: {}", p, errno_text()));
  files_.push_back(p);
  return fd;
}

int Workspace::open_existing(const std::string& name, bool direct, bool write) const {
  const std::string p = file(name);
  const int fd = ::open(p.c_str(), (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | (direct ? O_DIRECT : 0));
  if (fd < 0 && errno == EINVAL && direct)
    throw UsageError(fmt::format("io {}: the file system does not take O_DIRECT (--direct): run without it", path_));
  if (fd < 0) throw std::runtime_error(fmt::format("open {}: {}", p, errno_text()));
  return fd;
}

void Workspace::make_folder(const std::string& name) {
  const std::string p = file(name);
  if (mkdir(p.c_str(), 0700) != 0) throw std::runtime_error(fmt::format("create {}: {}", p, errno_text()));
  folders_.push_back(p);
}

namespace {
// Removes `path` (with `how`) when `list` remembers it, and forgets it.
template <class How>
void remove_remembered(std::vector<std::string>& list, const std::string& path, How how) {
  const auto it = std::find(list.begin(), list.end(), path);
  if (it == list.end()) return;
  how(path.c_str());
  list.erase(it);
}
}  // namespace

void Workspace::remove(const std::string& name) {
  if (!keep_) remove_remembered(files_, file(name), ::unlink);
}

void Workspace::remove_folder(const std::string& name) {
  if (!keep_) remove_remembered(folders_, file(name), ::rmdir);
}

void Workspace::clean() {
  if (keep_) return;
  for (const std::string& f : files_) ::unlink(f.c_str());
  files_.clear();
  for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) ::rmdir(it->c_str());
  folders_.clear();
  ::rmdir(path_.c_str());  // fails while another rank's files are still there: that rank removes it
}

void drop_page_cache(int fd) {
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

double resident_fraction(int fd, std::uint64_t offset, std::uint64_t bytes) {
  if (bytes == 0) return 0;
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page;
  bytes += offset - start;
  void* map = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  if (map == MAP_FAILED) return -1;
  const std::size_t pages = (bytes + page - 1) / page;
  std::vector<unsigned char> in(pages);
  double fraction = -1;
  if (mincore(map, bytes, in.data()) == 0) {
    std::size_t resident = 0;
    for (unsigned char c : in) resident += c & 1;
    fraction = static_cast<double>(resident) / static_cast<double>(pages);
  }
  munmap(map, bytes);
  return fraction;
}

}  // namespace ccb

// Where ccbench io writes: its own subfolder of the folder the user gave,
// files created there with O_EXCL and without following links (a file
// ccbench did not create is never opened for writing), and removed again at
// the end, on an error or after a stop signal (unless --keep). Also the
// checks before anything is written (folder, permission, free space) and the
// page-cache controls.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/checked_math.hpp"

namespace ccb {

// The checks on the target folder; throws UsageError ("io DIR: ..."): missing,
// not a directory, not writable.
void check_target_dir(const std::string& dir);

// Bytes available to this user on the file system of `dir`, and whether that
// file system is shared between hosts (NFS, Lustre, GPFS, CephFS, BeeGFS,
// SMB, FUSE mounts: free space is then checked against the whole job's plan).
struct FreeSpace {
  std::uint64_t available = 0;
  std::uint64_t inodes_available = kSaturated;  // kSaturated: the file system does not count inodes (f_files 0)
  std::string fs_type;                          // "ext4/xfs/... (local)" or the network file system's name
  bool shared = false;
};
FreeSpace free_space(const std::string& dir);

class Workspace {
 public:
  // Creates (or, when another rank of the job made it already, joins)
  // DIR/NAME. Throws UsageError when it cannot, or when DIR/NAME exists and
  // is not a folder of this user.
  Workspace(const std::string& dir, const std::string& name, bool keep);
  ~Workspace();  // removes what this process created, unless kept
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Creates a new file (O_CREAT | O_EXCL | O_NOFOLLOW) and remembers it for
  // removal; returns its descriptor, open read-write (buffered).
  int create(const std::string& name);
  // Opens a file of this run (made by this rank or another); never creates.
  int open_existing(const std::string& name, bool direct, bool write) const;
  void make_folder(const std::string& name);  // a subfolder, remembered too
  // Removes one remembered file or folder now (a checkpoint shard, a
  // dataset after its point); nothing with --keep.
  void remove(const std::string& name);
  void remove_folder(const std::string& name);
  // Removes every remembered file and folder (children first); the
  // workspace folder itself when it is then empty. Idempotent.
  void clean();

 private:
  std::string path_;
  bool keep_;
  std::vector<std::string> files_, folders_;
};

// Writes back and drops a file's pages from the page cache (fdatasync, then
// posix_fadvise DONTNEED), so that a buffered read measures the storage.
void drop_page_cache(int fd);
// Fraction of `bytes` of the file from `offset` that is in the page cache
// (mincore over a mapping): what the drop achieved; -1 when unknown.
double resident_fraction(int fd, std::uint64_t offset, std::uint64_t bytes);

}  // namespace ccb

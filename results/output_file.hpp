// Files ccbench creates. Never through a symbolic link (a link planted at an
// output or temporary name cannot redirect a write), never replacing a device
// or FIFO (those are written straight into), every write, flush and close
// checked. Rules: docs/failures.md "Outputs".
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace ccb {

// Refuses (UsageError naming `flag`) an output ccbench must not or cannot
// write: a symbolic link, a folder, a socket or block device, a file or folder
// without write permission. A FIFO without a reader is refused too (writing to
// it would block forever). Creates and changes nothing.
void check_output_writable(const std::string& flag, const std::string& path);

// Refuses the same path used twice by one command (outputs, or an output
// that is also an input): `paths` are (flag, path) pairs; paths are compared
// after resolving the folder they are in. Inputs are never written.
// Inputs are compared by identity (device and inode), and an input folder by
// every file in it: no output may replace a file the command reads.
void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::pair<std::string, std::string>>& inputs);
inline constexpr std::size_t kMaxInputFolderEntries = 200000;

// Refuses an input that lies inside `folder`, a folder the command fills and
// replaces files in (accept's --out DIR/raw).
void check_inputs_outside(const std::string& flag, const std::string& folder,
                          const std::vector<std::pair<std::string, std::string>>& inputs);

// A file written as a stream (-J, --csv): opened without following links,
// locked (flock) against a second ccbench run writing the same regular file,
// truncated only once the lock is held. Each write() is one whole record: on
// a failed write the file is cut back to the end of the last whole record,
// the error is kept and later writes do nothing.
class OutputFile {
 public:
  // `append`: the records go after what the file holds (a second run of one
  // command into the same file: ccbench moe), else it is truncated.
  OutputFile(const std::string& flag, const std::string& path, bool append = false);  // throws UsageError
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool write(std::string_view record);
  // "PATH: No space left on device"; empty while every write succeeded.
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_, error_;
  int fd_ = -1;
  bool regular_ = false;
  long long good_ = 0;  // bytes of whole records written
};

// Writes a whole file: a regular file (or a missing one) through a unique
// temporary in the same folder (O_EXCL, mode 0666 & ~umask) renamed into
// place, so a failure leaves the old file; a character device or FIFO is
// written straight into. Throws UsageError "FLAG PATH: what failed".
void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::function<void(std::FILE*)>& write);
void write_file_atomically(const std::string& flag, const std::string& path, const std::string& text);

// Writes `text` to stdout and flushes it; false (and `error` says why, e.g.
// "stdout: No space left on device") when it could not be written.
bool write_stdout(std::string_view text, std::string* error = nullptr);
// write_stdout, and on failure one line on stderr: the exit code (0 or 5).
int print_or_fail(std::string_view text);

}  // namespace ccb

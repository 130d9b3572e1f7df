// ccbench io: what a storage benchmark run does (patterns, engine, queue
// depth, file layout, destination memory) and the checks on it that need no
// file system. The run itself: io/io_run.hpp; the command: commands/io_command.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ccb {

enum class IoPattern { seq_read, seq_write, rand_read, rand_write, mixed, checkpoint, dataset };

// A pattern is a row of data: its name, whether it reads or writes, how its
// blocks are ordered and what one timed operation is.
struct IoPatternRow {
  IoPattern id;
  std::string_view name;  // as on the command line and in the results ("io_" + name is the series)
  bool reads, writes, random;
  std::string_view what;  // one line for --help
};
std::span<const IoPatternRow> io_patterns();
const IoPatternRow& row(IoPattern p);

enum class IoEngineKind { io_uring, psync };
std::string_view name(IoEngineKind e);

// Where the bytes land (reads) or come from (writes).
enum class IoMemory { pageable, pinned, device };
std::string_view name(IoMemory m);

struct IoOptions {
  std::string dir;  // ccbench makes its own subfolder in it
  std::vector<IoPattern> patterns;
  std::vector<std::size_t> blocks;                 // the block-size sweep (-b -e -f); dataset: the file size
  std::size_t file_bytes = std::size_t{64} << 20;  // per rank: its file, or its share of the shared file
  int threads = 1;                                 // per rank
  int queue_depth = 1;                             // per thread
  bool direct = false;                             // O_DIRECT
  IoEngineKind engine = IoEngineKind::io_uring;
  bool shared_file = false;  // one file for all ranks (each its own region) instead of one per rank
  IoMemory memory = IoMemory::pageable;
  int read_percent = 70;            // mixed
  std::size_t dataset_files = 256;  // dataset: files per rank
  int check_passes = 1;             // -c: verification passes (0: not checked)
  double time_per_size = 0;         // seconds a point may run (0: one whole pass)
  bool keep = false;                // leave the files for a later run
};

// O_DIRECT and the 512-byte stamps (io/block_content.hpp) need whole sectors.
inline constexpr std::size_t kIoSector = 512;

// The checks that need no file system: block sizes in whole sectors, the
// file at least one (largest) block, a queue depth the engine has, a read
// share within 0-100. Throws UsageError naming the flag.
void validate(const IoOptions& o);

// Bytes the run writes on the target at its largest (what must be free
// before anything is written), for `ranks` ranks.
std::uint64_t bytes_needed(const IoOptions& o, int ranks);  // saturates (common/checked_math.hpp): never wraps
// Files and folders the run creates on `ranks` ranks (checked against free inodes).
std::uint64_t inodes_needed(const IoOptions& o, int ranks);

// Blocks of `block` bytes in one rank's region: file_bytes / block.
inline std::uint64_t blocks_per_rank(const IoOptions& o, std::size_t block) { return o.file_bytes / block; }

}  // namespace ccb

// What ccbench io writes and expects to read back. A file's bytes are a
// 1 MiB period of ccbench's copy pattern (kernels/pattern.hpp, the file's id
// as the rank), and every 512-byte sector starts with a 16-byte stamp (file
// id, the sector's byte offset), so a block that is corrupt, stale, missing
// or at the wrong place does not verify, whatever block size wrote it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccb {

class BlockContent {
 public:
  explicit BlockContent(std::uint32_t file_id);
  // Fills `len` bytes (whole sectors) with the file's bytes at `offset`
  // (sector-aligned): a copy from the period, then the stamps.
  void fill(void* buf, std::uint64_t offset, std::size_t len) const;
  // Whether `buf` holds exactly the file's bytes at `offset`.
  bool matches(const void* buf, std::uint64_t offset, std::size_t len) const;

 private:
  std::uint32_t file_id_;
  std::vector<unsigned char> period_;  // stamps zero
};

}  // namespace ccb

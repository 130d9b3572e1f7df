#include "io/block_content.hpp"

#include <algorithm>
#include <cstring>

#include "io/io_options.hpp"
#include "kernels/pattern.hpp"

namespace ccb {
namespace {

constexpr std::size_t kPeriod = std::size_t{1} << 20;
constexpr std::size_t kStampBytes = 16;
constexpr std::uint64_t kStampMagic = 0x63636265'6e63696full;  // "ccbencio"

void write_stamp(unsigned char* sector, std::uint32_t file_id, std::uint64_t offset) {
  const std::uint64_t words[2] = {kStampMagic ^ file_id, offset};
  std::memcpy(sector, words, kStampBytes);
}

}  // namespace

BlockContent::BlockContent(std::uint32_t file_id) : file_id_(file_id), period_(kPeriod) {
  const DType d = DType::int32;
  fill_input(d, make_pattern(d, std::nullopt, 1), static_cast<int>(file_id % (1u << 20)), period_.data(),
             kPeriod / sizeof(std::int32_t), 0);
  for (std::size_t at = 0; at < kPeriod; at += kIoSector) std::memset(period_.data() + at, 0, kStampBytes);
}

void BlockContent::fill(void* buf, std::uint64_t offset, std::size_t len) const {
  auto* p = static_cast<unsigned char*>(buf);
  for (std::size_t done = 0; done < len;) {
    const std::size_t at = (offset + done) % kPeriod, n = std::min(len - done, kPeriod - at);
    std::memcpy(p + done, period_.data() + at, n);
    done += n;
  }
  for (std::size_t at = 0; at < len; at += kIoSector) write_stamp(p + at, file_id_, offset + at);
}

bool BlockContent::matches(const void* buf, std::uint64_t offset, std::size_t len) const {
  const auto* p = static_cast<const unsigned char*>(buf);
  for (std::size_t at = 0; at < len; at += kIoSector) {
    unsigned char want[kStampBytes];
    write_stamp(want, file_id_, offset + at);
    const std::size_t in_period = (offset + at) % kPeriod;  // sectors never straddle the period
    const std::size_t n = std::min(kIoSector, len - at);
    if (std::memcmp(p + at, want, std::min(n, kStampBytes)) != 0) return false;
    if (n > kStampBytes &&
        std::memcmp(p + at + kStampBytes, period_.data() + in_period + kStampBytes, n - kStampBytes) != 0)
      return false;
  }
  return true;
}

}  // namespace ccb

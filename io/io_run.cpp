#include "io/io_run.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "io/block_content.hpp"
#include "io/block_order.hpp"
#include "io/engine.hpp"
#include "io/io_memory.hpp"

namespace ccb {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string errno_text(long e) { return std::strerror(static_cast<int>(e)); }

// A buffer for the untimed phases (layout, checks), aligned for O_DIRECT.
struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t bytes) : p(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096)) {
    if (!p) throw std::runtime_error("out of memory");
  }
  ~AlignedBuffer() { std::free(p); }
  void* p;
};

void transfer(int fd, bool write, void* buf, std::size_t len, std::uint64_t offset, const std::string& what) {
  const IoRequest r{fd, write, buf, len, offset, 0};
  if (const long rc = transfer_whole(r); rc < 0)
    throw std::runtime_error(
        fmt::format("{} {} bytes at {}: {}", write ? "write" : "read", len, what, errno_text(-rc)));
}

// A stop signal in the untimed setup (creating, laying out, verifying):
// checked every 256 files and every MiB written, so setup stops within a
// second or two, like a pass.
void check_stop(bool (*stop)()) {
  if (stop && stop()) throw IoSetupStopped();
}

// Writes `len` bytes of `content` at `base`, in chunks of up to 1 MiB.
void lay_out(int fd, const BlockContent& content, std::uint64_t base, std::uint64_t len, const std::string& what,
             bool (*stop)()) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  AlignedBuffer buf(kChunk);
  for (std::uint64_t at = 0; at < len; at += kChunk) {
    check_stop(stop);
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, len - at));
    content.fill(buf.p, base + at, n);
    transfer(fd, true, buf.p, n, base + at, what);
  }
}

}  // namespace

// The common start of a rank's threads: each sets up (its engine, its
// buffers) and arrives; the clock starts when all have, so that the pass
// times the transfers, not thread creation or io_uring_queue_init.
class StartGate {
 public:
  explicit StartGate(int threads) : waiting_(threads) {}
  // A thread is ready: waits for the start; returns its time and the deadline.
  std::pair<double, double> arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (--waiting_ == 0) cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    return {start_, deadline_};
  }
  // A thread that failed before it arrived.
  void arrive() {
    std::lock_guard<std::mutex> lock(m_);
    if (--waiting_ == 0) cv_.notify_all();
  }
  double open_when_ready(double seconds) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return waiting_ == 0; });
    start_ = now_s();
    deadline_ = seconds > 0 ? start_ + seconds : 0;
    open_ = true;
    cv_.notify_all();
    return start_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int waiting_;
  bool open_ = false;
  double start_ = 0, deadline_ = 0;
};

namespace {

// Runs `body(t, arrived)` on `threads` threads, `between()` on this one
// meanwhile; the first exception is rethrown. A body that throws before it
// set `arrived` is counted in at the gate. A thread that cannot be started
// (no memory for its stack, a process limit) is counted in at the gate too,
// so the others do not wait forever, and becomes the error once they ended.
template <class Body, class Between>
void on_threads(int threads, StartGate& gate, Body&& body, Between&& between) {
  std::vector<std::thread> pool;
  std::mutex m;
  std::exception_ptr first;
  for (int t = 0; t < threads; ++t) try {
      pool.emplace_back([&, t] {
        bool arrived = false;
        try {
          body(t, arrived);
        } catch (...) {
          if (!arrived) gate.arrive();
          std::lock_guard<std::mutex> lock(m);
          if (!first) first = std::current_exception();
        }
      });
    } catch (const std::system_error& e) {
      for (int missing = t; missing < threads; ++missing) gate.arrive();
      std::lock_guard<std::mutex> lock(m);
      if (!first)
        first = std::make_exception_ptr(std::runtime_error(
            fmt::format("--threads {}: cannot start thread {} ({}): use fewer --threads", threads, t + 1, e.what())));
      break;
    }
  between();
  for (auto& th : pool) th.join();
  if (first) std::rethrow_exception(first);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A descriptor of the untimed phases, closed when it goes out of scope (also
// when a transfer throws).
struct FileHandle {
  explicit FileHandle(int f) : fd(f) {}
  ~FileHandle() { close_fd(fd); }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int fd;
};

}  // namespace

IoRank::IoRank(const IoOptions& o, Workspace& ws, int rank, int device, bool corrupt, bool (*stop)())
    : o_(o), ws_(ws), rank_(rank), device_(device), corrupt_(corrupt), stop_(stop) {}

IoRank::~IoRank() {
  close_fd(data_fd_);
  close_fd(data_io_fd_);
  close_fd(ckpt_fd_);
  close_fd(ckpt_io_fd_);
}

std::string IoRank::region_file(IoPattern p) const {
  const bool ckpt = p == IoPattern::checkpoint;
  // A checkpoint is a new file per point (named by its block size: --keep keeps each).
  if (o_.shared_file) return ckpt ? fmt::format("checkpoint-{}.dat", block_) : "shared.dat";
  return ckpt ? fmt::format("checkpoint-{}-rank{}.dat", block_, rank_) : fmt::format("rank{}.dat", rank_);
}
std::uint32_t IoRank::region_id(IoPattern p) const {
  const std::uint32_t base = p == IoPattern::checkpoint ? 0x20000000u : 0x10000000u;
  return base + (o_.shared_file ? 0u : static_cast<std::uint32_t>(rank_) + 1);
}
std::uint64_t IoRank::region_base() const {
  return o_.shared_file ? static_cast<std::uint64_t>(rank_) * o_.file_bytes : 0;
}
int IoRank::io_fd(IoPattern p) const { return p == IoPattern::checkpoint ? ckpt_io_fd_ : data_io_fd_; }
std::string IoRank::dataset_folder() const { return fmt::format("dataset-{}-rank{}", block_, rank_); }
std::string IoRank::dataset_file(std::size_t i) const { return fmt::format("{}/f{}.dat", dataset_folder(), i); }
std::uint32_t IoRank::dataset_id(std::size_t i) const {
  return 0x40000000u + static_cast<std::uint32_t>(static_cast<std::uint64_t>(rank_) * o_.dataset_files + i);
}

void IoRank::create(IoPattern p, std::size_t block) {
  block_ = block;
  seed_ = mix64(seed_ ^ (static_cast<std::uint64_t>(rank_) << 32) ^ block ^ static_cast<std::uint64_t>(p) << 56);
  const bool mine = !o_.shared_file || rank_ == 0;
  if (p == IoPattern::dataset) {
    ws_.make_folder(dataset_folder());
    for (std::size_t i = 0; i < o_.dataset_files; ++i) {
      if (i % 256 == 0) check_stop(stop_);
      FileHandle made(ws_.create(dataset_file(i)));
    }
  } else if (p == IoPattern::checkpoint) {
    if (mine) ckpt_fd_ = ws_.create(region_file(p));
  } else if (data_fd_ < 0 && mine) {
    data_fd_ = ws_.create(region_file(p));
  }
}

void IoRank::prepare(IoPattern p, std::size_t block) {
  const bool writes = row(p).writes;
  if (p == IoPattern::dataset) {
    for (std::size_t i = 0; i < o_.dataset_files; ++i) {
      if (i % 256 == 0) check_stop(stop_);
      const FileHandle f(ws_.open_existing(dataset_file(i), false, true));
      lay_out(f.fd, BlockContent(dataset_id(i)), 0, block, ws_.file(dataset_file(i)), nullptr);
    }
  } else if (p == IoPattern::checkpoint) {
    if (ckpt_fd_ < 0) ckpt_fd_ = ws_.open_existing(region_file(p), false, true);
    ckpt_io_fd_ = ws_.open_existing(region_file(p), o_.direct, true);
  } else {
    if (data_fd_ < 0) data_fd_ = ws_.open_existing(region_file(p), false, true);
    if (data_io_fd_ < 0) data_io_fd_ = ws_.open_existing(region_file(p), o_.direct, true);
    if (!laid_out_) {
      lay_out(data_fd_, BlockContent(region_id(p)), region_base(), o_.file_bytes, ws_.file(region_file(p)), stop_);
      laid_out_ = true;
    }
  }
  if (!writes && o_.check_passes > 0) {
    if (corrupt_) corrupt_once(p, block);
    // Verified before the timed pass, like a collective's check iterations.
    std::uint64_t wrong = 0;
    for (int c = 0; c < o_.check_passes; ++c) wrong += verify(p, block);
    prepared_wrong_ = wrong;
  }
  // The timed pass starts from the storage, not from pages the layout or the check left.
  if (p == IoPattern::dataset) {
    for (std::size_t i = 0; i < o_.dataset_files; ++i) {
      if (i % 256 == 0) check_stop(stop_);
      drop_page_cache(FileHandle(ws_.open_existing(dataset_file(i), false, false)).fd);
    }
  } else if (p != IoPattern::checkpoint) {
    drop_page_cache(data_fd_);
  }
}

std::uint64_t IoRank::verify(IoPattern p, std::size_t block) {
  AlignedBuffer buf(block);
  std::uint64_t wrong = 0;
  if (p == IoPattern::dataset) {
    for (std::size_t i = 0; i < o_.dataset_files; ++i) {
      if (i % 256 == 0) check_stop(stop_);
      const FileHandle f(ws_.open_existing(dataset_file(i), false, false));
      drop_page_cache(f.fd);  // read back from the storage, as the region check does
      transfer(f.fd, false, buf.p, block, 0, ws_.file(dataset_file(i)));
      wrong += BlockContent(dataset_id(i)).matches(buf.p, 0, block) ? 0 : 1;
    }
    return wrong;
  }
  const int fd = p == IoPattern::checkpoint ? ckpt_fd_ : data_fd_;
  drop_page_cache(fd);  // read back from the storage, not from the pages just written
  const BlockContent content(region_id(p));
  const std::uint64_t blocks = blocks_per_rank(o_, block), base = region_base();
  for (std::uint64_t b = 0; b < blocks; ++b) {
    if (b % 256 == 0 && stop_) (void)stop_();  // progress for io -T's watchdog; a signal waits for the check's end
    transfer(fd, false, buf.p, block, base + b * block, ws_.file(region_file(p)));
    if (!content.matches(buf.p, base + b * block, block)) ++wrong;
  }
  return wrong;
}

// Test-only: one byte of the data the check will read is flipped on the storage.
void IoRank::corrupt_once(IoPattern p, std::size_t block) {
  std::string name = p == IoPattern::dataset ? dataset_file(o_.dataset_files / 2) : region_file(p);
  const std::uint64_t at =
      p == IoPattern::dataset ? block / 2 : region_base() + blocks_per_rank(o_, block) / 2 * block + 100;
  const FileHandle f(ws_.open_existing(name, false, true));
  unsigned char c = 0;
  transfer(f.fd, false, &c, 1, at, name);
  c ^= 0x5A;
  transfer(f.fd, true, &c, 1, at, name);
  drop_page_cache(f.fd);
}

IoRankResult IoRank::timed(IoPattern p, std::size_t block) {
  IoRankResult r;
  if (!row(p).writes && !o_.direct) {  // what the page-cache drop achieved
    if (p == IoPattern::dataset) {
      double sum = 0;
      for (std::size_t i = 0; i < o_.dataset_files; ++i) {
        sum +=
            std::max(0.0, resident_fraction(FileHandle(ws_.open_existing(dataset_file(i), false, false)).fd, 0, block));
      }
      r.resident_before = o_.dataset_files ? sum / static_cast<double>(o_.dataset_files) : 0;
    } else {
      r.resident_before = resident_fraction(data_fd_, region_base(), o_.file_bytes);
    }
  }
  std::vector<IoRankResult> per_thread(static_cast<std::size_t>(o_.threads));
  StartGate gate(o_.threads);
  double start = 0;
  on_threads(
      o_.threads, gate,
      [&](int t, bool& arrived) {
        IoRankResult& out = per_thread[static_cast<std::size_t>(t)];
        if (p == IoPattern::dataset) run_dataset_thread(block, t, gate, arrived, out);
        else run_region_thread(p, block, t, gate, arrived, out);
      },
      [&] { start = gate.open_when_ready(o_.time_per_size); });
  if (row(p).writes && fsync(io_fd(p)) != 0)
    throw std::runtime_error(fmt::format("fsync {}: {}", ws_.file(region_file(p)), std::strerror(errno)));
  r.elapsed_s = now_s() - start;
  for (const IoRankResult& t : per_thread) {
    r.bytes += t.bytes;
    r.ops += t.ops;
    r.latency.merge(t.latency);
    r.cut_short = r.cut_short || t.cut_short;
  }
  if (!row(p).writes && o_.check_passes > 0) r.wrong_blocks = prepared_wrong_;
  return r;
}

namespace {

// A timed pass on one thread: sets up its engine and buffers, waits at the
// gate, then keeps up to --qd requests in flight over its slice of visits.
// `issue(k, slot, buf)` is the request for visit k (its tag is set here);
// `done(slot, result)` handles a completion (throws on an error) and says
// whether the bytes arrived in memory (reads: they go on to a GPU with
// --memory device). The latency runs from submission, or from before
// issue() when `time_issue` (the dataset's open).
template <class Issue, class Done>
void pump(const IoOptions& o, int device, bool (*stop)(), std::size_t block, Slice slice, bool time_issue,
          StartGate& gate, bool& arrived, IoRankResult& out, Issue&& issue, Done&& done) {
  const std::size_t depth = static_cast<std::size_t>(o.queue_depth);
  const auto engine = make_engine(o.engine, o.queue_depth);
  const auto buffers = make_io_buffers(o.memory, depth, block, device);
  std::vector<std::size_t> free_slots;
  for (std::size_t i = depth; i-- > 0;) free_slots.push_back(i);
  std::vector<double> issued(depth);
  std::vector<IoCompletion> completions;
  std::size_t in_flight = 0;
  arrived = true;
  const double deadline = gate.arrive_and_wait().second;
  for (std::uint64_t k = slice.first;;) {
    while (in_flight < depth && k < slice.end) {
      if (stop() || (deadline > 0 && now_s() > deadline)) {
        out.cut_short = true;
        break;
      }
      const std::size_t s = free_slots.back();
      free_slots.pop_back();
      buffers->reusable(s);
      if (time_issue) issued[s] = now_s();
      IoRequest r = issue(k, s, buffers->slot(s));
      r.tag = s;
      if (!time_issue) issued[s] = now_s();
      engine->submit(r);
      ++k;
      ++in_flight;
    }
    if (in_flight == 0) break;
    completions.clear();
    engine->reap(1, completions);
    for (const IoCompletion& c : completions) {
      const std::size_t s = c.tag;
      bool arrived_in_memory = false;
      try {
        arrived_in_memory = done(s, c.result);
      } catch (const std::runtime_error&) {
        if (!stop()) throw;
        // A request the stop signal cut (io_uring can end a buffered write
        // with -EINTR or -EIO then): the pass is cut short, not failed.
        out.cut_short = true;
        free_slots.push_back(s);
        --in_flight;
        continue;
      }
      out.latency.add((now_s() - issued[s]) * 1e6);
      out.bytes += block;
      ++out.ops;
      if (arrived_in_memory) buffers->arrived(s, block);
      free_slots.push_back(s);
      --in_flight;
    }
  }
  buffers->drain();
}

}  // namespace

void IoRank::run_region_thread(IoPattern p, std::size_t block, int t, StartGate& gate, bool& arrived,
                               IoRankResult& out) {
  const BlockContent content(region_id(p));
  const std::uint64_t blocks = blocks_per_rank(o_, block), base = region_base();
  const BlockOrder order(blocks, row(p).random, seed_);
  const int fd = io_fd(p);
  const bool writes = row(p).writes, mixed = p == IoPattern::mixed;  // looked up once, not per request
  const auto depth = static_cast<std::size_t>(o_.queue_depth);
  std::vector<char> writing(depth);
  std::vector<std::uint64_t> offset_of(depth);
  pump(
      o_, device_, stop_, block, thread_slice(blocks, t, o_.threads), false, gate, arrived, out,
      [&](std::uint64_t k, std::size_t s, void* buf) {
        const std::uint64_t offset = base + order.at(k) * block;
        const bool write = writes && (!mixed || !visit_reads(seed_, k, o_.read_percent));
        if (write) content.fill(buf, offset, block);
        writing[s] = write;
        offset_of[s] = offset;
        return IoRequest{fd, write, buf, block, offset, 0};
      },
      [&](std::size_t s, long result) {
        if (result < 0)
          throw std::runtime_error(fmt::format("{} {} at byte {}: {}", writing[s] ? "write" : "read",
                                               ws_.file(region_file(p)), offset_of[s], errno_text(-result)));
        return !writing[s];
      });
}

void IoRank::run_dataset_thread(std::size_t block, int t, StartGate& gate, bool& arrived, IoRankResult& out) {
  const BlockOrder order(o_.dataset_files, true, seed_);
  const auto depth = static_cast<std::size_t>(o_.queue_depth);
  std::vector<int> fds(depth, -1);
  std::vector<std::uint64_t> file_of(depth);
  try {
    pump(
        o_, device_, stop_, block, thread_slice(o_.dataset_files, t, o_.threads), true, gate, arrived, out,
        [&](std::uint64_t k, std::size_t s, void* buf) {
          file_of[s] = order.at(k);
          fds[s] = ws_.open_existing(dataset_file(file_of[s]), o_.direct, false);
          return IoRequest{fds[s], false, buf, block, 0, 0};
        },
        [&](std::size_t s, long result) {
          close_fd(fds[s]);
          if (result < 0)
            throw std::runtime_error(
                fmt::format("read {}: {}", ws_.file(dataset_file(file_of[s])), errno_text(-result)));
          return true;
        });
  } catch (...) {
    for (int& fd : fds) close_fd(fd);
    throw;
  }
}

void IoRank::finish(IoPattern p, std::size_t block, IoRankResult& r) {
  // A write pass a signal cut short left blocks unwritten: nothing to check.
  if (row(p).writes && o_.check_passes > 0 && !r.cut_short) {
    if (corrupt_) corrupt_once(p, block);
    std::uint64_t wrong = 0;
    for (int c = 0; c < o_.check_passes; ++c) wrong += verify(p, block);
    r.wrong_blocks = wrong;
  }
  if (p == IoPattern::checkpoint) {
    close_fd(ckpt_io_fd_);
    close_fd(ckpt_fd_);
    if (!o_.shared_file) ws_.remove(region_file(p));
  }
  if (p == IoPattern::dataset) {
    for (std::size_t i = 0; i < o_.dataset_files; ++i) ws_.remove(dataset_file(i));
    ws_.remove_folder(dataset_folder());
  }
}

void IoRank::remove_shared(IoPattern p) {
  if (p == IoPattern::checkpoint && o_.shared_file && rank_ == 0) ws_.remove(region_file(p));
}

}  // namespace ccb

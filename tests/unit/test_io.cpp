// ccbench io's pure parts and its engines on a temporary folder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <vector>

#include "common/errors.hpp"
#include "io/block_content.hpp"
#include "io/block_order.hpp"
#include "io/engine.hpp"
#include "io/io_options.hpp"
#include "io/latency_histogram.hpp"
#include "io/workspace.hpp"

namespace ccb {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/ccbench-io-test-XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? d : "";
}

TEST(IoBlockOrder, VisitsEveryBlockOnce) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4097ull}) {
    for (bool random : {false, true}) {
      const BlockOrder order(n, random, 42);
      std::set<std::uint64_t> seen;
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint64_t b = order.at(k);
        ASSERT_LT(b, n);
        seen.insert(b);
      }
      EXPECT_EQ(seen.size(), n) << n << (random ? " random" : " sequential");
    }
  }
}

TEST(IoBlockOrder, RandomIsNotSequentialAndDependsOnTheSeed) {
  const BlockOrder a(4096, true, 1), b(4096, true, 2);
  std::uint64_t in_place = 0, same = 0;
  for (std::uint64_t k = 0; k < 4096; ++k) {
    in_place += a.at(k) == k;
    same += a.at(k) == b.at(k);
  }
  EXPECT_LT(in_place, 40u);  // a random permutation fixes about 1 point
  EXPECT_LT(same, 40u);
  EXPECT_EQ(BlockOrder(4096, true, 1).at(17), a.at(17));  // reproducible
}

TEST(IoBlockOrder, ThreadSlicesCoverTheVisits) {
  for (int threads : {1, 2, 3, 8}) {
    std::uint64_t next = 0;
    for (int t = 0; t < threads; ++t) {
      const Slice s = thread_slice(1001, t, threads);
      EXPECT_EQ(s.first, next);
      next = s.end;
    }
    EXPECT_EQ(next, 1001u);
  }
}

TEST(IoBlockOrder, MixedReadShareFollowsThePercent) {
  for (int pct : {0, 30, 70, 100}) {
    int reads = 0;
    for (std::uint64_t k = 0; k < 20000; ++k) reads += visit_reads(9, k, pct);
    EXPECT_NEAR(reads / 200.0, pct, 1.5) << pct;
  }
}

TEST(IoBlockContent, VerifiesWhatItWroteAndCatchesEachFault) {
  const BlockContent c(7);
  std::vector<unsigned char> buf(64 * 1024);
  c.fill(buf.data(), 3 * 65536, buf.size());
  EXPECT_TRUE(c.matches(buf.data(), 3 * 65536, buf.size()));
  EXPECT_FALSE(c.matches(buf.data(), 2 * 65536, buf.size()));                // at the wrong place
  EXPECT_FALSE(BlockContent(8).matches(buf.data(), 3 * 65536, buf.size()));  // another file's
  buf[40000] ^= 1;                                                           // one flipped bit in a body
  EXPECT_FALSE(c.matches(buf.data(), 3 * 65536, buf.size()));
  buf[40000] ^= 1;
  buf[512] ^= 0x80;  // a stamp
  EXPECT_FALSE(c.matches(buf.data(), 3 * 65536, buf.size()));
  std::vector<unsigned char> zeros(buf.size());  // a block never written
  EXPECT_FALSE(c.matches(zeros.data(), 3 * 65536, zeros.size()));
}

TEST(IoBlockContent, IndependentOfTheBlockSizeThatWroteIt) {
  const BlockContent c(3);
  std::vector<unsigned char> big(3 << 20), small(4096);
  c.fill(big.data(), 0, big.size());  // across the 1 MiB period
  for (std::size_t at : {std::size_t{0}, std::size_t{1} << 20, (std::size_t{1} << 20) - 4096, std::size_t{2621440}}) {
    c.fill(small.data(), at, small.size());
    EXPECT_EQ(std::memcmp(small.data(), big.data() + at, small.size()), 0) << at;
  }
}

TEST(IoLatencyHistogram, PercentilesWithinOnePercentAndMergesExactly) {
  LatencyHistogram a, b;
  std::vector<double> all;
  for (int i = 1; i <= 1000; ++i) {
    const double v = 10.0 * i;
    (i % 2 ? a : b).add(v);
    all.push_back(v);
  }
  LatencyHistogram m = LatencyHistogram::decode(a.encode());
  m.merge(LatencyHistogram::decode(b.encode()));
  const Summary s = m.summary();
  EXPECT_EQ(s.n, 1000u);
  EXPECT_DOUBLE_EQ(s.min, 10.0);
  EXPECT_DOUBLE_EQ(s.max, 10000.0);
  EXPECT_NEAR(s.mean, 5005.0, 1e-6);
  EXPECT_NEAR(s.p50, 5000.0, 50.0);
  EXPECT_NEAR(s.p90, 9000.0, 90.0);
  EXPECT_NEAR(s.p99, 9900.0, 99.0);
}

IoOptions small_plan() {
  IoOptions o;
  o.dir = "/tmp";
  o.patterns = {IoPattern::seq_read};
  o.blocks = {4096, 65536};
  o.file_bytes = 1 << 20;
  return o;
}

TEST(IoPlan, RefusesWhatCannotRun) {
  EXPECT_NO_THROW(validate(small_plan()));
  auto expect_refused = [](IoOptions o, const char* needle) {
    try {
      validate(o);
      ADD_FAILURE() << "not refused: " << needle;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  IoOptions o = small_plan();
  o.blocks = {1000};
  expect_refused(o, "512-byte sectors");
  o = small_plan();
  o.file_bytes = 4096;
  expect_refused(o, "below the largest block");
  o = small_plan();
  o.engine = IoEngineKind::psync;
  o.queue_depth = 4;
  expect_refused(o, "psync engine has one request in flight");
  o = small_plan();
  o.patterns = {IoPattern::seq_write};
  o.memory = IoMemory::device;
  expect_refused(o, "only the read patterns");
  o = small_plan();
  o.patterns = {IoPattern::dataset};
  o.file_bytes = 512;  // the dataset has no region: its file size is the block size
  EXPECT_NO_THROW(validate(o));
}

TEST(IoPlan, BytesNeededCountsEveryFileAtItsLargest) {
  IoOptions o = small_plan();
  EXPECT_EQ(bytes_needed(o, 3), 3u << 20);
  o.patterns = {IoPattern::seq_read, IoPattern::checkpoint, IoPattern::dataset};
  o.dataset_files = 10;
  EXPECT_EQ(bytes_needed(o, 2), 2u * ((2u << 20) + 10u * 65536));
}

void round_trip(IoEngineKind kind, int depth) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/f";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  const auto engine = make_engine(kind, depth);
  constexpr std::size_t kBlock = 4096;
  std::vector<std::vector<unsigned char>> out(static_cast<std::size_t>(depth), std::vector<unsigned char>(kBlock));
  std::vector<IoCompletion> done;
  for (int i = 0; i < depth; ++i) {
    BlockContent(1).fill(out[static_cast<std::size_t>(i)].data(), static_cast<std::uint64_t>(i) * kBlock, kBlock);
    engine->submit({fd, true, out[static_cast<std::size_t>(i)].data(), kBlock, static_cast<std::uint64_t>(i) * kBlock,
                    static_cast<std::uint64_t>(i)});
  }
  while (done.size() < static_cast<std::size_t>(depth)) engine->reap(1, done);
  for (const IoCompletion& c : done) EXPECT_EQ(c.result, static_cast<long>(kBlock));
  std::vector<unsigned char> in(kBlock * static_cast<std::size_t>(depth));
  done.clear();
  for (int i = 0; i < depth; ++i)
    engine->submit({fd, false, in.data() + static_cast<std::size_t>(i) * kBlock, kBlock,
                    static_cast<std::uint64_t>(i) * kBlock, static_cast<std::uint64_t>(i)});
  while (done.size() < static_cast<std::size_t>(depth)) engine->reap(1, done);
  EXPECT_TRUE(BlockContent(1).matches(in.data(), 0, in.size()));
  done.clear();  // a read past the end of the file is an error, not a short success
  engine->submit({fd, false, in.data(), kBlock, static_cast<std::uint64_t>(depth + 5) * kBlock, 99});
  engine->reap(1, done);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_LT(done[0].result, 0);
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(IoEngine, PsyncWritesAndReadsBack) { round_trip(IoEngineKind::psync, 1); }
TEST(IoEngine, IoUringWritesAndReadsBackWithRequestsInFlight) {
  if (!have_io_uring()) GTEST_SKIP() << "built without liburing";
  try {
    make_engine(IoEngineKind::io_uring, 8);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << e.what();
  }
  round_trip(IoEngineKind::io_uring, 8);
}

TEST(IoWorkspace, RemovesWhatItCreatedAndOnlyThat) {
  const std::string dir = temp_dir();
  {
    Workspace ws(dir, "run", false);
    ::close(ws.create("a.dat"));
    ws.make_folder("sub");
    ::close(ws.create("sub/b.dat"));
    EXPECT_THROW(ws.create("a.dat"), std::runtime_error);  // O_EXCL: never reopened for writing
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/run"));
  std::filesystem::create_directory(dir + "/kept");
  {
    Workspace ws(dir, "kept", true);  // the folder exists and is ours: joined, as another rank would
    ::close(ws.create("c.dat"));
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/kept/c.dat"));  // --keep
  ::close(::open((dir + "/plain").c_str(), O_CREAT | O_WRONLY, 0600));
  EXPECT_THROW(Workspace(dir, "plain", false), UsageError);  // a file of that name: not touched
  std::filesystem::create_directory_symlink(dir + "/kept", dir + "/link");
  EXPECT_THROW(Workspace(dir, "link", false), UsageError);  // a link is not followed
  EXPECT_TRUE(std::filesystem::exists(dir + "/kept/c.dat"));
  std::filesystem::remove_all(dir);
}

TEST(IoWorkspace, RefusesAMissingOrUnwritableTarget) {
  EXPECT_THROW(check_target_dir("/nonexistent-ccbench"), UsageError);
  EXPECT_THROW(check_target_dir("/etc/passwd"), UsageError);
  const FreeSpace f = free_space("/tmp");
  EXPECT_GT(f.available, 0u);
}

TEST(IoWorkspace, PageCacheDropNeverAddsResidentPages) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/f";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
  std::vector<unsigned char> buf(1 << 20, 1);
  ASSERT_EQ(::write(fd, buf.data(), buf.size()), static_cast<ssize_t>(buf.size()));
  const double before = resident_fraction(fd, 0, buf.size());
  drop_page_cache(fd);
  const double after = resident_fraction(fd, 0, buf.size());
  EXPECT_GE(before, 0.0);
  EXPECT_LE(after, before);
  EXPECT_GE(after, 0.0);
  ::close(fd);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ccb

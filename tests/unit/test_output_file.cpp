// Files ccbench creates: links never followed, devices never replaced, write
// errors kept, one path never used twice (results/output_file.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "common/errors.hpp"
#include "results/output_file.hpp"

namespace ccb {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const std::string d = testing::TempDir() + "ccb-out-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A stream output starts the file afresh, or (ccbench moe's second run) goes after it.
TEST(OutputFile, AppendKeepsWhatTheFileHolds) {
  const std::string f = fresh_dir("append") + "/r.jsonl";
  { OutputFile("-J", f).write("one\n"); }
  { OutputFile("-J", f, true).write("two\n"); }
  EXPECT_EQ(slurp(f), "one\ntwo\n");
  { OutputFile("-J", f).write("three\n"); }
  EXPECT_EQ(slurp(f), "three\n");
}

TEST(OutputFile, PlantedTemporaryLinksAreNotFollowed) {
  const std::string d = fresh_dir("tmp-links");
  std::ofstream(d + "/target") << "precious";
  // The fixed temporary name of earlier versions, and plausible others.
  for (const char* t : {"/out.json.tmp-ccbench", "/.out.json.tmp", "/out.json.tmp"})
    fs::create_symlink(d + "/target", d + t);
  write_file_atomically("--json", d + "/out.json", std::string("new"));
  EXPECT_EQ(slurp(d + "/target"), "precious");
  EXPECT_EQ(slurp(d + "/out.json"), "new");
  EXPECT_FALSE(fs::is_symlink(d + "/out.json"));
}

// A signal that ends the process while a file is written leaves neither the
// temporary nor a partial file (issue 53 item 14: a 211 MB temporary was left).
TEST(OutputFile, ATemporaryIsRemovedWhenASignalEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const int sig : {SIGTERM, SIGINT}) {
    const std::string d = fresh_dir("tmp-signal-" + std::to_string(sig));
    std::ofstream(d + "/verdict.json") << "the old one";
    EXPECT_EXIT(write_file_atomically("--out", d + "/verdict.json",
                                      [sig](std::FILE* f) {
                                        std::fputs("half of it", f);
                                        std::fflush(f);
                                        std::raise(sig);
                                      }),
                testing::KilledBySignal(sig), "");
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"verdict.json"}) << "signal " << sig;
    EXPECT_EQ(slurp(d + "/verdict.json"), "the old one");
  }
  // After a write, the signals' actions are as they were.
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(OutputFile, ALinkAsOutputIsRefused) {
  const std::string d = fresh_dir("out-link");
  std::ofstream(d + "/target") << "precious";
  fs::create_symlink(d + "/target", d + "/out.json");
  EXPECT_THROW(write_file_atomically("--json", d + "/out.json", std::string("new")), UsageError);
  EXPECT_THROW(OutputFile("-J", d + "/out.json"), UsageError);
  EXPECT_THROW(check_output_writable("-J", d + "/out.json"), UsageError);
  EXPECT_EQ(slurp(d + "/target"), "precious");
}

TEST(OutputFile, DevicesAreWrittenIntoNotReplaced) {
  write_file_atomically("--json", "/dev/null", std::string("x"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_THROW(write_file_atomically("--json", "/dev/full", std::string("x")), UsageError);  // ENOSPC is reported
  // /dev/stdout is a link (to /proc/self/fd/1): the one kind that is followed.
  EXPECT_NO_THROW(check_output_writable("-J", "/dev/stdout"));
}

TEST(OutputFile, AWriteErrorIsKeptAndLaterWritesDoNothing) {
  OutputFile f("-J/--json", "/dev/full");
  EXPECT_FALSE(f.write("{\"type\":\"run\"}\n"));
  EXPECT_EQ(f.error(), "/dev/full: No space left on device");
  EXPECT_FALSE(f.write("more\n"));
}

TEST(OutputFile, ASecondWriterOfOneFileIsRefused) {
  const std::string d = fresh_dir("lock");
  OutputFile first("-J/--json", d + "/run.jsonl");
  ASSERT_TRUE(first.write("line\n"));
  try {
    OutputFile second("-J/--json", d + "/run.jsonl");
    FAIL() << "the second writer was not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("another ccbench run is writing this file"), std::string::npos);
  }
  EXPECT_EQ(slurp(d + "/run.jsonl"), "line\n");  // not truncated by the refused writer
}

TEST(OutputFile, OnePathIsNotUsedTwice) {
  const std::string d = fresh_dir("same");
  std::ofstream(d + "/in.jsonl") << "x";
  EXPECT_THROW(check_distinct_paths({{"-J", d + "/a"}, {"--csv", d + "/./a"}}, {}), UsageError);
  EXPECT_THROW(check_distinct_paths({{"--json", d + "/in.jsonl"}}, {{"--run a", d + "/../ccb-out-same/in.jsonl"}}),
               UsageError);
  EXPECT_NO_THROW(check_distinct_paths({{"-J", d + "/a"}, {"--csv", d + "/b"}}, {{"--run a", d + "/in.jsonl"}}));
  EXPECT_NO_THROW(check_distinct_paths({{"--md", "/dev/null"}, {"--json", "/dev/null"}}, {}));
}

}  // namespace
}  // namespace ccb

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "commands/cli.hpp"
#include "common/environment.hpp"
#include "harness/split_rule.hpp"
#include "common/errors.hpp"

namespace ccb {
namespace {
ParsedArgs parse(std::vector<const char*> args) {
  args.insert(args.begin(), "ccbench");
  return parse_args(static_cast<int>(args.size()), args.data());
}
std::string error_of(std::vector<const char*> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Each setting word is spelled once (common/settings.hpp): every value's name
// parses back to it, unknown words do not parse, and the allowed list is the table.
template <class E>
void expect_round_trip(std::initializer_list<E> values, const std::string& allowed) {
  for (E v : values) EXPECT_EQ(parse_setting<E>(setting_name(v)), v) << setting_name(v);
  EXPECT_FALSE(parse_setting<E>("nope").has_value());
  EXPECT_FALSE(parse_setting<E>("").has_value());
  EXPECT_EQ(allowed_settings<E>(), allowed);
}

TEST(Settings, EveryNameParsesBackAndUnknownWordsDoNot) {
  expect_round_trip({BackendKind::mpi, BackendKind::nccl}, "mpi, nccl");
  expect_round_trip({MemoryKind::host, MemoryKind::device}, "host, device");
  expect_round_trip({PathRequest::automatic, PathRequest::nvlink, PathRequest::pcie, PathRequest::shm,
                     PathRequest::rdma, PathRequest::tcp},
                    "auto, nvlink, pcie, shm, rdma, tcp");
  expect_round_trip({SyncMode::barrier, SyncMode::window}, "barrier, window");
  expect_round_trip({ProgressMode::automatic, ProgressMode::on, ProgressMode::off}, "auto, on, off");
  expect_round_trip({BindPolicy::automatic, BindPolicy::none, BindPolicy::numa, BindPolicy::core},
                    "auto, none, numa, core");
  expect_round_trip({TimingMode::pipelined, TimingMode::per_iteration, TimingMode::both},
                    "pipelined, per_iteration, both");
  expect_round_trip({WarmUpOrder::automatic, WarmUpOrder::sizes_first, WarmUpOrder::per_point},
                    "auto, sizes-first, per-point");
}

TEST(Cli, NcclTestsShortFlags) {
  const Config c =
      parse({"all_reduce", "-b", "8",        "-e", "64M", "-f", "2", "-n", "5", "-w", "3",  "-c", "0",      "-o",
             "max",        "-d", "bfloat16", "-r", "1",   "-z", "1", "-a", "3", "-T", "10", "-J", "x.jsonl"})
          .config;
  EXPECT_EQ(c.collective->name, "all_reduce");
  EXPECT_EQ(c.min_bytes, 8u);
  EXPECT_EQ(c.max_bytes, 64u << 20);
  EXPECT_EQ(c.step_factor, 2);
  EXPECT_EQ(c.iters, 5);
  EXPECT_EQ(c.warmup, 3);
  EXPECT_EQ(c.check, 0);
  EXPECT_EQ(c.ops, std::vector<ReduceOp>{ReduceOp::max});
  EXPECT_EQ(c.dtypes, std::vector<DType>{DType::bfloat16});
  EXPECT_EQ(c.root, 1);
  EXPECT_EQ(c.blocking, 1);
  EXPECT_EQ(c.aggregation, ccb::RankCombine::max);
  EXPECT_DOUBLE_EQ(c.timeout_s, 10);
  EXPECT_EQ(c.json_path, "x.jsonl");
}

TEST(Cli, LongOptionsAndDefaults) {
  const Config d = parse({"alltoall"}).config;
  EXPECT_EQ(d.min_bytes, 32u << 20);
  EXPECT_EQ(d.max_bytes, 32u << 20);
  EXPECT_EQ(d.iters, 20);
  EXPECT_EQ(d.warmup, 1);
  EXPECT_EQ(d.check, 1);
  EXPECT_EQ(d.aggregation, ccb::RankCombine::mean);
  EXPECT_EQ(d.timing, TimingMode::both);
  const Config c = parse({"uni_bw",    "--minbytes",     "1K",       "--maxbytes", "2K",         "--iters", "7",
                          "--timing",  "per_iteration",  "--window", "16",         "--path",     "tcp",     "--stats",
                          "--samples", "--strict-sizes", "--csv",    "a.csv",      "--datatype", "all",     "--op",
                          "all"})
                       .config;
  EXPECT_EQ(c.min_bytes, 1024u);
  EXPECT_EQ(c.iters, 7);
  EXPECT_EQ(c.timing, TimingMode::per_iteration);
  EXPECT_EQ(c.window, 16);
  EXPECT_EQ(c.path, PathRequest::tcp);
  EXPECT_TRUE(c.stats_columns && c.samples && c.strict_sizes);
  EXPECT_EQ(c.dtypes.size(), all_dtypes().size());
  EXPECT_EQ(c.ops.size(), 5u);
}

TEST(Cli, CopyCommandHasItsOwnDefaults) {
  const ParsedArgs a = parse({"copy"});
  EXPECT_EQ(a.command, Command::copy);
  EXPECT_EQ(a.config.min_bytes, std::size_t{1} << 20);
  EXPECT_EQ(a.config.max_bytes, std::size_t{256} << 20);
  EXPECT_EQ(a.config.step_factor, 4);
  EXPECT_EQ(parse({"copy", "-b", "4K", "-e", "8K", "-f", "2"}).config.max_bytes, 8192u);
}

TEST(Cli, NcclOptions) {
  const Config c =
      parse({"all_reduce", "--backend", "nccl", "-g", "4", "-G", "1", "-R", "1", "--path", "nvlink"}).config;
  EXPECT_EQ(c.backend, BackendKind::nccl);
  EXPECT_EQ(c.gpus_per_process, 4);
  EXPECT_EQ(c.cuda_graph, 1);
  EXPECT_EQ(c.register_buffers, 1);
  EXPECT_EQ(c.path, PathRequest::nvlink);
  EXPECT_EQ(parse({"all_reduce", "--backend", "mpi", "--memory", "device"}).config.memory, MemoryKind::device);
}

TEST(Cli, Commands) {
  EXPECT_EQ(parse({"list"}).command, Command::list);
  EXPECT_EQ(parse({"--help"}).command, Command::help);
  EXPECT_EQ(parse({"-h"}).command, Command::help);
  EXPECT_EQ(parse({"--version"}).command, Command::version);
}

TEST(Cli, ErrorsNameTheFlagAndWhatIsAllowed) {
  EXPECT_NE(error_of({"all_reduce", "-d", "float128"}).find("allowed: int8 uint8"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-o", "mean"}).find("allowed: sum prod max min avg, all"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-n", "0"}).find("-n/--iters 0: out of range"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-n", "5x"}).find("-n/--iters '5x': not an integer"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-b", "2M", "-e", "1M"}).find("larger than -e/--maxbytes"), std::string::npos);
  EXPECT_NE(error_of({"nope"}).find("unknown collective 'nope'"), std::string::npos);
  EXPECT_NE(error_of({}).find("no collective given"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-T", "nan"}).find("-T/--timeout 'nan'"), std::string::npos);
  EXPECT_NE(error_of({"all_reduce", "-a", "9"}).find("-a/--average 9: out of range (allowed: 0 to 3)"),
            std::string::npos);
  for (const auto& msg : {error_of({"all_reduce", "-d", "x"}), error_of({"all_reduce", "--bogus"})})
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

TEST(Cli, HelpExplainsEveryColumn) {
  const std::string h = help_text();
  for (const char* word : {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "microseconds",
                           "GB/s", "1e9", "Exit codes"})
    EXPECT_NE(h.find(word), std::string::npos) << word;
  EXPECT_NE(list_text().find("pingpong"), std::string::npos);
}

}  // namespace ccb

namespace ccb {

TEST(Cli, DefaultBackendFollowsTheGpuAndTheBuild) {
  EXPECT_EQ(choose_default_backend(true, true, 8, "", nullptr).backend, BackendKind::nccl);
  EXPECT_EQ(choose_default_backend(true, true, 8, "", nullptr).reason, "default: 8 GPUs visible and NCCL built in");
  const BackendChoice none = choose_default_backend(true, true, 0, "cudaErrorNoDevice", nullptr);
  EXPECT_EQ(none.backend, BackendKind::mpi);
  EXPECT_EQ(none.reason, "default: no GPU visible (cudaErrorNoDevice)");
  EXPECT_EQ(choose_default_backend(true, false, 8, "", nullptr).backend, BackendKind::mpi);  // no NCCL in the build
  EXPECT_EQ(choose_default_backend(false, true, 0, "", nullptr).backend,
            BackendKind::nccl);  // no MPI: the only backend
  EXPECT_EQ(choose_default_backend(true, true, 8, "", "mpi").backend, BackendKind::mpi);
  EXPECT_EQ(choose_default_backend(true, true, 8, "", "mpi").reason, "CCBENCH_BACKEND=mpi");
  EXPECT_THROW(choose_default_backend(true, true, 8, "", "gloo"), UsageError);
}

// Issue 54 item 3: CUDA 13's runtime on an R535 driver sees no GPU; on a node
// whose driver shows GPUs that is an error naming both versions, not a CPU run.
TEST(Cli, AnOldDriverOnAGpuNodeIsAnErrorNotAHostMemoryRun) {
  const std::string driver = "/proc/driver/nvidia/version: NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01";
  try {
    choose_default_backend(true, true, 0, "cudaErrorInsufficientDriver: CUDA driver version is insufficient", nullptr,
                           driver, 13000, 12020);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("535.183.01"), std::string::npos) << m;
    EXPECT_NE(m.find("CUDA runtime is 13.0, the driver supports CUDA 12.2 (older than the runtime)"), std::string::npos)
        << m;
  }
  // No driver on the node: host memory, as before; a chosen backend is never second-guessed.
  EXPECT_EQ(choose_default_backend(true, true, 0, "cudaErrorNoDevice", nullptr, "", 13000, 0).backend,
            BackendKind::mpi);
  EXPECT_EQ(choose_default_backend(true, true, 0, "cudaErrorInsufficientDriver", "mpi", driver, 13000, 12020).backend,
            BackendKind::mpi);
}

TEST(Cli, NcclFlagsImplyTheNcclBackend) {
  const char* argv[] = {"ccbench", "all_reduce", "-g", "2"};
  const Config c = parse_args(4, argv).config;
  EXPECT_EQ(c.backend, BackendKind::nccl);
  EXPECT_EQ(c.backend_reason, "implied by -g/--ngpus");
  // nccl-tests' defaults typed out change nothing, on any backend.
  const char* plain[] = {"ccbench", "all_reduce"};
  const char* typed[] = {"ccbench", "all_reduce", "-g", "1", "-G", "0", "-R", "0"};
  const Config p = parse_args(2, plain).config, t = parse_args(8, typed).config;
  EXPECT_EQ(t.backend, p.backend);
  EXPECT_EQ(t.backend_reason, p.backend_reason);
  const char* on_mpi[] = {"ccbench", "all_reduce", "--backend", "mpi", "-g", "1", "-G", "0", "-R", "0"};
  EXPECT_EQ(parse_args(10, on_mpi).config.backend, BackendKind::mpi);
  const char* mem[] = {"ccbench", "all_reduce", "--memory", "device"};
  EXPECT_EQ(parse_args(4, mem).config.backend_reason, "implied by --memory");
  const char* algorithms[] = {"ccbench", "all_reduce", "--nccl-algorithms"};
  const Config a = parse_args(3, algorithms).config;
  EXPECT_TRUE(a.nccl_algorithms);
  EXPECT_EQ(a.backend, BackendKind::nccl);
  EXPECT_EQ(a.backend_reason, "implied by --nccl-algorithms");
}

// nccl-tests' NCCL_TESTS_SPLIT syntax: the colour of each world rank.
TEST(Split, ColoursAsNcclTestsComputesThem) {
  const auto colours = [](const SplitRule& r, int n) {
    std::vector<int> c;
    for (int i = 0; i < n; ++i) c.push_back(r.color(i));
    return c;
  };
  EXPECT_EQ(colours(parse_split("MOD 2", "--split"), 6), (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(colours(parse_split("%3", "--split"), 6), (std::vector<int>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(colours(parse_split("div 4", "--split"), 8), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(colours(parse_split("AND 0x7", "--split"), 10), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}));
  EXPECT_EQ(colours(parse_split("OR 0b11", "--split"), 8), (std::vector<int>{3, 3, 3, 3, 7, 7, 7, 7}));
  EXPECT_EQ(colours(parse_split_mask("1"), 4), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(parse_split(" mod 8 ", "--split").text, "MOD 8");
  EXPECT_EQ(parse_split_mask("0x3").text, "AND 3");
}

TEST(Split, RefusesWhatIsNotARule) {
  const auto why = [](const char* text) {
    try {
      parse_split(text, "NCCL_TESTS_SPLIT");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("XOR 2").find("NCCL_TESTS_SPLIT 'XOR 2': no operation"), std::string::npos);
  EXPECT_NE(why("MOD 0").find("MOD by 0"), std::string::npos);
  EXPECT_NE(why("DIV").find("not a number"), std::string::npos);
  EXPECT_NE(why("AND 0x").find("not a number"), std::string::npos);
  EXPECT_NE(why("MOD -2").find("not a number"), std::string::npos);
  EXPECT_NE(why("MOD 2x").find("not a number"), std::string::npos);
  EXPECT_THROW(parse_split_mask("zz"), UsageError);
}

}  // namespace ccb

TEST(Environment, HelpListsEveryVariableWithinEightyColumns) {
  const std::string help = ccb::environment_help();
  std::string unwrapped;  // the wrapped lines joined again
  for (std::size_t i = 0; i < help.size(); ++i) {
    if (help[i] != '\n') {
      unwrapped += help[i];
      continue;
    }
    unwrapped += ' ';
    while (i + 1 < help.size() && help[i + 1] == ' ') ++i;
  }
  for (const ccb::EnvVarInfo& e : ccb::kEnvVars) {
    EXPECT_NE(help.find(e.name), std::string::npos) << e.name;
    EXPECT_NE(unwrapped.find(fmt::format("{} (default: {})", e.meaning, e.default_value)), std::string::npos)
        << e.name << "'s meaning and default";
  }
  for (std::size_t at = 0; at < help.size();) {
    const std::size_t end = help.find('\n', at);
    EXPECT_LE(end - at, 80u) << help.substr(at, end - at);
    at = end + 1;
  }
}

TEST(Environment, ValueIsTheEnvironmentsAndNullWhenUnset) {
  ::setenv("CCBENCH_GNUPLOT_TIMEOUT", "7", 1);
  EXPECT_STREQ(ccb::env_value(ccb::EnvVar::gnuplot_timeout), "7");
  ::unsetenv("CCBENCH_GNUPLOT_TIMEOUT");
  EXPECT_EQ(ccb::env_value(ccb::EnvVar::gnuplot_timeout), nullptr);
}

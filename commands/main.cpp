// ccbench entry point: one dispatch for the subcommands. compare, baseline
// and model read files only (no MPI, no GPU); accept and io parse on every
// process, then start MPI (when built with it) and agree on errors; a sweep,
// copy and topo parse before MPI or NCCL start (so that --path can set their
// parameters), then run.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare/catalogue.hpp"
#include "collectives/nccl/nccl_env.hpp"
#include "commands/accept/accept_command.hpp"
#include "harness/slurm.hpp"
#include "commands/baseline_command.hpp"
#include "commands/expect_command.hpp"
#include "harness/every_rank_passes.hpp"
#include "commands/cli.hpp"
#include "common/launcher.hpp"
#include "commands/compare_command.hpp"
#include "commands/io_command.hpp"
#include "commands/replay_command.hpp"
#include "commands/workload_command.hpp"
#include "commands/history_command.hpp"
#include "commands/node_labels_command.hpp"
#include "commands/model_command.hpp"
#include "common/redact.hpp"
#include "common/terminal_text.hpp"
#if CCBENCH_HAVE_CUDA
#include "commands/copy_bench.hpp"
#endif
#include "harness/sweep.hpp"
#include "commands/run_exports.hpp"
#include "commands/topo_command.hpp"
#include "common/errors.hpp"
#include "results/output_file.hpp"
#if CCBENCH_HAVE_MPI
#include <mpi.h>

#include "harness/comm_mpi.hpp"
#include "harness/mpi_path.hpp"
#endif

namespace ccb {
namespace {

// An error's one line as printed: terminal-safe, and with any credential a
// user's text carried into it (a connection string given as a path) redacted.
std::string said(const std::exception& e) { return printable_error(e.what()); }

#if CCBENCH_HAVE_MPI
Config rank0_config(int argc, char** argv) {
  std::string mine;
  for (int i = 0; i < argc; ++i) mine.append(argv[i]).push_back('\0');
  int rank = 0, len = static_cast<int>(mine.size());
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string joined = rank == 0 ? mine : std::string(static_cast<std::size_t>(len), '\0');
  MPI_Bcast(joined.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<const char*> args;
  for (std::size_t at = 0; at < joined.size(); at = joined.find('\0', at) + 1) args.push_back(joined.c_str() + at);
  return parse_args(static_cast<int>(args.size()), args.data()).config;  // parsed on rank 0 already
}
#endif

// How many tasks the launcher started (mpirun, srun), and which variable said
// so; {1, ""} when not launched or launched alone.
[[maybe_unused]] std::pair<int, std::string> launched_tasks() {
  // Not SLURM_NTASKS: an allocation sets it for a single process run in it too.
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(var); v && std::atoi(v) > 1) return {std::atoi(v), fmt::format("{}={}", var, v)};
  return {1, ""};
}

// A build without MPI cannot join its siblings: launched as several tasks,
// each would run alone (all on GPU 0). Says so instead; "" when fine.
[[maybe_unused]] std::string solo_build_launched() {
#if CCBENCH_HAVE_MPI
  return "";
#else
  const auto [tasks, why] = launched_tasks();
  if (tasks <= 1) return "";
  return fmt::format(
      "this ccbench was built without MPI but was launched as one of {} tasks ({}): each task would run "
      "alone on GPU 0. Build with MPI for one GPU per task, or run one process with -g N GPUs",
      tasks, why);
#endif
}

// This process's rank as the launcher tells it, before MPI starts; 0 when
// not launched by mpirun/srun. Used only to print errors once.
int launcher_rank() {
  const char* v = launcher_rank_variable();
  return v ? std::atoi(v) : 0;
}

// An error found before MPI starts (a flag, the spec, a folder) may be on some
// processes of a launched job only: there every process starts MPI and agrees
// (rank 0 prints the first failing rank's error once, naming rank and host
// when it is not rank 0; every process exits 2). Without a launcher the error
// is printed at once.
bool print_unless_launched(const std::string& error) {
#if CCBENCH_HAVE_MPI
  if (launcher_rank_variable()) return false;
#endif
  fmt::print(stderr, "ccbench: {}\n", error);
  return true;
}

#if CCBENCH_HAVE_MPI
bool no_early_error(const Comm& world, const std::string& error) {
  return every_rank_passes(world, [&] {
    if (!error.empty()) throw UsageError(error);
  });
}
#endif

// Sets the backend's path parameters in the environment; returns the NCCL
// log file of this process ("" for mpi).
std::string request_path(const Config& cfg) {
  if (cfg.backend == BackendKind::nccl) {
    if (!cfg.tcp_if.empty())
      throw UsageError(
          fmt::format("--tcp-if {}: the mpi backend's option (NCCL takes NCCL_SOCKET_IFNAME)", cfg.tcp_if));
    return request_nccl_path(cfg.path, cfg.nccl_log_dir, cfg.nccl_algorithms);
  }
#if CCBENCH_HAVE_MPI
  request_mpi_path(cfg.path, cfg.tcp_if);
#endif
  return "";
}

// Starts MPI (when built with it), agrees on an error found before it
// started, then runs `run` on the world; an exception ends the job with
// `fail_code` ("ccbench: WHAT failed: ...").
template <class Run>
int run_launched(int argc, char** argv, bool printer, const std::string& error, const char* what, int fail_code,
                 Run&& run) {
  int code = kExitUsage;
#if CCBENCH_HAVE_MPI
  (void)printer;
  MPI_Init(&argc, &argv);
  try {
    const MpiComm world(MPI_COMM_WORLD);
    if (no_early_error(world, error)) code = run(world);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccbench: {} failed: {}\n", what, said(e));
    MPI_Abort(MPI_COMM_WORLD, fail_code);
  }
  MPI_Finalize();
#else
  (void)argc, (void)argv, (void)error;
  if (const std::string why = solo_build_launched(); !why.empty()) {
    if (printer) fmt::print(stderr, "ccbench: {}\n", terminal_safe(why));
    return kExitUsage;
  }
  try {
    code = run(SoloComm{});
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccbench: {} failed: {}\n", what, said(e));
    code = fail_code;
  }
#endif
  return code;
}

// ccbench accept: the spec is read by every process before MPI starts (its
// paths set Open MPI's and NCCL's variables), then the checks run.
int accept_main(int argc, char** argv, bool printer) {
  std::optional<AcceptArgs> args;
  std::string nccl_log;
  std::string error;
  try {
    args = parse_accept(argc, argv);
    if (!args) return printer ? print_or_fail(accept_help()) : kExitOk;
    nccl_log = request_accept_paths(args->spec);
    (void)reference_catalogue();  // a bad CCBENCH_REFERENCES ends the run before it starts, not at its verdict
  } catch (const UsageError& e) {
    error = said(e);
  }
  if (!error.empty() && print_unless_launched(error)) return kExitUsage;
  if (error.empty() && !args->simulate.empty()) return run_accept_simulated(*args);
  if (error.empty() && uses_slurm_steps(*args)) return run_accept_steps(*args);
  if (error.empty() && args->node_check) start_node_check_deadline();
  return run_launched(argc, argv, printer, error, "accept", kExitUsage, [&](const Comm& world) {
    return args->run_group.empty() ? run_accept(*args, world, nccl_log) : run_accept_group(*args, world, nccl_log);
  });
}

// A launched command with a parser of its own (io, replay): parsed by every
// process (nullopt: --help), then run on the world; a parse error is agreed
// on first when launched.
template <class Parse, class Run>
int parsed_then_launched(int argc, char** argv, bool printer, const char* what, const std::string& help, Parse&& parse,
                         Run&& run) {
  decltype(parse(argc, argv)) args;
  std::string error;
  try {
    args = parse(argc, argv);
    if (!args) return printer ? print_or_fail(help) : kExitOk;
  } catch (const UsageError& e) {
    error = said(e);
  }
  if (!error.empty() && print_unless_launched(error)) return kExitUsage;
  return run_launched(argc, argv, printer, error, what, kExitInternal,
                      [&](const Comm& world) { return run(*args, world); });
}

// ccbench io: the storage benchmark.
int io_main(int argc, char** argv, bool printer) {
  return parsed_then_launched(
      argc, argv, printer, "io", io_help(), [](int c, char** v) { return parse_io(c, v); },
      [](const IoArgs& a, const Comm& world) { return run_io(a, world); });
}

// ccbench replay: the workload is read by every process, then the step runs.
int replay_main(int argc, char** argv, bool printer) {
  return parsed_then_launched(argc, argv, printer, "replay", replay_help(), parse_replay, run_replay);
}

// A collective sweep, copy, topo, list, help or version: parse_args.
// A sweep with the command's --history and --prom beside its own outputs.
int one_sweep(const Config& cfg, const Comm& comm, const std::string& nccl_log) {
  const RunExports e{cfg.history_db, cfg.prom_path, ""};
  const SweepExports exports{[e] { check_run_exports(e); }, [e] { return make_export_writer(e); }};
  return run_sweep(cfg, comm, nccl_log, nullptr, e.any() ? &exports : nullptr);
}

// ccbench moe: the layer's dispatch, then its combine, each a run of the same
// sizes (its own table, run record and --history run; -J holds both). The
// combine runs unless the dispatch failed (wrong data is a result: it goes on).
int sweep_command(const Config& cfg, const Comm& comm, const std::string& nccl_log) {
  if (!cfg.moe_layer) return one_sweep(cfg, comm, nccl_log);
  const int dispatch = one_sweep(cfg, comm, nccl_log);
  if (dispatch != kExitOk && dispatch != kExitWrongData) return dispatch;
  Config combine = cfg;
  combine.collective = &collective(CollectiveId::moe_combine);
  combine.traffic->moe.combine = true;
  combine.append_json = true;
  const int second = one_sweep(combine, comm, nccl_log);
  return second != kExitOk ? second : dispatch;
}

int sweep_main(int argc, char** argv, bool printer) {
  ParsedArgs args;
  std::string nccl_log, error;
  try {
    args = parse_args(argc, argv);
    if (args.command == Command::run) {
      nccl_log = request_path(args.config);
      (void)reference_catalogue();  // read by the end record: a bad CCBENCH_REFERENCES ends the run before it starts
    }
  } catch (const UsageError& e) {
    error = said(e);
    if (print_unless_launched(error)) return kExitUsage;
    args.command = Command::run;  // the job agrees on the error first (below)
  }
  switch (args.command) {
    case Command::help: return printer ? print_or_fail(help_text()) : kExitOk;
    case Command::list: return printer ? print_or_fail(list_text()) : kExitOk;
    case Command::version:
      return printer ? print_or_fail(fmt::format("ccbench {} ({})\n", CCBENCH_VERSION, CCBENCH_GIT_REVISION)) : kExitOk;
    case Command::copy:
#if CCBENCH_HAVE_CUDA
      try {
        return run_copy_bench(args.config);
      } catch (const std::exception& e) {
        fmt::print(stderr, "ccbench: run failed: {}\n", said(e));
        return kExitInternal;
      }
#else
      fmt::print(stderr, "ccbench: copy: this ccbench was built without CUDA\n");
      return kExitUsage;
#endif
    case Command::topo:
    case Command::run: break;
  }
  const bool topo = args.command == Command::topo;
  int code = kExitInternal;
#if CCBENCH_HAVE_MPI
  MPI_Init(&argc, &argv);
  try {
    // Every rank runs rank 0's command line, whatever its own said (an MPMD
    // launch, a wrapper that edits arguments): counts and sizes must agree.
    const MpiComm comm(MPI_COMM_WORLD);
    if (!no_early_error(comm, error)) {
      code = kExitUsage;
    } else {
      const Config cfg = rank0_config(argc, argv);
      code = topo ? run_topo(cfg, comm) : sweep_command(cfg, comm, nccl_log);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccbench: run failed: {}\n", said(e));
    MPI_Abort(MPI_COMM_WORLD, kExitInternal);
  }
  MPI_Finalize();
#else
  if (const std::string why = solo_build_launched(); !why.empty() && !topo) {
    if (printer) fmt::print(stderr, "ccbench: {}\n", terminal_safe(why));
    return kExitUsage;
  }
  try {
    const SoloComm comm;
    code = topo ? run_topo(args.config, comm) : sweep_command(args.config, comm, nccl_log);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccbench: run failed: {}\n", said(e));
  }
#endif
  return code;
}

// Commands with parsers of their own; everything else is sweep_main's. The
// first five read files only: no MPI, no GPU.
struct Subcommand {
  std::string_view name;
  int (*run)(int argc, char** argv, bool printer);
};
constexpr Subcommand kSubcommands[] = {
    {"compare", [](int argc, char** argv, bool) { return run_compare(argc, argv); }},
    {"baseline", [](int argc, char** argv, bool) { return run_baseline(argc, argv); }},
    {"expect", [](int argc, char** argv, bool) { return run_expect(argc, argv); }},
    {"model", [](int argc, char** argv, bool) { return run_model(argc, argv); }},
    {"workload", [](int argc, char** argv, bool) { return run_workload(argc, argv); }},
    {"history", [](int argc, char** argv, bool) { return run_history(argc, argv); }},
    {"node-labels", [](int argc, char** argv, bool) { return run_node_labels(argc, argv); }},
    {"accept", accept_main},
    {"io", io_main},
    {"replay", replay_main},
};

}  // namespace
}  // namespace ccb

int main(int argc, char** argv) {
  ccb::set_invoked_as(argv[0]);
  // A closed pipe, or a file past the size limit (ulimit -f), is a write
  // error that each output reports (exit 5), not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  const bool printer = ccb::launcher_rank() == 0;
  if (argc > 1)
    for (const ccb::Subcommand& s : ccb::kSubcommands)
      if (argv[1] == s.name) return s.run(argc - 1, argv + 1, printer);
  return ccb::sweep_main(argc, argv, printer);
}

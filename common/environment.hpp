// Every CCBENCH_* environment variable ccbench reads, declared once: its
// name, its default and what it does. `ccbench --help` lists them from this
// table, docs/running.md "Environment variables" names each one
// (tests/docs_check.py checks it), and code reads them through env_value.
#pragma once
#include <string>

namespace ccb {

enum class EnvVar {
  backend,
  cache_bytes,
  fault,
  gnuplot,
  gnuplot_timeout,
  history_db,
  host_isa,
  init_timeout,
  references
};

struct EnvVarInfo {
  EnvVar var;
  const char* name;           // "CCBENCH_BACKEND"
  const char* default_value;  // what holds when it is not set
  const char* meaning;        // one sentence, for --help
};

inline constexpr EnvVarInfo kEnvVars[] = {
    {EnvVar::backend, "CCBENCH_BACKEND", "nccl where a GPU is usable, else mpi",
     "the sweep's backend when --backend is not given: mpi or nccl"},
    {EnvVar::cache_bytes, "CCBENCH_CACHE_BYTES", "the cache size the OS reports",
     "the last-level cache size (K, M, G) --rotate-buffers sizes its slots by: twice it beyond the largest "
     "point (host L3 from sysconf, GPU L2; VMs often report the host's)"},
    {EnvVar::fault, "CCBENCH_FAULT", "none",
     "test-only fault injection: corrupt:rank=R, hang:..., stuck:..., control_hang:rank=R (docs/failures.md)"},
    {EnvVar::gnuplot, "CCBENCH_GNUPLOT", "gnuplot", "the gnuplot program compare --html draws its charts with"},
    {EnvVar::gnuplot_timeout, "CCBENCH_GNUPLOT_TIMEOUT", "120",
     "seconds after which a gnuplot that does not finish is killed (the report is written without charts)"},
    {EnvVar::history_db, "CCBENCH_HISTORY_DB", "$XDG_DATA_HOME/ccbench/history.db",
     "the history database when --db is not given (else ~/.local/share/ccbench/history.db)"},
    {EnvVar::host_isa, "CCBENCH_HOST_ISA", "the best the CPU runs",
     "baseline forces the portable host loops instead of the x86-64-v3 ones"},
    {EnvVar::init_timeout, "CCBENCH_INIT_TIMEOUT", "the larger of -T and 120",
     "with -T: seconds the backend's initialisation (NCCL's bootstrap, ncclCommInitRankConfig) may take before "
     "the job ends with exit 4"},
    {EnvVar::references, "CCBENCH_REFERENCES", "none (the published figures only)",
     "a catalogue file of your own expected busbw figures (JSON, the published catalogue's format: your fleet's "
     "medians from ccbench history references, or your vendor's figures): every \"is this number normal?\" holds "
     "runs against them too (docs/expect.md)"},
};

// The variable's value as the environment holds it; nullptr when it is unset.
const char* env_value(EnvVar v);

// The "Environment variables:" section of --help, from kEnvVars.
std::string environment_help();

}  // namespace ccb

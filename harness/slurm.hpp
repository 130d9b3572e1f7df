// What ccbench asks of Slurm, through its commands (srun, scontrol, sinfo):
// the allocation it runs in, a job step per group, and node states for
// --drain / --resume. Nothing here parses a sweep's results.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace ccb {

// Runs ARGV (PATH lookup) with stdout and stderr captured together; throws
// UsageError "WHAT: ..." when it cannot start or exits non-zero.
std::string command_output(const std::vector<std::string>& argv, const std::string& what);

// The allocation this process runs in (SLURM_JOB_ID, SLURM_JOB_NODELIST
// expanded by scontrol, tasks per node from SLURM_NTASKS_PER_NODE, else 1).
struct SlurmAllocation {
  std::string job_id;
  std::vector<std::string> hosts;
  int tasks_per_node = 1;
};
SlurmAllocation slurm_allocation();

// Each host's leaf switch from Slurm's topology (scontrol show topology;
// topology/tree), empty when Slurm has none or lists none of the hosts.
std::vector<std::string> slurm_switches(const std::vector<std::string>& hosts);

// How a job step starts this ccbench: the path it was started as (made
// absolute, links kept: /proc/self/exe would name this node's view of a
// bind-mounted or linked path), or the bare name for PATH lookup on each node.
void set_invoked_as(const char* argv0);
std::string step_program();

// A process started in its own process group, its stdout and stderr into `log`.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log);

// State and reason of nodes as sinfo lists them ("idle", "drained",
// "mixed+drain"...; the reason "" when none).
struct NodeState {
  std::string state, reason;
};
std::map<std::string, NodeState> slurm_node_states(const std::vector<std::string>& hosts);

// `scontrol update nodename=NODE state=drain reason=REASON` (or resume) as
// the words the report shows, and run.
std::vector<std::string> drain_command(const std::string& node, const std::string& reason);
std::vector<std::string> resume_command(const std::string& node);
std::string shell_words(const std::vector<std::string>& argv);

}  // namespace ccb

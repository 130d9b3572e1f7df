// The pieces of `ccbench accept` that its two engines share: the MPI job
// (commands/accept/accept_command.cpp, every node one job) and the Slurm step
// controller (commands/accept/accept_steps.cpp, every group its own job step).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands/accept/accept_args.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "commands/io_command.hpp"
#include "analysis/accept/accept_report.hpp"
#include "analysis/accept/baseline.hpp"
#include "analysis/accept/check_rounds.hpp"
#include "results/output_file.hpp"

namespace ccb {

// The check's repeats on `group` (every rank of it calls this); on its rank
// 0 the array [{"code": EXIT, "jsonl": RECORDS}, ...], one per repeat run.
nlohmann::json group_repeats(const AcceptArgs& args, const Check& c, Config& cfg, const Comm& group,
                             const std::string& nccl_log);

// What a job step's rank 0 writes (an empty file) once every rank of the
// step has finished MPI start-up and passed a barrier: the controller tells
// a step hung at start-up (PMIx, the launcher) from one hung measuring.
std::string group_started_file(const std::string& group_out);

// A group's {"ranks": N, "repeats": [...]} read back: each repeat kept as
// --out/raw/CHECK/pP-rR-HOSTS-repK.jsonl, a repeat that could not run (exit
// 2) added to run_errors.
GroupRun group_run_from_json(const Check& c, const PlannedRound& round, const NodeGroup& nodes, const nlohmann::json& j,
                             const std::vector<std::string>& hosts, const std::string& out_dir,
                             std::vector<std::string>& run_errors);

// Each node's switch from the spec's switches: (empty when the spec has none;
// a host it does not list is "unlisted").
std::vector<std::string> switch_labels(const AcceptSpec& spec, const std::vector<std::string>& hosts);

// UsageError when the spec cannot run on these nodes (GPU checks without a
// GPU, pairwise on one node, a point-to-point check with one rank per group).
void validate_for_nodes(const AcceptSpec& spec, const std::vector<int>& ranks_per_node);

// The output folders (--out/raw/CHECK) made and the verdict files checked
// writable (a folder or a link at one of their names, no permission); the
// baselines the gates name, loaded.
GateBaselines prepare_outputs(const AcceptArgs& args);
void check_verdict_paths(const AcceptArgs& args);

// --out/groups.jsonl: every judged group, one line each, written as the plan
// records it (a run killed midway keeps the groups before it). A failed
// write is one warning on stderr; the verdicts do not depend on the file.
class GroupDetailFile {
 public:
  explicit GroupDetailFile(const AcceptArgs& args);  // throws UsageError
  CheckRounds::GroupSink sink(const Check& c, const std::vector<std::string>& hosts);

 private:
  std::unique_ptr<OutputFile> file_;
  bool warned_ = false;
};

// verdict.json, verdict.md and report.html under --out (each replaced whole).
void write_verdicts(const AcceptArgs& args, const AcceptOutcome& outcome);
// After a check that is not the last: the verdicts so far, marked
// incomplete, so that they survive what comes after them.
void write_checks_so_far(const AcceptArgs& args, AcceptOutcome& outcome);
// A gate's baseline median from the loaded baselines (judge_round's lookup);
// `hosts` names the nodes (a history gate's series are the group's hosts).
// Both are referred to, not copied.
BaselineLookup baseline_lookup(const GateBaselines& loaded, const std::vector<std::string>& hosts);
// The final verdict files, then the report on the terminal and where the
// files are (`raw`); the exit code of printing (0, or 5 when stdout failed).
int write_and_print(const AcceptArgs& args, const AcceptOutcome& outcome, const std::string& raw, int code);

// --node-check's ending (node_check.cpp), after the verdict files: why they
// could not be written (`unwritten`, "" when they were) and one line per
// failing check on stderr ("ccbench node check: HOST: CHECK: why"), and with
// --drain / --resume this node drained (reason "ccbench: node check CHECK
// ...") or returned to service (only from a ccbench drain). Returns `code`.
int finish_node_check(const AcceptArgs& args, const AcceptOutcome& outcome, int code, const std::string& unwritten);

}  // namespace ccb

// A sweep's run record (RunInfo) from its configuration, its backend and
// where its ranks run: what the header and the JSON Lines' run record say.
#pragma once
#include <cstddef>
#include <string>

#include "collectives/backend.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "harness/split_rule.hpp"
#include "results/record.hpp"

namespace ccb {

// What the configuration says of the run, before any collective: the run
// record of a run that ends during its start-up. arena_bytes and
// shift_bytes: the plan's --rotate-buffers arena and buffer shift (0: off).
RunInfo describe_config(const Config& cfg, Backend& backend, std::size_t arena_bytes, std::size_t shift_bytes);

// The whole run record: describe_config, then every process's placement and
// topology, the split into groups, and the path evidence (NCCL's settings
// and log, or MPI's observed path). Collective over comm.
RunInfo describe_run(const Config& cfg, const Comm& comm, const SplitInfo& split, Backend& backend,
                     const std::string& nccl_log, const RankPlacement& me, const std::string& topo_json,
                     std::size_t arena_bytes, std::size_t shift_bytes);

}  // namespace ccb

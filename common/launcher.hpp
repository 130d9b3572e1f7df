// Whether a launcher (mpirun, srun) started this process, from the variables
// it sets before MPI starts. Under one, a rank's stdout and stderr may be
// pseudo-terminals or pipes to the launcher whatever the user's terminal is.
#pragma once
#include <cstdlib>

namespace ccb {

// The launcher's rank variable of this process; nullptr when not launched.
inline const char* launcher_rank_variable() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return v;
  return nullptr;
}

}  // namespace ccb

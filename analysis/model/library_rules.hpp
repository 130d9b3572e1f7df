// Facts of the communication libraries, as data: which algorithm a forced
// setting names, the model family that describes its steps, and the fixed
// decision rules by which a library chooses one when nothing is forced.
//
// A forced algorithm is recorded per point as "LIBRARY:SETTING" (results/
// import: "ompi:6" from OMPI_MCA_coll_tuned_use_dynamic_rules=1 with
// OMPI_MCA_coll_tuned_allreduce_algorithm=6 for blocking calls, "libnbc:3"
// from OMPI_MCA_coll_libnbc_iallreduce_algorithm=3 for nonblocking ones,
// "nccl:Ring" from NCCL_ALGO).
//
// Open MPI's rules for blocking calls are coll/tuned's fixed decision
// functions (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c), transcribed
// for all_reduce, all_gather (MPI_Allgather) and reduce_scatter
// (MPI_Reduce_scatter_block) with a commutative op; the file is the same in
// every 4.1.x release (4.1.0 to 4.1.8 compared). Nonblocking calls
// (MPI_Iallreduce: ccbench --mpi-calls nonblocking, ccbench replay) go to
// coll/libnbc, whose selection in nbc_iallreduce.c is another rule: binomial
// below 4 ranks, below 64 KiB or in place, else rabenseifner (while the
// count holds a power of two's elements), else ring; libnbc's choice for
// the other collectives is not tabulated. Other collectives, other versions
// and non-commutative ops are not tabulated: their choice is unknown.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/model/model_family.hpp"

namespace ccb {

// The name of a forced algorithm ("ompi:6" -> "rabenseifner"), or the
// setting itself when the library's names for it are not tabulated.
std::string algorithm_label(std::string_view forced, std::string_view collective);
// The model family of a forced algorithm's steps, when known.
std::optional<ModelFamily> algorithm_family(std::string_view forced, std::string_view collective);

// One operation whose algorithm a library's rules choose.
struct RuleQuery {
  std::string_view library;     // the run's versions.mpi_library ("Open MPI v4.1.4, package: ...")
  std::string_view mpi_calls;   // "nonblocking": coll/libnbc's rules; else coll/tuned's
  std::string_view collective;  // "all_reduce"
  int ranks = 0;
  std::uint64_t bytes = 0;  // count x element size
  std::uint64_t count = 0;  // elements; 0: as many as bytes (libnbc's rabenseifner needs >= a power of two)
  bool in_place = false;
};
// The algorithm the library's fixed rules choose ("ompi:6", "libnbc:3") and
// the rule that chose it; nullopt when the library, version or collective
// is not tabulated.
struct RuleChoice {
  std::string forced;  // in the forced-algorithm spelling: "ompi:6"
  std::string why;     // "Open MPI 4.1 fixed rules: 4 <= ranks < 8, >= 8192 B"
};
std::optional<RuleChoice> library_choice(const RuleQuery& q);

}  // namespace ccb

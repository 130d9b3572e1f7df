// Facts of the communication libraries, as data: which algorithm a forced
// setting names, the model family that describes its steps, and the fixed
// decision rules by which a library chooses one when nothing is forced.
//
// A forced algorithm is recorded per point as "LIBRARY:SETTING" (results/
// import: "ompi:6" from OMPI_MCA_coll_tuned_use_dynamic_rules=1 with
// OMPI_MCA_coll_tuned_allreduce_algorithm=6, "nccl:Ring" from NCCL_ALGO).
//
// Open MPI's rules are coll/tuned's fixed decision functions
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c), transcribed for
// all_reduce with a commutative op from v4.1.4; the function is the same in
// every 4.1.x release (4.1.0 to 4.1.7 compared). Other collectives, other
// versions and non-commutative ops are not tabulated: their choice is unknown.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "results/model/comm_model.hpp"

namespace ccb {

// The name of a forced algorithm ("ompi:6" -> "rabenseifner"), or the
// setting itself when the library's names for it are not tabulated.
std::string algorithm_label(std::string_view forced, std::string_view collective);
// The model family of a forced algorithm's steps, when known.
std::optional<ModelFamily> algorithm_family(std::string_view forced, std::string_view collective);

// The algorithm a library's fixed rules choose ("ompi:6") at `ranks` for an
// operation of `bytes`, and the rule that chose it; nullopt when the
// library, version or collective is not tabulated. `library` is the run's
// versions.mpi_library ("Open MPI v4.1.4, package: ...").
struct RuleChoice {
  std::string forced;  // in the forced-algorithm spelling: "ompi:6"
  std::string why;     // "Open MPI 4.1 fixed rules: 4 <= ranks < 8, >= 8192 B"
};
std::optional<RuleChoice> library_choice(std::string_view library, std::string_view collective, int ranks,
                                         std::uint64_t bytes);

}  // namespace ccb

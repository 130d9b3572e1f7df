// The cost families the scale model fits (their step counts: comm_model.hpp,
// family_steps), apart so that the library's rules (library_rules.hpp) can
// name them without the model.
#pragma once

namespace ccb {

// recursive_doubling and rabenseifner are Open MPI's algorithms of those
// names, with their folding of a non-power-of-two count, and
// neighbor_exchange its all_gather's n/2 exchanges: used when a run forced
// that algorithm or the library's rules choose it
// (analysis/model/library_rules.hpp), not chosen from data. library_rules:
// each point the family of the algorithm the library's fixed rules choose
// at its ranks and size (a fit of unforced runs of a library whose rules
// are tabulated), so the family follows the library at the target too.
enum class ModelFamily {
  ring,
  tree,
  halving_doubling,
  linear,
  constant,
  recursive_doubling,
  rabenseifner,
  neighbor_exchange,
  library_rules
};
// The families a fit chooses among from the data (an algorithm not forced).
inline constexpr ModelFamily kModelFamilies[] = {ModelFamily::ring, ModelFamily::tree, ModelFamily::halving_doubling,
                                                 ModelFamily::linear, ModelFamily::constant};
inline constexpr ModelFamily kAllFamilies[] = {ModelFamily::ring,
                                               ModelFamily::tree,
                                               ModelFamily::halving_doubling,
                                               ModelFamily::linear,
                                               ModelFamily::constant,
                                               ModelFamily::recursive_doubling,
                                               ModelFamily::rabenseifner,
                                               ModelFamily::neighbor_exchange,
                                               ModelFamily::library_rules};
const char* family_name(ModelFamily f);

}  // namespace ccb

// An acceptance spec generated from the reference catalogue (docs/expect.md
// "Floors from the catalogue"): for one GPU family and one job's shape, a
// check per figure the job can reproduce, gated at a share of that figure
// (`min: 90% of reference`), each check's comment naming its basis. accept
// resolves the reference again from each group's own run, so a node of
// another GPU is never held to these figures.
#pragma once
#include <string>
#include <vector>

#include "results/expectation.hpp"

namespace ccb {

struct ReferenceSpecRequest {
  std::string gpu;        // a family the limits know (A100, H100, H200, B200, GB200)
  int nodes = 1;          // the job's node count
  int gpus_per_node = 8;  // ranks per node (one per GPU)
  double floor = 0.9;     // the share of each figure a group must reach (0 < floor <= 1)
};

// The spec's YAML text (accept reads it as any spec). A figure of this GPU
// is a check when the job can run its shape: 1 node (pattern per-node), 2
// nodes (pairwise) or the job's node count (all), at gpus_per_node ranks per
// node; the others are listed in the header as left out, with why. A
// UsageError when no figure is a check ("no reference for ...": never
// another GPU's figures).
struct ReferenceSpec {
  std::string text;
  int checks = 0;
};
ReferenceSpec reference_spec(const std::vector<PublishedFigure>& catalogue, const ReferenceSpecRequest& r);

}  // namespace ccb

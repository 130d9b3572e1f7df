// Pieces of the decision's report shared by the one-collective workload
// (decision_section.cpp) and the training step (step_decision_section.cpp).
#pragma once
#include <string>
#include <vector>

#include "analysis/report/report.hpp"

namespace ccb {

// "Owning ('a') costs the same PER as renting ('b') at 41% utilisation ...":
// PER names the unit of work ("per step", "per useful token").
std::string break_even_sentence(const BreakEven& b, const std::string& per);
// A cheaper call in words: "'a' is cheaper by 30% (range 20% to 40%)", the
// range only when the call has an interval; cannot_tell's words otherwise.
std::string cheaper_by(const RatioCall& c);
// Owning / renting cost per unit of work for utilisation x cloud price.
Table break_even_table(const BreakEven& b, const std::string& per);
// The Summary's sentences for a training step: step times, cost per useful
// token, and whether the cheaper call survives the goodput inputs' uncertainty.
std::vector<std::string> step_summary(const Decision& d);

}  // namespace ccb

// The Summary's lines about one set or one pair beyond the verdict
// (report.cpp's verdict_section): the busiest alltoallv rank, stragglers,
// production against acceptance, the kinds of noise flagged.
#pragma once
#include <string>
#include <vector>

#include "analysis/compare/comparison.hpp"

namespace ccb {

// A set's alltoallv points that name their busiest rank (ccbench's traffic
// record, nccl-tests' per-rank summary), out of place: which ranks, at how
// many sizes ("" when none does).
std::string busiest_text(const ResultSet& r);

// A set's --stragglers points: the ranks named late (with their hosts), at how
// many of the timed placements, and the median skew there ("" when none was
// timed).
std::string stragglers_text(const ResultSet& r);

// Production figures (NCCL Inspector: a running job's collectives) against
// a measured set of the pair: the aligned sizes where production's busbw is
// below the measured one by more than the tie band, worst first ("" when
// the pair has no production side).
std::string production_text(const Comparison& c, const PairComparison& pc);

// A set's noise flags, one entry per kind (results/noise.hpp's noise_kind)
// with how often it was flagged: "busy before the run x36 (load average
// 13.2 on 2 CPUs of vm, ...)".
std::string noise_kinds_text(const std::vector<std::string>& flags);

}  // namespace ccb

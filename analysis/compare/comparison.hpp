// The comparison: every result set against the baseline, series by series
// and size by size, with the per-collective facts (geometric means, peaks,
// small-message latency, half-peak sizes, crossovers) and significance.
// Reports render this; nothing here formats text.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare/ratio_call.hpp"
#include "analysis/compare/series.hpp"
#include "analysis/compare/verdict.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

struct ComparisonOptions {
  std::size_t baseline = 0;      // index into the sets
  unsigned ignored = 0;          // key fields the user asked to ignore (--ignore-key)
  double alpha = kDefaultAlpha;  // significance level of the Mann-Whitney test
  double tie_band = kTieBand;    // |ratio - 1| below this is a tie (crossovers)
};

struct AlignedPoint {
  std::uint64_t bytes = 0;
  const SeriesPoint* base = nullptr;
  const SeriesPoint* other = nullptr;
  double busbw_ratio = kNaN;      // other / baseline (> 1: other moves more)
  double time_ratio = kNaN;       // other / baseline (< 1: other is faster)
  std::optional<double> p_value;  // Mann-Whitney on per-iteration times, when both have samples
  bool significant() const { return !p_value || *p_value < alpha; }
  double alpha = kDefaultAlpha;
};

// other's busbw / the baseline's at one size, from the times (what was
// measured) and each side's bus factor (nccl-tests' definitions): the busbw
// columns are rounded as printed (nccl-tests: two decimals), so their ratio
// reads 0x or 11x where the times say 2x or 9x; they count only when a side
// has no time. NaN at 0 bytes (nothing moved). Every busbw ratio printed,
// charted or written (compare's tables, CSV, JSON, HTML) is this one.
double busbw_ratio_of(const SeriesPoint& other, const SeriesPoint& base);

// Facts of one curve (a series of one set).
struct CurveFacts {
  double peak_busbw_gbps = kNaN;
  std::uint64_t peak_bytes = 0;
  double small_time_us = kNaN;  // time at the smallest size measured
  std::uint64_t small_bytes = 0;
  double half_peak_bytes = kNaN;  // smallest size reaching half the peak busbw, log-interpolated
};
CurveFacts curve_facts(const Series& s);

struct Crossover {
  std::uint64_t below_bytes = 0, above_bytes = 0;  // the winner changes between these sizes
  bool other_wins_above = false;
};

struct SeriesComparison {
  const Series* base = nullptr;
  const Series* other = nullptr;
  std::vector<AlignedPoint> points;
  std::vector<std::uint64_t> only_base, only_other;  // sizes measured by one side only
  double geomean_busbw_ratio = kNaN, geomean_time_ratio = kNaN;
  CurveFacts base_facts, other_facts;
  std::vector<Crossover> crossovers;
  std::size_t tested = 0, not_significant = 0;
  SeriesVerdict verdict;  // faster, on par, mixed or cannot tell: the one call every report renders
};

struct PairComparison {
  std::size_t other = 0;                                       // index of the compared set
  unsigned fields = 0;                                         // key fields used for this pair
  std::shared_ptr<const SeriesTable> base_table, other_table;  // shared with the chart tables when the keys agree
  std::vector<SeriesComparison> series;
  std::vector<const Series*> only_base, only_other;  // series that one side lacks entirely
  std::size_t aligned = 0, tested = 0, not_significant = 0;
  std::string hint;  // when nothing aligned: which key fields differ
};

struct Comparison {
  std::vector<ResultSet> sets;
  ComparisonOptions options;
  std::vector<PairComparison> pairs;                             // one per set other than the baseline
  unsigned chart_fields = 0;                                     // key fields every set records, minus ignored ones
  std::vector<std::shared_ptr<const SeriesTable>> chart_tables;  // per set, aligned on chart_fields
  const ResultSet& baseline() const { return sets[options.baseline]; }
};

Comparison compare_sets(std::vector<ResultSet> sets, const ComparisonOptions& options);

// The series' verdicts (SeriesComparison::verdict; docs/compare.md "How a
// series is called"): compare_sets fills them; no renderer decides on its own.
// The most the flagged noise of a series' two sides can stretch a time (1:
// none flagged; the larger side's, from results/noise.hpp's noise_stretch),
// and the flag that gives it.
struct SeriesNoise {
  double stretch = 1;
  std::string flag;      // the flag or "N of M sizes flagged"
  bool flagged = false;  // a side oversubscribed, or most aligned sizes flagged
};
SeriesNoise series_noise(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other);

// The verdict of one series (labels: the sets' labels). compare_sets stores
// it in each SeriesComparison (its `verdict`); reports read it from there.
SeriesVerdict series_verdict(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other,
                             const ComparisonOptions& options);

}  // namespace ccb

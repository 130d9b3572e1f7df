// A communication model fitted to measured curves at a few rank counts, and
// its predictions at a larger scale (ccbench model fit / predict, compare
// --scale). docs/model.md gives the formulas; in short:
//
//   per series (collective, dtype, op, path, memory, in-place, level):
//     time(n, s) = steps(n) * g(m(n, s))
//   an algorithm family says how many steps an operation of s bytes takes at
//   n ranks and how many bytes each step moves (ring: n-1 steps of s/n; tree:
//   log2 n steps of s; ...); g, the cost of one step as a function of its
//   bytes (latency and bandwidth, and the protocol switches between), is
//   learned from every measured (n, s): a local-linear kernel regression of
//   log(time/steps) on log2(m), bandwidth 0.75 (a factor of 1.7 in size),
//   slope held within [0, 1.2]; below the measured steps the smallest cost,
//   above them cost proportional to bytes.
//   The family is the library's usual algorithm (ring; one step for
//   point-to-point) unless another predicts left-out counts clearly better:
//   fit without one rank count, predict it, for every count; a median
//   |log(pred/meas)| below 0.75x the usual family's and 0.05 lower switches. The level separates single-node series from multi-node ones
//   (with their ranks per node): a fit never mixes the two.
//   90% prediction interval: time * exp(+-w), w = sqrt((h x)^2 + noise^2):
//   h the 90th percentile of the left-out errors of points whose step size
//   is within a factor 2 of the target's; x = log(n / n_max) / log(n_max /
//   n_prev), at least 1: how much further the target lies than the step
//   between the two largest counts; noise log(p90/p50) of those iterations.
//   With two rank counts nothing can be left out: h = kUnvalidatedStepError
//   beyond the largest count, so the interval still widens with the distance.
//   An interval wider than kUnboundedFactor either way is "unbounded".
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/model/model_family.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

inline constexpr double kUnvalidatedStepError = 0.25;
// Another family replaces the usual one when its median left-out error is
// below kFamilyClearlyBetter x the usual one's and kFamilyMargin lower.
inline constexpr double kFamilyClearlyBetter = 0.75,
                        kFamilyMargin = 0.05;  // log-error per step of extrapolation, when unknown

// Steps of one operation of `bytes` at n ranks, and the bytes of each step.
struct Steps {
  double count, bytes;
};
// library_rules has no steps of its own: point_steps resolves it per point.
Steps family_steps(ModelFamily f, int ranks, double bytes);

// One measured point (repeats of the same ranks and size merged: median).
struct ModelPoint {
  int ranks = 0;
  std::uint64_t bytes = 0;
  std::uint64_t requested_bytes = 0;  // the size the sweep asked for (0: not recorded)
  double time_us = 0;
  double noise = 0;        // log(p90/p50) of its iterations; 0 when not recorded
  double left_out = kNaN;  // |log(pred/meas)| predicted without this rank count; NaN with 2 counts
  std::string algorithm;   // NCCL's algorithms at this point (ImportedPoint::algorithm); "" when not recorded
};

struct FamilyScore {
  ModelFamily family;
  double median_left_out = kNaN;  // NaN when fewer than 3 counts
};

struct ModelSeries {
  std::string collective, dtype, op, path, memory;
  int in_place = -1;
  int ranks_per_node = 0;  // 0: single-node series
  // The algorithm its runs forced on the library ("ompi:6"; ImportedPoint::
  // forced_algorithm), "" when the library chose: one fit per algorithm.
  std::string forced;
  // The library and calls whose fixed rules a library_rules family follows
  // (the model's; analysis/model/library_rules.hpp).
  std::string library, mpi_calls;
  ModelFamily family = ModelFamily::ring;
  std::string chosen_by;  // "left-out error" or why not
  std::vector<FamilyScore> scores;
  std::vector<ModelPoint> points;  // ascending (bytes, ranks)
  std::vector<int> counts;         // ascending rank counts
  // "all_reduce float sum, out-of-place, path auto, host, multi-node (1 rank/node)"; with the forced
  // algorithm (", forced ring (Open MPI 4)") unless with_forced is false.
  std::string key(bool with_forced = true) const;
  // The median left-out error of the chosen family (NaN with two counts).
  double left_out_median() const;
  // A fit that does not predict its own rank counts: median left-out error
  // above kUnusableLeftOut (50%). model predict refuses it (--force prints it
  // marked), compare --scale leaves it out of its conclusions.
  bool unusable() const { return left_out_median() > kUnusableLeftOut; }
  static constexpr double kUnusableLeftOut = 0.4054651081081644;  // log(1.5)
};

// The steps of one operation of series s under family f; under
// library_rules, those of the algorithm the library's rules choose at that
// ranks and size (ring where they choose nothing tabulated).
Steps point_steps(const ModelSeries& s, ModelFamily f, int ranks, double bytes);

struct Model {
  std::string backend;
  std::string library;    // the runs' versions.mpi_library ("Open MPI v4.1.4, ..."): whose decision rules apply
  std::string mpi_calls;  // the runs' blocking or nonblocking MPI calls (--mpi-calls): which of its rules; "" unknown
  std::vector<std::string> inputs;
  std::vector<ModelSeries> series;
  std::vector<std::string> notes;               // series that could not be fitted, and why
  static constexpr double kValidityFactor = 8;  // targets up to 8x the largest measured count
  // A fit of the constant family (cost independent of the rank count) holds
  // no scaling to extrapolate: beyond this factor of its largest count its
  // predictions are unbounded (issue 53 item 3: "constant" on one network,
  // halving_doubling on the other, made a 144x difference at 1024 ranks).
  static constexpr double kConstantReach = 2;
};

// Fits every series with at least two rank counts. Throws UsageError when
// nothing can be fitted (one line saying why); series measured at one count
// only become notes.
Model fit_model(const std::vector<ResultSet>& runs);

struct PredictedPoint {
  const ModelSeries* from = nullptr;  // the fit that predicted it (per point: the library's choice may switch)
  // By the library's rules: the algorithm it assumes ("rabenseifner (Open MPI
  // 6)") and why ("Open MPI 4.1 fixed rules: 4 <= ranks < 8, >= 8192 B");
  // "" otherwise. A point whose algorithm has no fit has from = nullptr, NaN times.
  std::string assumes, why;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;  // the table's count column (per-rank elements, as the sweep prints it)
  double time_us = kNaN, lo_us = kNaN, hi_us = kNaN, algbw_gbps = kNaN, busbw_gbps = kNaN;
  bool size_extrapolated = false;  // its step size lies outside the measured ones
  // The interval reaches beyond kUnboundedFactor either way: the data cannot
  // bound it (printed "unbounded"; lo_us / hi_us still hold the formula's values).
  bool unbounded = false;
};
inline constexpr double kUnboundedFactor = 100;

struct Prediction {
  const ModelSeries* series = nullptr;  // the series (for the library's default: its first point's)
  // "" : what the library chooses (a fit of runs that forced nothing, or the
  // forced fits picked per point by the library's decision rules); else the
  // forced algorithm of `series`.
  std::string forced;
  bool by_rules = false;  // the library's choice composed from forced fits by its rules
  int ranks = 0, nodes = 0;
  std::vector<std::string> flags;  // beyond validity, level or ranks per node not measured
  // Read off fits of the other level ("multi-node fits (...) for a group
  // inside one node"); "" when the level was measured. A step refuses such
  // curves (analysis/workload/model_curves.hpp): NVLink or shared memory
  // inside a node is another path than the links between nodes.
  std::string other_level;
  std::vector<PredictedPoint> points;
};

// Predicts every series of the model at `ranks` on `nodes` (nodes 0 or 1: one
// node). `sizes` empty: the measured sizes; count = bytes / element size.
std::vector<Prediction> predict(const Model& m, int ranks, int nodes, const std::vector<std::uint64_t>& sizes);
// The same with the sizes each series is predicted at chosen per series (the
// sweep's rounding per collective: commands/model_command.cpp).
struct PlannedSize {
  std::uint64_t bytes = 0, count = 0;
};
using SizePlanner = std::function<std::vector<PlannedSize>(const ModelSeries&)>;
std::vector<Prediction> predict_planned(const Model& m, int ranks, int nodes, const SizePlanner& plan);

// The model file (JSON). read_model throws UsageError "FILE: what" on bad content.
// A measured point's NCCL algorithm against the one the fit saw at the same
// size at its largest rank count: "" when they agree or either is not
// recorded, else "RING at 4 ranks in the fit, TREE here". The model fits one
// algorithm's scaling; a switch between the fit and the target is outside it.
std::string algorithm_switch(const ModelSeries& s, std::uint64_t bytes, const std::string& measured);

std::string model_to_json(const Model& m);
Model model_from_json(const std::string& text, const std::string& name);

}  // namespace ccb

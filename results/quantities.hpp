// One definition of each quantity a measured point carries: its name (the
// column in CSV, JSON and the history), unit, direction and meaning. The
// history's store and change test, its --help, the Prometheus HELP lines and
// docs/history.md's column list all take them from here (tests/docs_check.py
// compares the docs with `ccbench history --help`), so a text cannot call a
// number something it is not.
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>

namespace ccb {

enum class Quantity : unsigned char {
  time,           // the table's time
  iteration_p50,  // per-iteration median, slowest rank per iteration
  iteration_p90,  // per-iteration 90th percentile, slowest rank per iteration
  busbw,
  algbw,
};

struct QuantityDef {
  Quantity id;
  std::string_view column;  // "time_us"
  std::string_view unit;    // "us", "GB/s"
  bool higher_better;
  // Derived from time_us and the size (busbw, algbw): the same observation
  // restated; a change test on it repeats time_us's.
  bool derived_from_time;
  std::string_view meaning;  // one sentence, no trailing period
  std::string_view prometheus_name;
  double prometheus_scale;           // column unit -> Prometheus' base unit
  std::string_view prometheus_unit;  // that base unit, in words
};

std::span<const QuantityDef> quantities();
const QuantityDef& quantity_def(Quantity q);

// "time_us (us): the table's time: ..." one line per quantity, each wrapped
// at 78 columns with two spaces of indent after the first line: the same text
// in --help and in docs/history.md.
std::string quantities_help();
// The Prometheus HELP text of a quantity: its meaning and the base unit.
std::string prometheus_help(Quantity q);

}  // namespace ccb

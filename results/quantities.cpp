#include "results/quantities.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/terminal_text.hpp"

namespace ccb {

namespace {

constexpr std::array<QuantityDef, 5> kQuantities{{
    {Quantity::time, "time_us", "us", false, false,
     "the table's time of one operation: ccbench's pipelined time (-n operations back to back on each rank, "
     "divided by -n, ranks combined as -a says: their mean by default) when it was measured, else its "
     "iteration_p50_us; nccl-tests' time column; OSU's and IMB's average latency",
     "ccbench_time_seconds", 1e-6, "seconds"},
    {Quantity::iteration_p50, "iteration_p50_us", "us", false, false,
     "the median over iterations of the slowest rank's time (each iteration timed on every rank after a "
     "barrier, the largest taken): a slow rank shows here even when the pipelined time_us hides it; ccbench "
     "runs only",
     "ccbench_iteration_p50_seconds", 1e-6, "seconds"},
    {Quantity::iteration_p90, "iteration_p90_us", "us", false, false,
     "the 90th percentile of the same per-iteration times (a rank slowed now and then); ccbench runs only",
     "ccbench_iteration_p90_seconds", 1e-6, "seconds"},
    {Quantity::busbw, "busbw_gbps", "GB/s", true, true,
     "bus bandwidth: algbw_gbps times the collective's factor (nccl-tests' definitions), 1 GB/s = 1e9 B/s; "
     "time_us restated",
     "ccbench_busbw_bytes_per_second", 1e9, "bytes per second"},
    {Quantity::algbw, "algbw_gbps", "GB/s", true, true,
     "algorithm bandwidth: the size divided by time_us, 1 GB/s = 1e9 B/s", "ccbench_algbw_bytes_per_second", 1e9,
     "bytes per second"},
}};

}  // namespace

std::span<const QuantityDef> quantities() { return kQuantities; }

const QuantityDef& quantity_def(Quantity q) {
  for (const QuantityDef& d : kQuantities)
    if (d.id == q) return d;
  throw std::logic_error("quantity_def: a quantity without a definition");
}

std::string quantities_help() {
  std::string out;
  for (const QuantityDef& d : kQuantities)
    out += wrap_words(fmt::format("{} ({}): {}.", d.column, d.unit, d.meaning), 78, "  ");
  return out;
}

std::string prometheus_help(Quantity q) {
  const QuantityDef& d = quantity_def(q);
  return fmt::format("{} ({}: {}), in {}", d.meaning, d.column, d.unit, d.prometheus_unit);
}

}  // namespace ccb

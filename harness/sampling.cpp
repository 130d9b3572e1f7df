#include "harness/sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace ccb {

std::string stop_reason(const Config& cfg, const Summary& s, double elapsed_s, long iterations) {
  const bool adaptive = cfg.precision > 0 || cfg.time_per_size > 0;
  if (!adaptive) return "fixed";
  if (cfg.precision > 0) {
    const auto p = median_precision(s);
    if (p && *p <= cfg.precision) return "precision";
  } else if (elapsed_s >= cfg.time_per_size) {
    return "time_per_size";
  }
  if (elapsed_s >= cfg.max_time_per_size) return "max_time_per_size";
  if (iterations >= cfg.max_iters) return "max_iters";
  return "";
}

namespace {

// --stragglers: each iteration's entry on rank 0's clock (after the barrier
// and, under CCBENCH_FAULT=slow, the delay).
struct Entries {
  std::vector<double>* times = nullptr;  // nullptr: not recorded
  double offset_s = 0;                   // this process's offset to rank 0's clock
  double delay_s = 0;                    // CCBENCH_FAULT=slow on this rank
  void enter(const Comm& comm) const {
    // Asleep, not spinning: an oversubscribed test host keeps its CPU for the others.
    if (delay_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    if (times) times->push_back(comm.now() + offset_s);
  }
};

// One batch of barrier-synchronised iterations: per-iteration us per
// operation on this process.
void barrier_batch(Backend& backend, const Comm& comm, long from, long to, double per_op, Watchdog& watchdog,
                   const std::function<std::span<const OpArgs>(long)>& next, std::vector<double>& out,
                   const Entries& entries = {}) {
  for (long k = from; k < to; ++k) {
    const auto args = next(k);
    backend.prepare(args);
    comm.barrier();
    entries.enter(comm);
    backend.start_clock();
    backend.run(args);
    out.push_back(backend.stop_clock() / per_op * 1e6);
    watchdog.heartbeat(k);
  }
}

struct WindowStats {
  long late = 0;
  std::vector<double> skew_us;
};

// One batch of window-synchronised iterations: iteration k starts at
// start + k * window on rank 0's clock. Its time is from that common start to
// the last rank's end (max over ranks of end times, on rank 0's clock).
void window_batch(Backend& backend, const Comm& comm, long from, long to, double per_op, double start, double window,
                  const Comm::ClockOffset& clock, Watchdog& watchdog,
                  const std::function<std::span<const OpArgs>(long)>& next, std::vector<double>& out,
                  WindowStats& stats, const Entries& entries) {
  const std::size_t n = static_cast<std::size_t>(to - from);
  std::vector<double> ends(n), starts(n), neg_starts(n);
  long late = 0;
  for (long k = from; k < to; ++k) {
    const auto args = next(k);
    backend.prepare(args);
    const double target = start + static_cast<double>(k - from) * window;  // rank 0's clock
    while (comm.now() + clock.offset_s < target) {}
    entries.enter(comm);
    const double actual = comm.now() + clock.offset_s;
    if (actual - target > window / 2) ++late;
    backend.start_clock();
    backend.run(args);
    const double seconds = backend.stop_clock();
    const std::size_t i = static_cast<std::size_t>(k - from);
    ends[i] = actual + seconds;
    starts[i] = actual;
    neg_starts[i] = -actual;
    watchdog.heartbeat(k);
  }
  comm.max_inplace(ends);
  comm.max_inplace(starts);
  comm.max_inplace(neg_starts);
  for (std::size_t i = 0; i < n; ++i) {
    const double target = start + static_cast<double>(i) * window;
    out.push_back((ends[i] - target) / per_op * 1e6);
    stats.skew_us.push_back((starts[i] + neg_starts[i]) * 1e6);
  }
  stats.late += static_cast<long>(comm.sum(static_cast<uint64_t>(late)));
}

// Every rank's times, on rank 0 (empty elsewhere).
std::vector<std::vector<double>> gather_times(const Comm& comm, const std::vector<double>& mine) {
  const std::vector<std::string> all =
      comm.gather_strings(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(double)));
  std::vector<std::vector<double>> times;
  for (const std::string& bytes : all) {
    times.emplace_back(bytes.size() / sizeof(double));
    std::memcpy(times.back().data(), bytes.data(), times.back().size() * sizeof(double));
  }
  return times;
}

// --stragglers: the barrier's own order (kBarrierProbes barriers with nothing
// after them), then every rank's entries read on rank 0.
constexpr int kBarrierProbes = 30;
std::vector<double> probe_barrier_order(const Comm& comm, double offset_s) {
  std::vector<double> mine;
  for (int k = 0; k < kBarrierProbes; ++k) {
    comm.barrier();
    mine.push_back(comm.now() + offset_s);
  }
  return barrier_order_s(gather_times(comm, mine));
}

}  // namespace

void sample_per_iteration(Backend& backend, const Comm& comm, const Config& cfg, int first_iters, double per_op,
                          bool active, const Comm::ClockOffset& clock, Watchdog& watchdog,
                          const std::function<std::span<const OpArgs>(long k)>& next, Measurement& out,
                          double delay_s) {
  const bool window = cfg.sync == SyncMode::window;
  std::vector<double> entry_times;
  const bool recorded =
      cfg.stragglers && backend.local_ranks() == 1;  // a process of several GPUs has no rank of its own
  const Entries entries{recorded ? &entry_times : nullptr, clock.offset_s, delay_s};
  const std::vector<double> barrier_order =
      recorded && !window ? probe_barrier_order(comm, clock.offset_s) : std::vector<double>{};
  std::vector<double> samples;  // combined over ranks
  double own_sum_us = 0;        // this process's own times (barrier sync), for the rank means
  WindowStats wstats;
  double begun = comm.now();
  comm.broadcast(&begun, sizeof begun);  // rank 0's clock; only rank 0 reads it
  double slot = 0;                       // the window, seconds
  long count = first_iters;
  std::string reason;
  for (;;) {
    const long from = static_cast<long>(samples.size());
    std::vector<double> batch;
    if (window) {
      if (slot == 0) {
        // First window: 3x a barrier-timed iteration plus the offset uncertainty, at least 20 us.
        std::vector<double> probe;
        barrier_batch(backend, comm, 0, 3, per_op, watchdog, next, probe);
        comm.max_inplace(probe);
        slot = std::max(20e-6, 3 * *std::max_element(probe.begin(), probe.end()) * per_op * 1e-6);
        double rtt = clock.rtt_s;
        std::vector<double> v{rtt};
        comm.max_inplace(v);
        slot += v[0];
        comm.broadcast(&slot, sizeof slot);
      }
      double start = comm.now() + clock.offset_s + slot;
      comm.broadcast(&start, sizeof start);
      const long late_before = wstats.late;
      window_batch(backend, comm, from, count, per_op, start, slot, clock, watchdog, next, batch, wstats, entries);
      if (wstats.late - late_before > (count - from) / 10) slot *= 2;  // too tight: widen for the next batch
    } else {
      barrier_batch(backend, comm, from, count, per_op, watchdog, next, batch, entries);
      for (double us : batch) own_sum_us += us;
      comm.max_inplace(batch);  // an iteration lasts until its slowest rank finishes
    }
    samples.insert(samples.end(), batch.begin(), batch.end());
    int stop = 1;
    if (comm.rank() == 0) {
      reason = stop_reason(cfg, summarize(samples), comm.now() - begun, static_cast<long>(samples.size()));
      stop = reason.empty() ? 0 : 1;
    }
    comm.broadcast(&stop, sizeof stop);
    if (stop) break;
    count = std::min<long>(cfg.max_iters, 2 * static_cast<long>(samples.size()));
  }
  out.per_iteration_us = summarize(samples);
  out.per_iteration_count = static_cast<long>(samples.size());
  if (recorded) {
    std::vector<std::vector<double>> all = gather_times(comm, entry_times);
    if (comm.rank() == 0) out.stragglers = find_stragglers(std::move(all), out.per_iteration_us->p50, barrier_order);
  }
  out.precision_reached = median_precision(*out.per_iteration_us);
  // A process that drives several GPUs times them together: no rank of its own.
  if (!window && backend.local_ranks() == 1 && !samples.empty()) {
    const double own_mean = own_sum_us / static_cast<double>(samples.size());
    out.rank_means =
        RankMeans{comm.combine(own_mean, RankCombine::min, active), comm.combine(own_mean, RankCombine::mean, active),
                  comm.combine(own_mean, RankCombine::max, active)};
  }
  if (cfg.precision > 0 || cfg.time_per_size > 0) {
    if (cfg.precision > 0) out.precision_target = cfg.precision;
    out.stopped_by = reason;  // rank 0 decides (and writes the records)
    if (cfg.precision > 0 && reason != "precision" && comm.rank() == 0)
      out.note =
          fmt::format("precision {:.3g}% not reached: {} after {} iterations (stopped by {})", cfg.precision * 100,
                      out.precision_reached ? fmt::format("{:.3g}%", *out.precision_reached * 100) : "no interval",
                      samples.size(), reason);
  }
  if (window) {
    out.late_starts = wstats.late;
    const Summary skew = summarize(wstats.skew_us);
    out.start_skew_p50_us = skew.p50;
    out.start_skew_max_us = skew.max;
  }
  if (!cfg.samples && comm.rank() == 0 && !samples.empty()) {
    // Without --samples a bounded sketch of the distribution is kept, so that
    // compare can test significance by default: every sample up to
    // kDefaultSamplesWritten, else that many quantiles (order statistics at
    // (i + 0.5) / k), which Mann-Whitney then reads as k samples (a
    // conservative test: fewer samples than ran).
    if (samples.size() <= kDefaultSamplesWritten) {
      out.samples_us = samples;
    } else {
      std::vector<double> sorted = samples;
      std::sort(sorted.begin(), sorted.end());
      const double n = static_cast<double>(sorted.size());
      for (std::size_t i = 0; i < kDefaultSamplesWritten; ++i)
        out.samples_us.push_back(sorted[static_cast<std::size_t>((static_cast<double>(i) + 0.5) * n /
                                                                 static_cast<double>(kDefaultSamplesWritten))]);
      out.note += fmt::format("{}samples_us holds {} quantiles of the {} samples (--samples keeps them all)",
                              out.note.empty() ? "" : "; ", kDefaultSamplesWritten, samples.size());
    }
  }
  if (cfg.samples && comm.rank() == 0) {
    if (samples.size() <= kMaxSamplesWritten) {
      out.samples_us = samples;
    } else {
      const double step = static_cast<double>(samples.size()) / static_cast<double>(kMaxSamplesWritten);
      for (std::size_t i = 0; i < kMaxSamplesWritten; ++i)
        out.samples_us.push_back(samples[static_cast<std::size_t>(static_cast<double>(i) * step)]);
      out.note += fmt::format("{}samples_us holds {} of the {} samples, evenly spaced", out.note.empty() ? "" : "; ",
                              kMaxSamplesWritten, samples.size());
    }
  }
}

}  // namespace ccb

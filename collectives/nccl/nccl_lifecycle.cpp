#include "collectives/nccl/nccl_lifecycle.hpp"

namespace ccb {

std::string nccl_version_text(int code) {
  const bool old = code < 10000;  // NCCL_VERSION before 2.9: X * 1000 + Y * 100 + Z
  const int major = old ? code / 1000 : code / 10000, minor = old ? code / 100 % 10 : code / 100 % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

int nccl_type_version(DType d) {
  switch (d) {
    case DType::bfloat16: return 21000;
    case DType::f8e4m3:
    case DType::f8e5m2: return 22400;
    default: return 0;
  }
}

std::string nccl_type_gap(DType d, int header_code, int loaded_code) {
  const int needed = nccl_type_version(d);
  const std::string name(info(d).name);
  if (header_code < needed)
    return "this ccbench was built with NCCL " + nccl_version_text(header_code) + " headers, which have no " + name +
           " type";
  if (loaded_code < needed)
    return "the NCCL loaded here (" + nccl_version_text(loaded_code) + ") has no " + name + " type (needs " +
           nccl_version_text(needed) + " or newer; ccbench was built with " + nccl_version_text(header_code) +
           " headers)";
  return "";
}

std::string nccl_version_gap(std::string_view what, int needed, int header_code, int loaded_code) {
  if (header_code >= needed && loaded_code >= needed) return "";
  return std::string(what) + " needs NCCL " + nccl_version_text(needed) + " or newer: " +
         (header_code < needed ? "this ccbench was built with NCCL " + nccl_version_text(header_code) +
                                     " headers (build it with newer ones, or leave the option out)"
                               : "the NCCL loaded here is " + nccl_version_text(loaded_code) +
                                     " (point LD_LIBRARY_PATH at a newer libnccl, or leave the option out)");
}

std::vector<TeardownStep> nccl_teardown_steps(bool aborted) {
  if (aborted) return {TeardownStep::graphs, TeardownStep::buffers, TeardownStep::events_streams};
  return {TeardownStep::graphs, TeardownStep::drain_streams, TeardownStep::buffers, TeardownStep::communicators,
          TeardownStep::events_streams};
}

GraphAction graph_action(bool graph_mode, bool capturing_loop, bool captured_these_args, bool preparing) {
  if (!graph_mode || capturing_loop) return preparing ? GraphAction::nothing : GraphAction::issue;
  if (captured_these_args) return preparing ? GraphAction::nothing : GraphAction::launch;
  return GraphAction::capture;
}

std::string_view teardown_step_name(TeardownStep s) {
  switch (s) {
    case TeardownStep::graphs: return "graphs";
    case TeardownStep::drain_streams: return "drain_streams";
    case TeardownStep::buffers: return "buffers";
    case TeardownStep::communicators: return "communicators";
    case TeardownStep::events_streams: return "events_streams";
  }
  return "?";
}

BufferRelease buffer_release(AbortState state) {
  switch (state) {
    case AbortState::none: return {true, true};
    case AbortState::done: return {false, true};
    case AbortState::running:
    case AbortState::stuck: return {false, false};
  }
  return {false, false};
}

bool EnqueueGate::enter() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return false;
  ++inside_;
  return true;
}

void EnqueueGate::leave() {
  std::lock_guard<std::mutex> lock(mu_);
  --inside_;
  left_.notify_all();
}

bool EnqueueGate::close(std::chrono::milliseconds grace) {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  return left_.wait_for(lock, grace, [this] { return inside_ == 0; });
}

}  // namespace ccb

#include "collectives/nccl/nccl_lifecycle.hpp"

namespace ccb {

std::string nccl_version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

std::string nccl_fp8_gap(int header_code, int loaded_code) {
  constexpr int kFp8 = 22400;
  if (header_code < kFp8)
    return "this ccbench was built with NCCL " + nccl_version_text(header_code) + " headers, which have no fp8 types";
  if (loaded_code < kFp8)
    return "the NCCL loaded here (" + nccl_version_text(loaded_code) + ") has no fp8 types (needs 2.24 or newer; " +
           "ccbench was built with " + nccl_version_text(header_code) + " headers)";
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

}  // namespace ccb

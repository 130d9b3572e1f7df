#include "collectives/nccl/nccl_lifecycle.hpp"

namespace ccb {

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

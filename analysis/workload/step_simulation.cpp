#include "analysis/workload/step_simulation.hpp"

#include <algorithm>
#include <set>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace ccb {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// One stage's clock and where it is in its program.
struct StageState {
  std::size_t pc = 0;
  double t = 0;
  std::array<double, 8> queue_free{};  // per queue: when its last collective ends
  std::vector<double> end;             // per action: when a started operation ends (NaN: not known yet)
  std::vector<std::size_t> message;    // per action starting a pipeline message: its number in its direction
  std::set<std::size_t> outstanding;   // started, not waited (action indices: start order)
  std::map<int, std::vector<double>> sends, recvs;  // per direction: post times of messages, in order
  StageResult result;
  bool done = false;
};

class Simulation {
 public:
  Simulation(const StepProgram& prog, const std::vector<double>& secs, const std::vector<bool>& cross, bool shared)
      : prog_(prog), secs_(secs), cross_(cross), shared_(shared), st_(prog.stages.size()) {
    for (std::size_t s = 0; s < st_.size(); ++s) {
      st_[s].end.assign(prog.stages[s].size(), kUnknown);
      st_[s].message.assign(prog.stages[s].size(), 0);
    }
  }

  SimulatedStep run() {
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t s = 0; s < st_.size(); ++s) moved |= advance(s);
    }
    SimulatedStep out;
    for (std::size_t s = 0; s < st_.size(); ++s) {
      if (!st_[s].done) throw std::logic_error("workload simulation: the stages' programs wait on each other");
      out.stages.push_back(st_[s].result);
      if (st_[s].result.step_s > out.stages[static_cast<std::size_t>(out.slowest_stage)].step_s)
        out.slowest_stage = static_cast<int>(s);
    }
    out.step_s = out.slowest().step_s;
    return out;
  }

 private:
  int queue_of(const CommOp& op) const {
    if (shared_ && cross_[static_cast<std::size_t>(&op - prog_.ops.data())]) return kDims;
    return static_cast<int>(op.dim);
  }

  // When the message started at action a of stage s ends (NaN: its other side has not posted it yet).
  double message_end(std::size_t s, std::size_t a) {
    const Action& act = prog_.stages[s][a];
    const CommOp& op = prog_.ops[static_cast<std::size_t>(act.op)];
    const auto other =
        static_cast<std::size_t>(pp_neighbour(static_cast<int>(s), op.direction, static_cast<int>(st_.size())));
    StageState& me = st_[s];
    const std::size_t k = me.message[a];
    const double mine = (op.p2p == P2p::send ? me.sends : me.recvs)[op.direction][k];
    const auto& theirs = (op.p2p == P2p::send ? st_[other].recvs : st_[other].sends)[-op.direction];
    if (k >= theirs.size()) return kUnknown;
    return std::max(mine, theirs[k]) + secs_[static_cast<std::size_t>(act.op)];
  }

  double end_of(std::size_t s, std::size_t a) {
    StageState& me = st_[s];
    if (std::isnan(me.end[a])) me.end[a] = message_end(s, a);
    return me.end[a];
  }

  void charge(StageState& me, std::size_t s, std::size_t a, double end) {
    const Action& act = prog_.stages[s][a];
    const CommOp& op = prog_.ops[static_cast<std::size_t>(act.op)];
    if (end > me.t) me.result.exposed_s[static_cast<std::size_t>(op.dim)] += end - me.t, me.t = end;
    me.outstanding.erase(a);
  }

  // Runs stage s until it must wait for another stage; true when it moved.
  bool advance(std::size_t s) {
    StageState& me = st_[s];
    const std::vector<Action>& prog = prog_.stages[s];
    bool moved = false;
    while (!me.done) {
      if (me.pc == prog.size()) {
        me.done = true, me.result.step_s = me.t;
        return true;
      }
      const Action& a = prog[me.pc];
      switch (a.kind) {
        case Action::Kind::compute: me.t += a.seconds, me.result.compute_s += a.seconds; break;
        case Action::Kind::start: {
          const CommOp& op = prog_.ops[static_cast<std::size_t>(a.op)];
          if (op.p2p != P2p::none) {
            auto& posted = (op.p2p == P2p::send ? me.sends : me.recvs)[op.direction];
            me.message[me.pc] = posted.size();
            posted.push_back(me.t);
          } else {
            double& q = me.queue_free[static_cast<std::size_t>(queue_of(op))];
            q = std::max(q, me.t) + secs_[static_cast<std::size_t>(a.op)];
            me.end[me.pc] = q;
          }
          me.outstanding.insert(me.outstanding.end(), me.pc);
          break;
        }
        case Action::Kind::wait: {
          const auto started = static_cast<std::size_t>(a.of);
          const double end = end_of(s, started);
          if (std::isnan(end)) return moved;
          charge(me, s, started, end);
          break;
        }
        case Action::Kind::wait_all:
          while (!me.outstanding.empty()) {
            const std::size_t first = *me.outstanding.begin();
            const double end = end_of(s, first);
            if (std::isnan(end)) return moved;
            charge(me, s, first, end);
          }
          break;
      }
      ++me.pc;
      moved = true;
    }
    return moved;
  }

  const StepProgram& prog_;
  const std::vector<double>& secs_;
  const std::vector<bool>& cross_;
  bool shared_;
  std::vector<StageState> st_;
};

}  // namespace

SimulatedStep simulate_step(const StepProgram& prog, const std::vector<double>& op_seconds,
                            const std::vector<bool>& crosses_nodes, bool shared_network) {
  if (op_seconds.size() != prog.ops.size() || crosses_nodes.size() != prog.ops.size())
    throw std::logic_error("simulate_step: one time per operation");
  return Simulation(prog, op_seconds, crosses_nodes, shared_network).run();
}

}  // namespace ccb

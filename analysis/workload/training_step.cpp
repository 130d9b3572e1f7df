#include "analysis/workload/training_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {

namespace {
// The ep traffic of model.routing as --traffic takes it (docs/moe.md).
std::string moe_spec(const TrainingWorkload& w, const char* phase) {
  return fmt::format("moe:experts={}:topk={}:hidden={}{}{}:{}", w.experts, w.top_k, w.hidden,
                     w.routing.empty() || w.routing == "uniform" ? "" : ":", w.routing == "uniform" ? "" : w.routing,
                     phase);
}
}  // namespace

std::string_view curve_collective(const CommOp& op) {
  return op.traffic ? collective(CollectiveId::alltoall).name : collective(op.coll).name;
}
std::uint64_t curve_bytes(const CommOp& op) { return op.traffic ? op.busiest_bytes : op.bytes; }

#if CCBENCH_HAVE_YAML
namespace {

using yamlf::number;

// A mapping under the top level (absent: an empty one).
YAML::Node section(const std::string& file, const YAML::Node& root, const char* key,
                   const std::set<std::string>& keys) {
  const YAML::Node n = root[key];
  if (!n) return YAML::Node(YAML::NodeType::Map);
  yamlf::check_keys(file, n, key, keys);
  return n;
}

int whole(const std::string& file, const YAML::Node& map, const char* where, const char* key, double lo, double hi,
          int absent) {
  const double v = number(file, map, where, key, lo, hi, false, true);
  return std::isnan(v) ? absent : static_cast<int>(v);
}

// model: the shape (parameters, layers, hidden, sequence, batches, dtype, experts).
void read_model(const std::string& path, const YAML::Node& root, TrainingWorkload& w) {
  if (!root["model"]) yamlf::fail(path, root, "model", "missing");
  const YAML::Node m =
      section(path, root, "model",
              {"parameters", "active_parameters", "layers", "hidden", "sequence", "micro_batch", "global_batch",
               "dtype", "experts", "top_k", "moe_every", "expert_parameters", "routing"});
  w.parameters = number(path, m, "model", "parameters", 1, 1e15, true);
  const double active = number(path, m, "model", "active_parameters", 1, w.parameters, false);
  w.active_parameters = std::isnan(active) ? 0 : active;
  w.layers = whole(path, m, "model", "layers", 1, 1e5, 0);
  w.hidden = whole(path, m, "model", "hidden", 1, 1e7, 0);
  w.sequence = whole(path, m, "model", "sequence", 1, 1e8, 0);
  w.micro_batch = whole(path, m, "model", "micro_batch", 1, 1e6, 1);
  w.global_batch = whole(path, m, "model", "global_batch", 1, 1e9, 0);
  for (const char* k : {"layers", "hidden", "sequence", "global_batch"})
    if (!m[k]) yamlf::fail(path, m, yamlf::key_path("model", k), "missing");
  if (m["dtype"]) {
    const std::string d = yamlf::text(path, m, "model", "dtype");
    const auto dt = parse_dtype(d);
    if (!dt) yamlf::fail(path, m["dtype"], "model.dtype", fmt::format("'{}' is not a dtype (e.g. bfloat16, float)", d));
    w.dtype = *dt;
  }
  w.experts = whole(path, m, "model", "experts", 0, 1e5, 0);
  w.top_k = whole(path, m, "model", "top_k", 1, 64, 1);
  w.moe_every = whole(path, m, "model", "moe_every", 1, 1e5, 1);
  const double expert = number(path, m, "model", "expert_parameters", 0, w.parameters, false);
  w.expert_parameters = std::isnan(expert) ? 0 : expert;
  if (w.expert_parameters > 0 && w.experts == 0)
    yamlf::fail(path, m["expert_parameters"], "model.expert_parameters", "needs model.experts (a MoE model)");
  if (m["routing"]) {
    if (w.experts == 0) yamlf::fail(path, m["routing"], "model.routing", "needs model.experts (a MoE model)");
    w.routing = yamlf::text(path, m, "model", "routing");
    if (w.routing.starts_with("routing="))
      yamlf::fail(path, m["routing"], "model.routing", "a routing file is for ccbench alltoallv, not a step");
    for (std::string_view rest = w.routing; !rest.empty();) {  // the model's own fields are not routing's
      const std::size_t colon = std::min(rest.find(':'), rest.size());
      const std::string_view field = rest.substr(0, colon), key = field.substr(0, field.find('='));
      if (key == "experts" || key == "topk" || key == "hidden" || key == "dispatch" || key == "combine")
        yamlf::fail(path, m["routing"], "model.routing",
                    fmt::format("'{}' is the model's own (model.experts, model.top_k, model.hidden; the phase "
                                "from the step): routing takes hot=, rank=, lognormal=, seed=",
                                field));
      rest = rest.substr(std::min(colon + 1, rest.size()));
    }
    try {
      (void)parse_traffic(moe_spec(w, "dispatch"));
    } catch (const UsageError& e) {
      yamlf::fail(path, m["routing"], "model.routing", e.what());
    }
  }
}

// parallelism: tp, pp, dp, ep, ZeRO stage, buckets, overlap, schedule, virtual stages, sequence parallelism.
void read_parallelism(const std::string& path, const YAML::Node& root, TrainingWorkload& w) {
  const YAML::Node p = section(
      path, root, "parallelism",
      {"tp", "pp", "dp", "ep", "zero", "bucket", "dp_overlap", "schedule", "virtual_stages", "sequence_parallel"});
  w.tp = whole(path, p, "parallelism", "tp", 1, 1e5, 1);
  w.pp = whole(path, p, "parallelism", "pp", 1, 1e5, 1);
  w.dp = whole(path, p, "parallelism", "dp", 1, 1e7, 0);
  w.ep = whole(path, p, "parallelism", "ep", 1, 1e5, 1);
  w.zero = whole(path, p, "parallelism", "zero", 0, 3, 0);
  if (p["bucket"]) {
    const std::string b = yamlf::text(path, p, "parallelism", "bucket");
    const auto bytes = parse_size(b);
    if (!bytes || *bytes == 0) yamlf::fail(path, p["bucket"], "parallelism.bucket", size_error(b));
    w.bucket_bytes = static_cast<double>(*bytes);
  }
  if (p["dp_overlap"]) {
    const std::string o = yamlf::text(path, p, "parallelism", "dp_overlap");
    if (o != "backward" && o != "none")
      yamlf::fail(path, p["dp_overlap"], "parallelism.dp_overlap", fmt::format("'{}': expected backward or none", o));
    w.dp_overlap = o == "backward";
  }
  if (p["schedule"]) {
    const std::string v = yamlf::text(path, p, "parallelism", "schedule");
    const auto sched = parse_setting<PipelineSchedule>(v);
    if (!sched)
      yamlf::fail(path, p["schedule"], "parallelism.schedule", fmt::format("'{}': expected gpipe or 1f1b", v));
    w.schedule = *sched;
  }
  w.virtual_stages = whole(path, p, "parallelism", "virtual_stages", 1, 1e4, 1);
  if (w.virtual_stages > 1 && w.schedule != PipelineSchedule::one_f_one_b)
    yamlf::fail(path, p["virtual_stages"], "parallelism.virtual_stages",
                fmt::format("{} needs schedule: 1f1b (Megatron-LM's interleaved 1F1B)", w.virtual_stages));
  if (p["sequence_parallel"]) {
    const std::string v = yamlf::text(path, p, "parallelism", "sequence_parallel");
    if (v != "true" && v != "false")
      yamlf::fail(path, p["sequence_parallel"], "parallelism.sequence_parallel",
                  fmt::format("'{}': expected true or false", v));
    w.sequence_parallel = v == "true";
  }
  if (w.experts == 0 && w.ep > 1)
    yamlf::fail(path, p["ep"], "parallelism.ep", "expert parallelism needs model.experts (a MoE model)");
}

// compute: forward_ms, or mfu x peak_tflops; backward_ratio.
void read_compute(const std::string& path, const YAML::Node& root, TrainingWorkload& w) {
  const YAML::Node c = section(path, root, "compute", {"forward_ms", "backward_ratio", "mfu", "peak_tflops"});
  const double fwd_ms = number(path, c, "compute", "forward_ms", 0, 1e7, false);
  w.mfu = number(path, c, "compute", "mfu", 1e-4, 1, false);
  w.peak_tflops = number(path, c, "compute", "peak_tflops", 1e-3, 1e6, false);
  const double ratio = number(path, c, "compute", "backward_ratio", 0, 100, false);
  if (!std::isnan(ratio)) w.backward_ratio = ratio;
  if (std::isnan(fwd_ms) == (std::isnan(w.mfu) || std::isnan(w.peak_tflops)))
    yamlf::fail(path, root["compute"] ? root["compute"] : root, "compute",
                "give forward_ms (per micro-batch and pipeline stage) or both mfu and peak_tflops, not both");
  if (!std::isnan(fwd_ms)) w.forward_s = fwd_ms / 1e3, w.mfu = w.peak_tflops = 0;
}

// goodput: and target: (both optional).
void read_goodput_and_target(const std::string& path, const YAML::Node& root, TrainingWorkload& w) {
  const YAML::Node g = section(path, root, "goodput", {"node_mtbf_hours", "checkpoint_s", "restart_s"});
  const auto opt = [&](const char* k, double hi) {
    const double v = number(path, g, "goodput", k, 1e-6, hi, false);
    return std::isnan(v) ? -1.0 : v;
  };
  w.node_mtbf_hours = opt("node_mtbf_hours", 1e9);
  w.checkpoint_s = opt("checkpoint_s", 1e7);
  w.restart_s = opt("restart_s", 1e7);

  const YAML::Node t = section(path, root, "target", {"ranks", "ranks_per_node"});
  w.target_ranks = whole(path, t, "target", "ranks", 1, 1e7, 0);
  w.target_ranks_per_node = whole(path, t, "target", "ranks_per_node", 1, 1e5, 0);
  if ((w.target_ranks == 0) != (w.target_ranks_per_node == 0))
    yamlf::fail(path, t, "target", "give both ranks and ranks_per_node (the scale the step is decided at)");
}

}  // namespace

TrainingWorkload load_training_workload(const std::string& path) {
  const YAML::Node root = yamlf::load_file(path);
  yamlf::check_keys(path, root, "", {"name", "source", "model", "parallelism", "compute", "goodput", "target"});
  TrainingWorkload w;
  w.file = path;
  w.name = yamlf::text(path, root, "", "name", true);
  w.source = yamlf::text(path, root, "", "source");
  read_model(path, root, w);
  read_parallelism(path, root, w);
  read_compute(path, root, w);
  read_goodput_and_target(path, root, w);
  return w;
}

bool is_training_step_file(const std::string& path) {
  const YAML::Node root = yamlf::load_file(path);
  return root.IsMap() && root["parallelism"];
}
#else
bool is_training_step_file(const std::string&) { return false; }
TrainingWorkload load_training_workload(const std::string& path) {
  throw UsageError(fmt::format("{}: workload files need yaml-cpp; this ccbench was built without it", path));
}
#endif

std::string schedule_words(const TrainingWorkload& w) {
  if (w.pp <= 1) return {};
  if (w.virtual_stages > 1) return fmt::format("interleaved 1F1B, {} virtual stages", w.virtual_stages);
  return w.schedule == PipelineSchedule::gpipe ? "GPipe" : "1F1B";
}

int nodes_of(const std::vector<int>& group, int ranks_per_node) {
  std::set<int> nodes;
  for (int r : group) nodes.insert(r / std::max(1, ranks_per_node));
  return static_cast<int>(nodes.size());
}

RankPlace place_rank(const StepProgram& prog, int rank) {
  const int tp = prog.group_size(Dim::tp), dp = prog.group_size(Dim::dp), pp = prog.group_size(Dim::pp);
  const int ep = prog.group_size(Dim::ep);
  RankPlace pl;
  pl.t = rank % tp, pl.d = rank / tp % dp, pl.p = rank / (tp * dp);
  const auto at = [&](int t, int d, int p) { return t + tp * (d + dp * p); };
  for (int t = 0; t < tp; ++t) pl.groups[static_cast<int>(Dim::tp)].push_back(at(t, pl.d, pl.p));
  for (int p = 0; p < pp; ++p) pl.groups[static_cast<int>(Dim::pp)].push_back(at(pl.t, pl.d, p));
  for (int d = 0; d < dp; ++d) pl.groups[static_cast<int>(Dim::dp)].push_back(at(pl.t, d, pl.p));
  for (int d = pl.d / ep * ep; d < pl.d / ep * ep + ep; ++d)
    pl.groups[static_cast<int>(Dim::ep)].push_back(at(pl.t, d, pl.p));
  for (int d = pl.d % ep; d < dp; d += ep) pl.groups[static_cast<int>(Dim::edp)].push_back(at(pl.t, d, pl.p));
  return pl;
}

namespace {

// Builds one stage's program.
class ProgramBuilder {
 public:
  ProgramBuilder(StepProgram& prog, std::vector<Action>& out) : prog_(prog), out_(out) {}
  int op(CommOp o) {
    for (std::size_t i = 0; i < prog_.ops.size(); ++i) {
      const CommOp& e = prog_.ops[i];
      if (e.phase == o.phase && e.bytes == o.bytes && e.p2p == o.p2p && e.direction == o.direction)
        return static_cast<int>(i);
    }
    prog_.ops.push_back(std::move(o));
    return static_cast<int>(prog_.ops.size() - 1);
  }
  void compute(double s) {
    if (s <= 0) return;
    if (!out_.empty() && out_.back().kind == Action::Kind::compute) out_.back().seconds += s;
    else push({Action::Kind::compute, s, -1, -1});
  }
  int start(int op) {
    push({Action::Kind::start, 0, op, -1});
    return static_cast<int>(out_.size() - 1);
  }
  void wait(int started) { push({Action::Kind::wait, 0, -1, started}); }
  void blocking(int op) { wait(start(op)); }
  void wait_all() { push({Action::Kind::wait_all, 0, -1, -1}); }

 private:
  // Every action of the step is kept (the simulation and the replay walk
  // them): a file that expands beyond kMaxStepActions is refused while it
  // is built, within a few hundred MB and about a second.
  void push(const Action& a) {
    out_.push_back(a);
    if (out_.size() % 4096 != 0) return;
    std::size_t total = 0;
    for (const std::vector<Action>& s : prog_.stages) total += s.size();
    if (total > kMaxStepActions)
      throw UsageError(fmt::format(
          "the step expands to more than {} actions ({} micro-batches per step on {} pipeline stages): ccbench "
          "bounds a step there (fewer micro-batches, a smaller global_batch or a larger micro_batch, or fewer layers)",
          kMaxStepActions, prog_.micro_batches, prog_.group_size(Dim::pp)));
  }

  StepProgram& prog_;
  std::vector<Action>& out_;
};

// The element count of `bytes` of this collective on a group of n: whole
// elements, split collectives a multiple of n (at least n).
std::uint64_t round_bytes(double bytes, CollectiveId c, int n, std::size_t elem) {
  std::uint64_t count = static_cast<std::uint64_t>(std::max(1.0, std::floor(bytes / static_cast<double>(elem))));
  if (c == CollectiveId::all_gather || c == CollectiveId::reduce_scatter || c == CollectiveId::alltoall ||
      c == CollectiveId::alltoallv) {
    const auto g = static_cast<std::uint64_t>(n);
    count = std::max(g, count / g * g);
  }
  return count * elem;
}

std::string fail_fit(const std::string& file, const std::string& what) {
  return fmt::format("{}: parallelism: {}", file, what);
}

}  // namespace

namespace {

// The data-parallel size, or UsageError when the parallelism does not fit the ranks.
int check_fit(const TrainingWorkload& w, int ranks, int ranks_per_node) {
  const auto bad = [&](const std::string& what) { throw UsageError(fail_fit(w.file, what)); };
  if (ranks < 1 || ranks_per_node < 1) bad("no ranks");
  if (ranks % (w.tp * w.pp) != 0)
    bad(fmt::format("tp {} x pp {} = {} does not divide the {} ranks", w.tp, w.pp, w.tp * w.pp, ranks));
  const int dp = ranks / (w.tp * w.pp);
  if (w.dp != 0 && w.dp != dp)
    bad(fmt::format("tp {} x pp {} x dp {} = {}, not the {} ranks", w.tp, w.pp, w.dp, w.tp * w.pp * w.dp, ranks));
  if (w.tp > 1 && (ranks_per_node % w.tp != 0))
    bad(
        fmt::format("tp {}: a tensor-parallel group must lie inside a node, and {} ranks per node do not hold it "
                    "a whole number of times",
                    w.tp, ranks_per_node));
  const int v = w.virtual_stages;
  if (w.layers % (w.pp * v) != 0)
    bad(v > 1 ? fmt::format("pp {} x virtual_stages {} = {} does not divide the model's {} layers", w.pp, v, w.pp * v,
                            w.layers)
              : fmt::format("pp {} does not divide the model's {} layers", w.pp, w.layers));
  if (w.global_batch % (w.micro_batch * dp) != 0)
    bad(fmt::format("global_batch {} is not a whole number of micro-batches ({}) per data-parallel rank (dp {})",
                    w.global_batch, w.micro_batch, dp));
  if (v > 1 && w.pp < 2) bad(fmt::format("virtual_stages {} needs pp 2 or more (model chunks on pipeline stages)", v));
  const int m = w.global_batch / (w.micro_batch * dp);
  if (v > 1 && m % w.pp != 0)
    bad(
        fmt::format("virtual_stages {}: interleaved 1F1B needs the micro-batches per step ({}) to be a multiple of pp "
                    "{}, as Megatron-LM does",
                    v, m, w.pp));
  if (dp % w.ep != 0) bad(fmt::format("ep {} does not divide dp {}", w.ep, dp));
  if (w.experts > 0 && w.experts % w.ep != 0) bad(fmt::format("ep {} does not divide the {} experts", w.ep, w.experts));
  return dp;
}

// Everything but the stages' programs: group sizes, micro-batches, compute, tokens, notes.
StepProgram program_shape(const TrainingWorkload& w, int ranks, int ranks_per_node, int dp) {
  StepProgram prog;
  prog.ranks = ranks, prog.ranks_per_node = ranks_per_node, prog.dtype = w.dtype;
  prog.size = {w.tp, w.pp, dp, w.ep, dp / w.ep};
  prog.micro_batches = w.global_batch / (w.micro_batch * dp);
  prog.virtual_stages = w.virtual_stages;
  const double tokens = static_cast<double>(w.micro_batch) * w.sequence;
  prog.tokens_per_step = tokens * w.global_batch / w.micro_batch;
  const double active = (w.active_parameters > 0 ? w.active_parameters : w.parameters) / (w.tp * w.pp);
  // forward_ms as given (0: no compute), else from mfu x peak (both > 0 when given).
  prog.forward_s = w.mfu > 0 && w.peak_tflops > 0 ? 2 * active * tokens / (w.peak_tflops * 1e12 * w.mfu) : w.forward_s;
  prog.backward_s = prog.forward_s * w.backward_ratio;
  if (w.experts > 0 && w.ep == 1) prog.notes.push_back("experts with ep 1: every rank holds every expert, no alltoall");
  const bool sharded = w.ep > 1 && w.expert_parameters > 0;
  prog.notes.push_back(
      sharded ? fmt::format("dp traffic is this rank's dense parameters ({:.4g}), edp's its experts' ({:.4g}, over the "
                            "{} dp ranks that hold them); embeddings are not told apart",
                            (w.parameters - w.expert_parameters) / (w.tp * w.pp),
                            w.expert_parameters / w.ep / (w.tp * w.pp), dp / w.ep)
              : fmt::format("dp traffic is this rank's parameter share ({:.4g}); embeddings are not told apart",
                            w.parameters / (w.tp * w.pp)));
  return prog;
}

// One pipeline stage's program: forward and backward passes of a micro-batch
// in the order the schedule asks, then what ends the step.
class StageProgram {
 public:
  StageProgram(const TrainingWorkload& w, StepProgram& prog, int stage)
      : w_(w), prog_(prog), b_(prog, prog.stages.emplace_back()), stage_(stage) {
    elem_ = info(w.dtype).size;
    ls_ = w.layers / w.pp;
    lc_ = ls_ / w.virtual_stages;
    act_ = static_cast<double>(w.micro_batch) * w.sequence * w.hidden * static_cast<double>(elem_);
    // This rank's parameters: the dense ones split by tp x pp, reduced over dp;
    // with experts sharded over ep, their share reduced over edp (the dp ranks
    // holding the same experts).
    const bool sharded = w.ep > 1 && w.expert_parameters > 0;
    const double dense = (w.parameters - (sharded ? w.expert_parameters : 0)) / (w.tp * w.pp);
    const double experts = sharded ? w.expert_parameters / w.ep / (w.tp * w.pp) : 0;
    for (const auto& [d, params] : {std::pair{Dim::dp, dense}, std::pair{Dim::edp, experts}}) {
      Reduced& r = reduced_[d == Dim::dp ? 0 : 1];
      r.dim = d, r.name = std::string(setting_name(d));
      r.grads = params * static_cast<double>(elem_), r.layer = r.grads / ls_;
      r.active = r.grads > 0 && prog.group_size(d) > 1;
      if (w.zero != 3 || !r.active) continue;
      r.ag_f = b_.op(comm(r.name + " all_gather (forward, FSDP)", d, CollectiveId::all_gather, r.layer));
      r.ag_b = b_.op(comm(r.name + " all_gather (backward, FSDP)", d, CollectiveId::all_gather, r.layer));
      r.rs = b_.op(comm(r.name + " reduce_scatter (FSDP)", d, CollectiveId::reduce_scatter, r.layer));
    }
  }

  // Model chunk c's forward of one micro-batch (c: 0 without virtual stages).
  void forward(int c) {
    if (stage_ > 0 || c > 0)
      b_.blocking(b_.op(comm("pp recv (forward)", Dim::pp, CollectiveId::sendrecv, act_, P2p::recv, -1)));
    std::array<int, 2> next{};
    for (std::size_t k = 0; k < 2; ++k) next[k] = reduced_[k].ag_f >= 0 ? b_.start(reduced_[k].ag_f) : -1;
    for (int l = c * lc_; l < (c + 1) * lc_; ++l) {
      for (std::size_t k = 0; k < 2; ++k) {
        if (next[k] < 0) continue;
        const int g = next[k];
        next[k] = l + 1 < (c + 1) * lc_ ? b_.start(reduced_[k].ag_f) : -1;  // prefetch the next layer's
        b_.wait(g);
      }
      layer("forward", l, prog_.forward_s / ls_);
    }
    if (stage_ + 1 < w_.pp || c + 1 < w_.virtual_stages)
      b_.start(b_.op(comm("pp send (forward)", Dim::pp, CollectiveId::sendrecv, act_, P2p::send, +1)));
  }

  // Model chunk c's backward of one micro-batch; `last`: the step's last
  // backward of this chunk, whose gradients go to dp.
  void backward(int c, bool last) {
    if (stage_ + 1 < w_.pp || c + 1 < w_.virtual_stages)
      b_.blocking(b_.op(comm("pp recv (backward)", Dim::pp, CollectiveId::sendrecv, act_, P2p::recv, +1)));
    std::array<int, 2> next{};
    for (std::size_t k = 0; k < 2; ++k) next[k] = reduced_[k].ag_b >= 0 ? b_.start(reduced_[k].ag_b) : -1;
    std::array<double, 2> bucket{};
    for (int l = (c + 1) * lc_ - 1; l >= c * lc_; --l) {
      for (std::size_t k = 0; k < 2; ++k) {
        if (next[k] < 0) continue;
        const int g = next[k];
        next[k] = l > c * lc_ ? b_.start(reduced_[k].ag_b) : -1;
        b_.wait(g);
      }
      layer("backward", l, prog_.backward_s / ls_);
      for (const Reduced& r : reduced_)
        if (r.rs >= 0) b_.start(r.rs);
      if (!last || w_.zero == 3) continue;
      for (std::size_t k = 0; k < 2; ++k) {
        if (!reduced_[k].active) continue;
        bucket[k] += reduced_[k].layer;
        if (bucket[k] >= w_.bucket_bytes || l == c * lc_) {
          if (w_.dp_overlap) gradient_bucket(reduced_[k], bucket[k]);
          else deferred_.emplace_back(k, bucket[k]);
          bucket[k] = 0;
        }
      }
    }
    if (stage_ > 0 || c > 0)
      b_.start(b_.op(comm("pp send (backward)", Dim::pp, CollectiveId::sendrecv, act_, P2p::send, -1)));
  }

  void end_step() {
    for (const auto& [k, bytes] : deferred_) gradient_bucket(reduced_[k], bytes);
    b_.wait_all();
    if (w_.zero != 1 && w_.zero != 2) return;
    for (const Reduced& r : reduced_)
      if (r.active)
        b_.blocking(b_.op(comm(r.name + " all_gather (updated parameters)", r.dim, CollectiveId::all_gather, r.grads)));
  }

 private:
  CommOp comm(std::string phase, Dim d, CollectiveId c, double bytes, P2p p = P2p::none, int dir = 0) const {
    CommOp o;
    o.phase = std::move(phase), o.dim = d, o.coll = c, o.p2p = p, o.direction = dir;
    o.bytes = round_bytes(bytes, c, prog_.group_size(d), elem_);
    return o;
  }

  // What one data-parallel group reduces: dp the dense parameters, edp the experts'.
  struct Reduced {
    Dim dim = Dim::dp;
    std::string name;
    double grads = 0, layer = 0;        // bytes per step, per layer
    bool active = false;                // something to reduce, on a group of more than one
    int ag_f = -1, ag_b = -1, rs = -1;  // FSDP's per-layer ops
  };

  void gradient_bucket(const Reduced& r, double bytes) {
    const bool ddp = w_.zero == 0;
    b_.start(b_.op(comm(r.name + (ddp ? " all_reduce (gradient buckets)" : " reduce_scatter (gradient buckets)"), r.dim,
                        ddp ? CollectiveId::all_reduce : CollectiveId::reduce_scatter, bytes)));
  }

  // A tensor-parallel block's output: an all_reduce, or with sequence
  // parallelism an all_gather before the block and a reduce_scatter after it.
  void tp_before(const char* pass) {
    if (w_.tp > 1 && w_.sequence_parallel)
      b_.blocking(b_.op(
          comm(fmt::format("tp all_gather ({}, sequence parallel)", pass), Dim::tp, CollectiveId::all_gather, act_)));
  }
  void tp_after(const char* pass) {
    if (w_.tp <= 1) return;
    if (w_.sequence_parallel)
      b_.blocking(b_.op(comm(fmt::format("tp reduce_scatter ({}, sequence parallel)", pass), Dim::tp,
                             CollectiveId::reduce_scatter, act_)));
    else b_.blocking(b_.op(comm(fmt::format("tp all_reduce ({})", pass), Dim::tp, CollectiveId::all_reduce, act_)));
  }

  // ep with model.routing: the alltoallv of dispatch or combine at A per rank.
  // Drawn once per phase (every layer's is the same).
  CommOp moe_comm(const char* pass, const char* phase) {
    const std::string name = fmt::format("ep alltoallv {} ({})", phase, pass);
    if (const auto it = moe_ops_.find(name); it != moe_ops_.end()) return it->second;
    CommOp o = comm(name, Dim::ep, CollectiveId::alltoallv, act_);
    o.traffic = parse_traffic(moe_spec(w_, phase));
    const TrafficPlan plan = make_traffic_plan(*o.traffic, prog_.group_size(Dim::ep), o.bytes / elem_);
    o.busiest_bytes = plan.busiest_elements() * elem_;
    return moe_ops_.emplace(name, o).first->second;
  }

  // Attention, then the MLP (or the experts, between dispatch and combine;
  // backward: the gradients take the same two ways in the same order).
  void layer(const char* pass, int l, double compute_s) {
    const bool moe_layer = w_.experts > 0 && w_.ep > 1 && (l + 1) % w_.moe_every == 0;
    int dispatch = -1, combine = -1;
    if (moe_layer && w_.routing.empty())
      dispatch = combine =
          b_.op(comm(fmt::format("ep alltoall ({})", pass), Dim::ep, CollectiveId::alltoall, act_ * w_.top_k));
    else if (moe_layer) dispatch = b_.op(moe_comm(pass, "dispatch")), combine = b_.op(moe_comm(pass, "combine"));
    tp_before(pass);
    b_.compute(compute_s / 2);
    tp_after(pass);
    if (dispatch >= 0) b_.blocking(dispatch);
    tp_before(pass);
    b_.compute(compute_s / 2);
    if (combine >= 0) b_.blocking(combine);
    tp_after(pass);
  }

  const TrainingWorkload& w_;
  StepProgram& prog_;
  ProgramBuilder b_;
  int stage_ = 0, ls_ = 1, lc_ = 1;  // layers per stage, per model chunk
  std::size_t elem_ = 1;
  double act_ = 0;
  std::array<Reduced, 2> reduced_;                        // dp, edp
  std::vector<std::pair<std::size_t, double>> deferred_;  // buckets when dp does not overlap backward
  std::map<std::string, CommOp> moe_ops_;                 // ep alltoallv by phase
};

}  // namespace

namespace {

// One forward or backward of a micro-batch on a model chunk.
struct PassOrder {
  bool forward = true;
  int chunk = 0, micro_batch = 0;
};

// A stage's passes in the order its schedule runs them. GPipe: every
// forward, then every backward. 1F1B: pp - 1 - s forwards to fill the
// pipeline, then one forward and one backward in turn, then the backwards
// left. Interleaved 1F1B (Megatron-LM's, v chunks): the k-th forward runs
// chunk k / pp mod v of micro-batch (k / (pp v)) pp + k mod pp (the k-th
// backward the chunks in reverse); 2 (pp - 1 - s) + (v - 1) pp forwards
// first, then one forward and one backward in turn.
std::vector<PassOrder> stage_order(const TrainingWorkload& w, int m, int s) {
  const int v = w.virtual_stages, pp = w.pp, units = m * v;
  const auto unit = [&](int k, bool fwd) {
    const int in_group = k % (pp * v), chunk = in_group / pp;
    return PassOrder{fwd, fwd ? chunk : v - 1 - chunk, k / (pp * v) * pp + in_group % pp};
  };
  int warm_up = 0;
  if (w.schedule == PipelineSchedule::gpipe) warm_up = units;
  else if (v == 1) warm_up = std::min(m, pp - 1 - s);
  else warm_up = m == pp ? units : std::min(units, 2 * (pp - 1 - s) + (v - 1) * pp);
  std::vector<PassOrder> out;
  for (int k = 0; k < warm_up; ++k) out.push_back(unit(k, true));
  for (int k = warm_up; k < units; ++k) {
    out.push_back(unit(k, true));
    out.push_back(unit(k - warm_up, false));
  }
  for (int k = units - warm_up; k < units; ++k) out.push_back(unit(k, false));
  return out;
}

}  // namespace

StepProgram derive_step(const TrainingWorkload& w, int ranks, int ranks_per_node) {
  const int dp = check_fit(w, ranks, ranks_per_node);
  StepProgram prog = program_shape(w, ranks, ranks_per_node, dp);
  prog.stages.reserve(static_cast<std::size_t>(w.pp));  // StageProgram keeps a reference to its stage
  const int m = prog.micro_batches;
  for (int s = 0; s < w.pp; ++s) {
    StageProgram stage(w, prog, s);
    for (const PassOrder& p : stage_order(w, m, s)) {
      if (p.forward) stage.forward(p.chunk);
      else stage.backward(p.chunk, p.micro_batch + 1 == m);
    }
    stage.end_step();
  }
  return prog;
}

}  // namespace ccb

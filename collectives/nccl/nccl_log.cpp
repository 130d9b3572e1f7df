#include "collectives/nccl/nccl_log.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

namespace ccb {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::string transport_class(std::string_view t) {
  if (starts_with(t, "P2P")) return "p2p";
  if (starts_with(t, "SHM")) return "shm";
  if (starts_with(t, "NVLS")) return "nvls";
  if (starts_with(t, "COLLNET") || starts_with(t, "CollNet")) return "collnet";
  if (starts_with(t, "NET/")) {
    const std::string_view name =
        t.substr(4, t.find('/', 4) == std::string_view::npos ? std::string_view::npos : t.find('/', 4) - 4);
    if (starts_with(name, "Socket")) return "tcp";
    // IB verbs and the RDMA plugins: HPC-X's IBext, aws-ofi-nccl (EFA), GCP's gIB.
    if (starts_with(name, "IB") || starts_with(name, "gIB") || name.find("Libfabric") != std::string_view::npos ||
        name.find("OFI") != std::string_view::npos)
      return "rdma";
    return "net";
  }
  return "other";
}

namespace {

// The logging thread of a line: "host:pid:tid" in "host:pid:tid [dev] NCCL INFO ...".
std::string thread_of(std::string_view line, std::size_t info_at) {
  std::string_view p = trim_end(line.substr(0, info_at));
  if (!p.empty() && p.back() == ']')
    p = trim_end(p.substr(0, p.rfind('[') == std::string_view::npos ? 0 : p.rfind('[')));
  const auto space = p.rfind(' ');
  return std::string(space == std::string_view::npos ? p : p.substr(space + 1));
}

// The connection index of "Channel 02/1 : ..." (1 = point-to-point operations); -1 when absent.
int connection_index(std::string_view line) {
  const auto at = line.find("Channel ");
  if (at == std::string_view::npos) return -1;
  int index = -1;
  for (auto i = line.find('/', at) + 1; i > 0 && i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]));
       ++i)
    index = std::max(index, 0) * 10 + (line[i] - '0');
  return index;
}

// The word after `key` in `line` ("" when absent).
std::string_view word_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + key.size());
  return rest.substr(0, rest.find_first_of(" \r\n"));
}

// "AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}" -> "RING/LL/2ch".
std::string tuning_choice(std::string_view line) {
  const std::string_view algo = word_after(line, " -> Algo "), proto = word_after(line, " proto ");
  if (algo.empty() || proto.empty()) return "";
  std::string out = std::string(algo) + "/" + std::string(proto);
  int lo = 0, hi = 0;
  const auto ch = line.find("channel{Lo..Hi}={");
  if (ch != std::string_view::npos &&
      std::sscanf(std::string(line.substr(ch + 17, 24)).c_str(), "%d..%d", &lo, &hi) == 2 && hi >= lo)
    out += "/" + std::to_string(hi - lo + 1) + "ch";
  return out;
}

// The connections the thread of `line` set up before this "Connected ..." line belong to `setup`.
void settle(NcclTransports& out, std::string_view line, std::size_t info_at, const std::string& setup) {
  auto& mine = out.by_setup[setup];
  if (const auto it = out.pending.find(thread_of(line, info_at)); it != out.pending.end()) {
    mine.insert(it->second.begin(), it->second.end());
    out.pending.erase(it);
  }
}

void add_named(NcclTransports& out, const std::string& setup, const char* transport) {
  out.transports.insert(transport);
  out.classes.insert(transport_class(transport));
  out.by_setup[setup].insert(transport);
}

// NCCL_DEBUG_SUBSYS's comma-separated words, upper case.
std::vector<std::string> subsystems(std::string_view list) {
  std::vector<std::string> words;
  for (std::size_t at = 0; at <= list.size();) {
    const auto comma = std::min(list.find(',', at), list.size());
    std::string w(list.substr(at, comma - at));
    for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!w.empty()) words.push_back(w);
    at = comma + 1;
  }
  return words;
}

bool has(const std::vector<std::string>& words, const char* w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

}  // namespace

void parse_nccl_log_line(std::string_view line, NcclTransports& out) {
  const auto info = line.find("NCCL INFO");
  if (info == std::string_view::npos) return;
  if (const auto via = line.find(" via ");
      via != std::string_view::npos && line.find("Channel") != std::string_view::npos) {
    const std::string_view t = trim_end(line.substr(via + 5));
    if (t.empty()) return;
    out.transports.emplace(t);
    out.classes.insert(transport_class(t));
    ++out.connections;
    if (connection_index(line) == 1) out.by_setup["p2p"].emplace(t);
    else out.pending[thread_of(line, info)].emplace(t);
    return;
  }
  if (const auto at = line.find("Using network "); at != std::string_view::npos) {
    out.network = std::string(trim_end(line.substr(at + 14)));
    return;
  }
  if (line.find(" Bytes -> Algo ") != std::string_view::npos) {
    if (std::string choice = tuning_choice(line); !choice.empty()) out.algorithms.insert(std::move(choice));
    return;
  }
  if (line.find("Connected all rings") != std::string_view::npos) return settle(out, line, info, "ring");
  if (line.find("Connected all trees") != std::string_view::npos) return settle(out, line, info, "tree");
  if (line.find("Connected binomial trees") != std::string_view::npos) return settle(out, line, info, "pat");
  // NVLS buffers set up ("NVLS comm 0x... headRank ...") or connected; channel
  // counts ("16 nvls channels") only say what is available, not what was used.
  if (line.find("NVLS comm ") != std::string_view::npos) return add_named(out, "nvls", "NVLS");
  if (line.find("Connected NVLS tree") != std::string_view::npos) {  // NVLS_TREE's network connections
    settle(out, line, info, "nvls_tree");
    return add_named(out, "nvls", "NVLS");
  }
  if (line.find("Connected NVLS") != std::string_view::npos) {
    settle(out, line, info, "nvls");
    return add_named(out, "nvls", "NVLS");
  }
  if (line.find("Connected CollNet") != std::string_view::npos ||
      line.find("Connected all CollNet") != std::string_view::npos) {
    settle(out, line, info, "collnet");
    add_named(out, "collnet", "CollNet");
  }
}

std::optional<std::set<std::string>> transports_used_by(const NcclTransports& seen,
                                                        const std::set<std::string>& algorithms) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> setups_of{
      {"RING", {"ring"}},
      {"TREE", {"tree"}},
      {"PAT", {"pat"}},
      {"NVLS", {"nvls"}},
      {"NVLS_TREE", {"nvls", "nvls_tree"}},
      {"COLLNET_DIRECT", {"collnet"}},
      {"COLLNET_CHAIN", {"collnet"}}};
  std::set<std::string> setups;
  if (algorithms.empty()) setups.insert("p2p");
  for (const auto& a : algorithms) {
    std::string name = a.substr(0, a.find('/'));
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto it = setups_of.find(name);
    if (it == setups_of.end()) return std::nullopt;
    setups.insert(it->second.begin(), it->second.end());
  }
  // NCCL connects an algorithm before its first operation runs: a connection
  // still unplaced after a point is one ccbench cannot place at all.
  if (!seen.pending.empty()) return std::nullopt;
  std::set<std::string> used;
  for (const auto& s : setups)
    if (const auto it = seen.by_setup.find(s); it != seen.by_setup.end())
      used.insert(it->second.begin(), it->second.end());
  return used;
}

std::vector<std::string> last_warn_lines(std::string_view log_text, std::size_t n) {
  std::vector<std::string> out;
  constexpr std::string_view kWarn = "NCCL WARN ";
  std::size_t start = 0;
  while (start < log_text.size()) {
    std::size_t end = log_text.find('\n', start);
    if (end == std::string_view::npos) end = log_text.size();
    const std::string_view line = log_text.substr(start, end - start);
    if (const std::size_t at = line.find(kWarn); at != std::string_view::npos) {
      std::string w(line.substr(at + kWarn.size()));
      while (!w.empty() && (w.back() == '\r' || w.back() == ' ')) w.pop_back();
      if (!w.empty()) out.push_back(std::move(w));
    }
    start = end + 1;
  }
  if (out.size() > n) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(n));
  return out;
}

std::string nccl_failure_text(const std::string& what, const std::string& error_string, const std::string& last_error,
                              const std::vector<std::string>& warns, const std::string& log_file) {
  std::string s = what + ": " + error_string;
  if (!last_error.empty()) s += "; NCCL: " + last_error;
  for (const std::string& w : warns)
    if (w != last_error) s += "; NCCL WARN " + w;
  if (!log_file.empty()) s += " (NCCL's log: " + log_file + ")";
  return s;
}

std::string nccl_subsys_with_tuning(const char* current) {
  if (!current || !*current) return "INIT,BOOTSTRAP,ENV,TUNING";  // NCCL's default list, plus TUNING
  if (nccl_subsys_logs_tuning(current)) return current;
  if (current[0] != '^') return std::string(current) + ",TUNING";
  std::string kept;  // an exclusion list that names TUNING (or ALL): drop that word
  for (const auto& w : subsystems(current + 1))
    if (w != "TUNING" && w != "ALL") kept += (kept.empty() ? "^" : ",") + w;
  return kept.empty() ? "ALL" : kept;
}

bool nccl_subsys_logs_tuning(const char* current) {
  if (!current || !*current) return false;
  if (current[0] == '^') {
    const auto excluded = subsystems(current + 1);
    return !has(excluded, "TUNING") && !has(excluded, "ALL");
  }
  const auto words = subsystems(current);
  return has(words, "TUNING") || has(words, "ALL");
}

NcclTransports parse_nccl_log(std::istream& in) {
  NcclTransports t;
  std::string line;
  while (std::getline(in, line)) parse_nccl_log_line(line, t);
  return t;
}

std::string path_mismatch(PathRequest request, const std::set<std::string>& observed, int nodes) {
  if (request == PathRequest::automatic) return "";
  const std::string requested(setting_name(request));
  if (observed.empty()) return "requested " + requested + ", but NCCL reported no connection";
  // What each request allows; inter-node traffic needs a network unless the request is about one.
  std::vector<std::string> allowed, wanted;
  const std::vector<std::string> intra{"p2p", "shm", "nvls"}, inter{"rdma", "tcp", "net", "collnet"};
  switch (request) {
    case PathRequest::nvlink: allowed = wanted = {"p2p", "nvls"}; break;
    case PathRequest::pcie: allowed = wanted = {"p2p"}; break;
    case PathRequest::shm: allowed = wanted = {"shm"}; break;
    // rdma: a plugin ccbench does not know by name ("net") is allowed but is
    // no evidence of RDMA (the warning says no connection used it).
    case PathRequest::rdma:
      wanted = {"rdma", "collnet"};
      allowed = {"rdma", "collnet", "net"};
      break;
    case PathRequest::tcp: allowed = wanted = {"tcp"}; break;
    case PathRequest::automatic: break;
  }
  const bool network_request = request == PathRequest::rdma || request == PathRequest::tcp;
  if (network_request) allowed.insert(allowed.end(), intra.begin(), intra.end());
  else if (nodes > 1) allowed.insert(allowed.end(), inter.begin(), inter.end());
  std::set<std::string> unexpected;
  for (const auto& c : observed)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) unexpected.insert(c);
  if (!unexpected.empty())
    return "requested " + requested + ", but NCCL used " + join(unexpected) + " (observed: " + join(observed) + ")";
  const bool any_wanted =
      std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return observed.count(w) > 0; });
  if (!any_wanted) return "requested " + requested + ", but no connection used it (observed: " + join(observed) + ")";
  return "";
}

}  // namespace ccb

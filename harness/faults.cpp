#include "harness/faults.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include "common/environment.hpp"
#include "common/errors.hpp"

namespace ccb {

Faults parse_faults(const std::string& spec) {
  Faults f;
  if (spec.empty()) return f;
  const auto bad = [&] {
    return UsageError(
        fmt::format("CCBENCH_FAULT '{}': expected corrupt:rank=R or control_hang:rank=R, startup_hang:rank=R, "
                    "init_hang:rank=R, bitflip:rank=R[:repeat=K], slow:rank=R[:us=U], or "
                    "hang, exit, stuck, gpu_hang or error with :rank=R[:bytes=S] (host=NAME with or instead of rank=R)",
                    spec));
  };
  const std::size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (kind == "corrupt") f.kind = Faults::Kind::corrupt;
  else if (kind == "hang") f.kind = Faults::Kind::hang;
  else if (kind == "exit") f.kind = Faults::Kind::exit;
  else if (kind == "stuck") f.kind = Faults::Kind::stuck;
  else if (kind == "gpu_hang") f.kind = Faults::Kind::gpu_hang;
  else if (kind == "error") f.kind = Faults::Kind::error;
  else if (kind == "control_hang") f.kind = Faults::Kind::control_hang;
  else if (kind == "startup_hang") f.kind = Faults::Kind::startup_hang;
  else if (kind == "init_hang") f.kind = Faults::Kind::init_hang;
  else if (kind == "bitflip") f.kind = Faults::Kind::bitflip;
  else if (kind == "slow") f.kind = Faults::Kind::slow;
  else throw bad();
  std::size_t at = colon;
  while (at != std::string::npos) {
    const std::size_t next = spec.find(':', at + 1);
    const std::string item = spec.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw bad();
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "host" && !value.empty()) {
      f.host = value;
      at = next;
      continue;
    }
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || value[0] == '-') throw bad();
    if (key == "rank" && v < (1u << 30)) f.rank = static_cast<int>(v);
    else if (key == "repeat" && f.kind == Faults::Kind::bitflip && v >= 1 && v < (1u << 30))
      f.repeat = static_cast<int>(v);
    else if (key == "us" && f.kind == Faults::Kind::slow && v >= 1 && v <= 10'000'000) f.slow_us = static_cast<long>(v);
    else if (key == "bytes" && f.kind != Faults::Kind::corrupt && f.kind != Faults::Kind::control_hang &&
             f.kind != Faults::Kind::startup_hang && f.kind != Faults::Kind::init_hang &&
             f.kind != Faults::Kind::bitflip && f.kind != Faults::Kind::slow)
      f.bytes = v;
    else throw bad();
    at = next;
  }
  if (f.rank < 0 && f.host.empty()) throw bad();
  return f;
}

Faults faults_from_environment() {
  const char* spec = env_value(EnvVar::fault);
  Faults f = parse_faults(spec ? spec : "");
  char host[256] = {};
  if (!f.host.empty() && (gethostname(host, sizeof host - 1) != 0 || f.host != host)) return Faults{};
  return f;
}

void hang_forever(int rank, const std::string& where) {
  fmt::print(stderr, "ccbench: rank {}: CCBENCH_FAULT: hanging {} (test-only)\n", rank, where);
  std::fflush(stderr);
  for (;;) pause();
}

void inject_before_point(const Faults& f, int rank, std::size_t bytes) {
  if (!f.on(rank) || bytes < f.bytes) return;
  if (f.kind == Faults::Kind::hang || f.kind == Faults::Kind::stuck)
    hang_forever(rank, fmt::format("before the {} B point", bytes));
  if (f.kind == Faults::Kind::error) throw std::runtime_error("CCBENCH_FAULT: an injected library error (test-only)");
  if (f.kind == Faults::Kind::exit) {
    fmt::print(stderr, "ccbench: rank {}: CCBENCH_FAULT: killing itself before the {} B point (test-only)\n", rank,
               bytes);
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
}

}  // namespace ccb

#include "harness/slurm.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "common/errors.hpp"

extern char** environ;

namespace ccb {
namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// "a b c" with each word quoted for a shell when it needs it.
std::string quoted(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-=.,/:@%+[]") ==
                        std::string::npos)
    return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string shell_words(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + quoted(a);
  return out;
}

std::string command_output(const std::vector<std::string>& argv, const std::string& what) {
  int fds[2];
  if (pipe(fds) != 0) throw UsageError(fmt::format("{}: cannot make a pipe ({})", what, std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args = c_argv(argv);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw UsageError(fmt::format("{}: cannot run {} ({})", what, argv[0], std::strerror(rc)));
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::vector<std::string> lines = lines_of(out);
    throw UsageError(fmt::format("{}: {} failed ({}): {}", what, shell_words(argv),
                                 WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status)) : "killed by a signal",
                                 lines.empty() ? "no output" : lines.back()));
  }
  return out;
}

SlurmAllocation slurm_allocation() {
  SlurmAllocation a;
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* nodes = std::getenv("SLURM_JOB_NODELIST");
  if (!job || !nodes)
    throw UsageError(
        "accept: --launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID and SLURM_JOB_NODELIST "
        "unset): run it in sbatch or salloc");
  a.job_id = job;
  a.hosts = lines_of(command_output({"scontrol", "show", "hostnames", nodes}, "accept: the allocation's nodes"));
  if (a.hosts.empty()) throw UsageError(fmt::format("accept: SLURM_JOB_NODELIST '{}' names no node", nodes));
  if (const char* t = std::getenv("SLURM_NTASKS_PER_NODE")) {
    char* end = nullptr;
    const long v = std::strtol(t, &end, 10);
    if (end == t || *end != '\0' || v < 1 || v > 4096)
      throw UsageError(fmt::format("accept: SLURM_NTASKS_PER_NODE '{}': expected a number of tasks", t));
    a.tasks_per_node = static_cast<int>(v);
  }
  return a;
}

std::vector<std::string> slurm_switches(const std::vector<std::string>& hosts) {
  std::string text;
  try {
    text = command_output({"scontrol", "show", "topology"}, "accept: Slurm's topology");
  } catch (const UsageError&) {
    return {};  // no topology plugin: no switches
  }
  std::map<std::string, std::string> leaf_of;
  for (const std::string& line : lines_of(text)) {
    // SwitchName=s1 Level=0 LinkSpeed=1 Nodes=emu-h[1-2]
    std::istringstream words(line);
    std::string name, level, nodes;
    for (std::string w; words >> w;) {
      if (w.rfind("SwitchName=", 0) == 0) name = w.substr(11);
      if (w.rfind("Level=", 0) == 0) level = w.substr(6);
      if (w.rfind("Nodes=", 0) == 0) nodes = w.substr(6);
    }
    if (level != "0" || name.empty() || nodes.empty() || nodes == "(null)") continue;
    for (const std::string& h :
         lines_of(command_output({"scontrol", "show", "hostnames", nodes}, "accept: Slurm's topology")))
      leaf_of[h] = name;
  }
  std::vector<std::string> labels;
  bool any = false;
  for (const std::string& h : hosts) {
    const auto it = leaf_of.find(h);
    labels.push_back(it == leaf_of.end() ? "unlisted" : it->second);
    any = any || it != leaf_of.end();
  }
  return any ? labels : std::vector<std::string>{};
}

namespace {
std::string invoked_as;
}  // namespace

void set_invoked_as(const char* argv0) { invoked_as = argv0 ? argv0 : ""; }

std::string step_program() {
  if (invoked_as.empty()) return std::filesystem::read_symlink("/proc/self/exe").string();
  if (invoked_as.find('/') == std::string::npos) return invoked_as;
  return std::filesystem::absolute(invoked_as).lexically_normal().string();
}

pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // a Ctrl-C reaches the controller only
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args = c_argv(argv);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw UsageError(fmt::format("accept: cannot run {} ({})", argv[0], std::strerror(rc)));
  return pid;
}

std::map<std::string, NodeState> slurm_node_states(const std::vector<std::string>& hosts) {
  std::string list;
  for (const std::string& h : hosts) list += (list.empty() ? "" : ",") + h;
  std::map<std::string, NodeState> out;
  for (const std::string& line :
       lines_of(command_output({"sinfo", "-h", "-N", "-n", list, "-o", "%N|%T|%E"}, "accept: the nodes' states"))) {
    const std::size_t a = line.find('|'), b = line.find('|', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    NodeState s{line.substr(a + 1, b - a - 1), line.substr(b + 1)};
    if (s.reason == "none") s.reason.clear();
    out[line.substr(0, a)] = s;
  }
  return out;
}

std::vector<std::string> drain_command(const std::string& node, const std::string& reason) {
  return {"scontrol", "update", "nodename=" + node, "state=drain", "reason=" + reason};
}

std::vector<std::string> resume_command(const std::string& node) {
  return {"scontrol", "update", "nodename=" + node, "state=resume"};
}

}  // namespace ccb

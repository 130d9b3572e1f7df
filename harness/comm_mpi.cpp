#include "harness/comm_mpi.hpp"

#include <climits>
#include <string>

namespace ccb {

MpiComm::~MpiComm() {
  if (owned_) MPI_Comm_free(&comm_);
}

std::unique_ptr<Comm> MpiComm::split(int color) const {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, rank_, &sub);
  if (sub == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiComm>(sub, true);
}

std::vector<std::string> MpiComm::gather_strings(const std::string& mine) const {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm_);
  std::vector<int> displs(lens.size());
  long total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = static_cast<int>(total);
    total += lens[i];
  }
  if (total > INT32_MAX) throw std::runtime_error("gather_strings: more than 2 GiB of results on rank 0");
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm_);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

MpiComm::MpiComm(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  const int leader = local_rank_ == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &nodes_, 1, MPI_INT, MPI_SUM, comm_);
}

void MpiComm::barrier() const { MPI_Barrier(comm_); }

void MpiComm::max_inplace(std::vector<double>& values) const {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, comm_);
}

double MpiComm::combine(double value, RankCombine how, bool participate) const {
  if (how == RankCombine::rank0) {
    double v = value;
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, comm_);
    return v;
  }
  if (how == RankCombine::mean) {
    double in[2] = {participate ? value : 0.0, participate ? 1.0 : 0.0}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, comm_);
    return out[1] > 0 ? out[0] / out[1] : 0.0;
  }
  const bool is_min = how == RankCombine::min;
  double v = participate ? value : (is_min ? 1e300 : -1e300), out;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, is_min ? MPI_MIN : MPI_MAX, comm_);
  return out;
}

void MpiComm::broadcast(void* data, std::size_t bytes) const {
  MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, comm_);
}

uint64_t MpiComm::sum(uint64_t value) const {
  uint64_t out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return out;
}

std::string MpiComm::agree_error(const std::string& mine) const {
  const int candidate = mine.empty() ? INT_MAX : rank_;
  int failing = INT_MAX;
  MPI_Allreduce(&candidate, &failing, 1, MPI_INT, MPI_MIN, comm_);
  if (failing == INT_MAX) return {};
  int len = failing == rank_ ? static_cast<int>(mine.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, failing, comm_);
  std::string text = failing == rank_ ? mine : std::string(static_cast<std::size_t>(len), '\0');
  MPI_Bcast(text.data(), len, MPI_CHAR, failing, comm_);
  return text;
}

std::vector<std::string> MpiComm::all_strings(const std::string& mine) const {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size_));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_);
  std::vector<int> displs(lens.size());
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, comm_);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

Comm::ClockOffset MpiComm::clock_offset(int rounds) const {
  ClockOffset best{0, 1e300};
  for (int r = 1; r < size_; ++r) {  // one rank at a time, so rank 0 answers promptly
    for (int k = 0; k < rounds; ++k) {
      if (rank_ == 0) {
        double ask = 0;
        MPI_Recv(&ask, 1, MPI_DOUBLE, r, 71, comm_, MPI_STATUS_IGNORE);
        const double t = MPI_Wtime();
        MPI_Send(&t, 1, MPI_DOUBLE, r, 72, comm_);
      } else if (rank_ == r) {
        const double t0 = MPI_Wtime();
        double root = 0;
        MPI_Send(&t0, 1, MPI_DOUBLE, 0, 71, comm_);
        MPI_Recv(&root, 1, MPI_DOUBLE, 0, 72, comm_, MPI_STATUS_IGNORE);
        const double t1 = MPI_Wtime();
        if (t1 - t0 < best.rtt_s) best = {root - (t0 + t1) / 2, t1 - t0};
      }
    }
  }
  return rank_ == 0 ? ClockOffset{} : best;
}

std::string MpiComm::mpi_library() const {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string text(lib, static_cast<std::size_t>(len));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string MpiComm::mpi_standard() const {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

double MpiComm::exchange_s(int to, int from, const void* send, void* recv, std::size_t bytes) const {
  const double start = MPI_Wtime();
  MPI_Sendrecv(send, static_cast<int>(bytes), MPI_BYTE, to, 71, recv, static_cast<int>(bytes), MPI_BYTE, from, 71,
               comm_, MPI_STATUS_IGNORE);
  return MPI_Wtime() - start;
}

}  // namespace ccb

// io_uring through liburing: each request is submitted as it comes (as
// fio's io_uring engine by default), completions are reaped when the caller
// waits, and short transfers are finished with pread/pwrite (they are rare:
// a signal, the end of a buffered file).
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "io/engine.hpp"

#if CCBENCH_HAVE_URING
#include <liburing.h>
#endif

namespace ccb {

std::unique_ptr<IoEngine> make_psync_engine();

#if CCBENCH_HAVE_URING
namespace {

class UringEngine final : public IoEngine {
 public:
  explicit UringEngine(int depth) : requests_(static_cast<std::size_t>(depth)) {
    for (std::size_t i = requests_.size(); i-- > 0;) free_.push_back(i);
    // As fio's io_uring engine sets it up: one thread submits and reaps, so
    // completion work runs when it reaps instead of interrupting it
    // (kernel 6.1+; older kernels refuse the flags and get a plain ring).
    io_uring_params params{};
    params.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    int rc = io_uring_queue_init_params(static_cast<unsigned>(depth), &ring_, &params);
    if (rc == -EINVAL) rc = io_uring_queue_init(static_cast<unsigned>(depth), &ring_, 0);
    if (rc < 0)
      throw std::runtime_error(
          fmt::format("io_uring could not start ({}): the kernel or a seccomp policy refuses it; "
                      "use --engine psync",
                      std::strerror(-rc)));
  }
  ~UringEngine() override { io_uring_queue_exit(&ring_); }
  std::string_view name() const override { return "io_uring"; }

  void submit(const IoRequest& r) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {  // the caller exceeded the depth: issue what is queued first
      io_uring_submit(&ring_);
      sqe = io_uring_get_sqe(&ring_);
      if (!sqe) throw std::runtime_error("io_uring: submission queue full");
    }
    if (free_.empty()) throw std::runtime_error("io_uring: more requests in flight than the queue depth");
    const std::size_t slot = free_.back();
    free_.pop_back();
    requests_[slot] = r;
    if (r.write) io_uring_prep_write(sqe, r.fd, r.buf, static_cast<unsigned>(r.len), r.offset);
    else io_uring_prep_read(sqe, r.fd, r.buf, static_cast<unsigned>(r.len), r.offset);
    io_uring_sqe_set_data64(sqe, slot);
    // Issued at once, as fio does by default (iodepth_batch_submit=1): the
    // device's queue is refilled the moment a request completes, not when a
    // batch has gathered.
    if (const int rc = io_uring_submit(&ring_); rc < 0 && rc != -EINTR)
      throw std::runtime_error(fmt::format("io_uring submit: {}", std::strerror(-rc)));
  }

  void reap(std::size_t at_least, std::vector<IoCompletion>& out) override {
    if (const int rc = io_uring_submit_and_wait(&ring_, static_cast<unsigned>(at_least)); rc < 0 && rc != -EINTR)
      throw std::runtime_error(fmt::format("io_uring wait: {}", std::strerror(-rc)));
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe) {
      const std::size_t slot = io_uring_cqe_get_data64(cqe);
      const IoRequest r = requests_[slot];
      free_.push_back(slot);
      long result = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      if (result >= 0 && static_cast<std::size_t>(result) < r.len) {  // finish a short transfer
        IoRequest rest = r;
        rest.buf = static_cast<char*>(r.buf) + result;
        rest.len = r.len - static_cast<std::size_t>(result);
        rest.offset = r.offset + static_cast<std::uint64_t>(result);
        const long more = result == 0 ? -EIO : transfer_whole(rest);
        result = more < 0 ? more : static_cast<long>(r.len);
      }
      out.push_back({r.tag, result});
    }
  }

 private:
  io_uring ring_{};
  std::vector<IoRequest> requests_;  // in flight, by slot
  std::vector<std::size_t> free_;    // slots not in flight
};

}  // namespace

bool have_io_uring() { return true; }
#else
bool have_io_uring() { return false; }
#endif

std::unique_ptr<IoEngine> make_engine(IoEngineKind kind, int depth) {
  if (kind == IoEngineKind::psync) return make_psync_engine();
#if CCBENCH_HAVE_URING
  return std::make_unique<UringEngine>(depth);
#else
  (void)depth;
  throw std::runtime_error("this ccbench was built without liburing (Debian: liburing-dev): use --engine psync");
#endif
}

}  // namespace ccb

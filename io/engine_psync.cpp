// psync: pread/pwrite, one request at a time, retried until whole (a short
// transfer that makes no progress is an error, -EIO).
#include <unistd.h>

#include <cerrno>
#include <deque>

#include "io/engine.hpp"

namespace ccb {

long transfer_whole(const IoRequest& r) {
  std::size_t done = 0;
  auto* p = static_cast<char*>(r.buf);
  while (done < r.len) {
    const ssize_t n = r.write ? pwrite(r.fd, p + done, r.len - done, static_cast<off_t>(r.offset + done))
                              : pread(r.fd, p + done, r.len - done, static_cast<off_t>(r.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) return -EIO;  // end of file before the block ended
    done += static_cast<std::size_t>(n);
  }
  return static_cast<long>(done);
}

namespace {

class PsyncEngine final : public IoEngine {
 public:
  std::string_view name() const override { return "psync"; }
  void submit(const IoRequest& r) override { queued_.push_back(r); }
  void reap(std::size_t at_least, std::vector<IoCompletion>& out) override {
    for (std::size_t done = 0; !queued_.empty() && (done < at_least || done == 0); ++done) {
      const IoRequest r = queued_.front();
      queued_.pop_front();
      out.push_back({r.tag, transfer_whole(r)});
    }
  }

 private:
  std::deque<IoRequest> queued_;
};

}  // namespace

std::unique_ptr<IoEngine> make_psync_engine() { return std::make_unique<PsyncEngine>(); }

}  // namespace ccb

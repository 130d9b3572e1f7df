#include <chrono>

#include "harness/comm.hpp"

namespace ccb {

double SoloComm::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace ccb

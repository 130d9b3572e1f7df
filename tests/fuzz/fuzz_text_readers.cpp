// libFuzzer target: the readers of text a user hands over outside the result
// importers (issue 73): --traffic specs (moe:, hot:, spread:, ...) and the
// plans drawn from them, the number tables of matrix and routing files, and
// the credential redactor every command line and error passes through.
// Bad input must end in a UsageError, never a crash or another exception;
// redaction never lets a planted password through, whatever follows it.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "collectives/moe_routing.hpp"
#include "collectives/traffic.hpp"
#include "collectives/traffic_draws.hpp"
#include "common/errors.hpp"
#include "common/redact.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Redaction: a password planted in a URL before the text never survives.
  (void)ccb::redact_credentials(text);
  const std::string planted = ccb::redact_credentials("postgresql://ann:Pl4nted-pw@db/h " + text);
  if (planted.find("Pl4nted-pw") != std::string::npos && text.find("Pl4nted-pw") == std::string::npos) std::abort();
  (void)ccb::url_without_credentials(text);
  (void)ccb::printable_error(text);
  // The number tables of matrix and routing files.
  try {
    (void)ccb::traffic_draws::read_number_table(text, "fuzz table", "a number", 1e15, true);
  } catch (const ccb::UsageError&) {}
  try {
    (void)ccb::read_routing_file(text, "fuzz-routing.txt");
  } catch (const ccb::UsageError&) {}
  // --traffic as typed (specs naming files are left out: they read paths), and
  // a small plan from whatever is accepted.
  if (text.find("matrix") == std::string::npos && text.find("routing") == std::string::npos) {
    try {
      const ccb::TrafficModel m = ccb::parse_traffic(text);
      (void)ccb::parse_traffic(m.text());
      (void)ccb::make_traffic_plan(m, 4, 4096);
    } catch (const ccb::UsageError&) {}
  }
  return 0;
}

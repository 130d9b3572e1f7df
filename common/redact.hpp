// Credentials inside text a run records (its command line, its environment's
// values): a URL's password (scheme://user:PASSWORD@host) and libpq-style
// password=VALUE parameters are replaced by <redacted>, so a
// --history postgresql://user:secret@... never reaches a record.
#pragma once
#include <string>
#include <string_view>

namespace ccb {

std::string redact_credentials(std::string_view text);

}  // namespace ccb

// Credentials inside text a run records (its command line, its environment's
// values): a URL's password (scheme://user:PASSWORD@host) and libpq-style
// password=VALUE parameters are replaced by <redacted>, so a
// --history postgresql://user:secret@... never reaches a record. The URL is
// read as libpq reads it (tests/unit/test_history.cpp holds every form
// against PQconninfoParse): the user information up to the token's last '@'
// (libpq takes "u:s3cret?x@" and "u:s3cret#x@" whole), percent-decoded query
// keys ("pass%77ord"), the keyword form with spaces and quotes
// (password = 's3 cret'), the mistyped scheme "postgresql:/u:pw@db".
#pragma once
#include <string>
#include <string_view>

namespace ccb {

std::string redact_credentials(std::string_view text);
// A connection URL as messages name it: the same reading, with the password
// left out (user:secret@ -> user@; password=... parameters dropped).
std::string url_without_credentials(std::string_view url);
// An error line as ccbench prints it: credentials redacted (a connection
// string given where a path was expected), then made terminal-safe.
std::string printable_error(std::string_view what);

}  // namespace ccb

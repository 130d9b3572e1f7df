// An interned string: the key fields of imported points (collective, dtype,
// op, path, memory) take 4 bytes each and compare as integers. The table is
// process-wide and only grows; interning is not thread-safe (import and
// compare run on one thread).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ccb {

class Symbol {
 public:
  Symbol() = default;                                            // ""
  Symbol(std::string_view s);                                    // NOLINT: implicit, interns
  Symbol(const std::string& s) : Symbol(std::string_view(s)) {}  // NOLINT
  Symbol(const char* s) : Symbol(std::string_view(s)) {}         // NOLINT
  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT
  bool empty() const { return id_ == 0; }
  std::uint32_t id() const { return id_; }
  friend bool operator==(Symbol a, Symbol b) { return a.id_ == b.id_; }
  friend bool operator!=(Symbol a, const std::string& b) { return a.str() != b; }
  friend bool operator==(Symbol a, std::string_view b) { return a.str() == b; }
  friend bool operator==(Symbol a, const char* b) { return a.str() == b; }
  friend bool operator==(Symbol a, const std::string& b) { return a.str() == b; }

 private:
  std::uint32_t id_ = 0;
};

inline std::string operator+(const std::string& a, Symbol b) { return a + b.str(); }
inline std::string operator+(const char* a, Symbol b) { return a + b.str(); }

}  // namespace ccb

// compare --csv's text for a comparison, as the tests read it.
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>

#include "analysis/compare/comparison.hpp"
#include "analysis/report/render.hpp"

namespace ccb {

inline std::string compare_csv_text(const Comparison& c) {
  std::FILE* f = std::tmpfile();
  if (!f) throw std::runtime_error("tmpfile failed");
  write_csv(c, f);
  std::string csv(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  const std::size_t read = std::fread(csv.data(), 1, csv.size(), f);
  std::fclose(f);
  if (read != csv.size()) throw std::runtime_error("short read of the CSV");
  return csv;
}

}  // namespace ccb

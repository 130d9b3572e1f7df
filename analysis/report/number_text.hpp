// Numbers as the reports print them: significant figures, never "0.00" for a
// measured value, "-" for none.
#pragma once
#include <string>

namespace ccb {

std::string format_ratio(double r);  // "1.034x"
std::string format_us(double us);    // times in us
std::string format_gbps(double g);   // GB/s
std::string format_money(double v, const std::string& currency);
std::string format_seconds(double s);
// " (range LO to HI)" of two formatted bounds; "" when they print alike (a
// range is never "84% to 84%").
std::string range_text(const std::string& lo, const std::string& hi);  // "1.23 s", "45.6 ms", "2.5 h"

}  // namespace ccb

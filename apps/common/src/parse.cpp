#include "apps/parse.hpp"

#include <charconv>
#include <string>

#include "apps/usage_error.hpp"

namespace apps {

std::vector<int> parse_geometry(std::string_view option, std::string_view text, int dimensions) {
  std::string expected = "expected ";
  for (int d = 0; d < dimensions; ++d) expected += d == 0 ? "P" : "xP";
  expected += " with positive integers (e.g. ";
  for (int d = 0; d < dimensions; ++d) expected += d == 0 ? "2" : "x1";
  expected += ")";
  auto fail = [&] { throw UsageError(std::string(option) + ": " + expected + ", got '" + std::string(text) + "'"); };

  std::vector<int> extents;
  std::size_t begin = 0;
  while (true) {
    const std::size_t cross = text.find_first_of("xX", begin);
    std::string_view item = text.substr(begin, cross == std::string_view::npos ? text.npos : cross - begin);
    if (item.starts_with('+')) item.remove_prefix(1);  // from_chars rejects a leading '+', users write it
    int value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 1) fail();
    extents.push_back(value);
    if (cross == std::string_view::npos) break;
    begin = cross + 1;
  }
  if (static_cast<int>(extents.size()) != dimensions) fail();
  return extents;
}

long long product(const std::vector<int>& extents) noexcept {
  long long result = 1;
  for (const int e : extents) result *= e;
  return result;
}

std::string format_geometry(const std::vector<int>& extents) {
  std::string text;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (i > 0) text += 'x';
    text += std::to_string(extents[i]);
  }
  return text;
}

}  // namespace apps

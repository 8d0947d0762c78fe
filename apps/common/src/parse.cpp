#include "apps/parse.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "apps/usage_error.hpp"

namespace apps {
namespace {

std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

[[noreturn]] void fail(std::string_view option, const std::string& what, std::string_view text) {
  throw UsageError(std::string(option) + ": " + what + ", got " + quoted(text));
}

// Parses all of text as a long long, or returns false.
bool to_integer(std::string_view text, long long& value) {
  if (text.empty()) return false;
  const char* first = text.data();
  if (*first == '+') ++first;  // from_chars rejects a leading '+', users write it
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string to_text(long long value) { return std::to_string(value); }

std::string to_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <class T>
void check_range(std::string_view option, std::string_view text, T value, T min, T max) {
  if (value < min) throw UsageError(std::string(option) + " must be at least " + to_text(min) + ", got " + quoted(text));
  if (value > max) throw UsageError(std::string(option) + " must be at most " + to_text(max) + ", got " + quoted(text));
}

}  // namespace

long long parse_int(std::string_view option, std::string_view text, long long min, long long max) {
  long long value = 0;
  if (!to_integer(text, value)) fail(option, "expected an integer", text);
  check_range(option, text, value, min, max);
  return value;
}

double parse_double(std::string_view option, std::string_view text, double min, double max) {
  double value = 0.0;
  const char* first = text.data();
  if (!text.empty() && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    fail(option, "expected a number", text);
  }
  check_range(option, text, value, min, max);
  return value;
}

std::size_t parse_size(std::string_view option, std::string_view text) {
  std::string_view digits = text;
  std::size_t shift = 0;
  for (const auto& [suffix, bits] : {std::pair<std::string_view, std::size_t>{"KiB", 10}, {"MiB", 20}, {"GiB", 30},
                                     {"K", 10}, {"M", 20}, {"G", 30}, {"k", 10}}) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.remove_suffix(suffix.size());
      shift = bits;
      break;
    }
  }
  long long value = 0;
  if (!to_integer(digits, value) || value < 0) fail(option, "expected a size in bytes (e.g. 4096, 64K, 2M)", text);
  if (value > (std::numeric_limits<long long>::max() >> shift)) fail(option, "size too large", text);
  return static_cast<std::size_t>(value) << shift;
}

namespace {

// Parses all of text as an integer with an optional K/M/G suffix (powers of 1024), or returns false.
bool to_count(std::string_view text, long long& value) {
  int shift = 0;
  if (!text.empty()) {
    const char last = text.back();
    shift = last == 'K' || last == 'k' ? 10 : last == 'M' ? 20 : last == 'G' ? 30 : 0;
    if (shift != 0) text.remove_suffix(1);
  }
  if (!to_integer(text, value)) return false;
  if (value > (std::numeric_limits<long long>::max() >> shift) || value < (std::numeric_limits<long long>::min() >> shift))
    return false;
  value *= 1LL << shift;
  return true;
}

// A comma-separated list of integers, each read by `convert` and checked against [min, max].
std::vector<long long> parse_integers(std::string_view option, std::string_view text, long long min, long long max,
                                      bool (*convert)(std::string_view, long long&), const char* expected) {
  std::vector<long long> values;
  for (const auto& item : parse_list(option, text)) {
    long long value = 0;
    if (!convert(item, value)) fail(option, expected, text);
    check_range(option, text, value, min, max);
    values.push_back(value);
  }
  return values;
}

}  // namespace

long long parse_count(std::string_view option, std::string_view text, long long min, long long max) {
  long long value = 0;
  if (!to_count(text, value)) fail(option, "expected an integer (suffixes K, M, G allowed)", text);
  check_range(option, text, value, min, max);
  return value;
}

std::vector<long long> parse_count_list(std::string_view option, std::string_view text, long long min, long long max) {
  return parse_integers(option, text, min, max, to_count, "expected comma-separated integers (suffixes K, M, G allowed)");
}

std::vector<std::string> parse_list(std::string_view option, std::string_view text) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view item = text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin);
    if (item.empty()) fail(option, "expected a comma-separated list without empty items", text);
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return items;
}

std::vector<long long> parse_int_list(std::string_view option, std::string_view text, long long min, long long max) {
  return parse_integers(option, text, min, max, to_integer, "expected comma-separated integers");
}

std::vector<int> parse_geometry(std::string_view option, std::string_view text, int dimensions) {
  std::string expected = "expected ";
  for (int d = 0; d < dimensions; ++d) expected += d == 0 ? "P" : "xP";
  expected += " with positive integers (e.g. ";
  for (int d = 0; d < dimensions; ++d) expected += d == 0 ? "2" : "x1";
  expected += ")";

  std::vector<int> extents;
  std::size_t begin = 0;
  while (true) {
    const std::size_t cross = text.find_first_of("xX", begin);
    const std::string_view item = text.substr(begin, cross == std::string_view::npos ? text.npos : cross - begin);
    long long value = 0;
    if (!to_integer(item, value) || value < 1 || value > std::numeric_limits<int>::max()) fail(option, expected, text);
    extents.push_back(static_cast<int>(value));
    if (cross == std::string_view::npos) break;
    begin = cross + 1;
  }
  if (static_cast<int>(extents.size()) != dimensions) fail(option, expected, text);
  return extents;
}

std::string parse_choice(std::string_view option, std::string_view text, const std::vector<std::string>& choices) {
  for (const auto& choice : choices) {
    if (text == choice) return choice;
  }
  std::string expected = "(expected ";
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) expected += i + 1 == choices.size() ? " or " : ", ";
    expected += choices[i];
  }
  throw UsageError(std::string(option) + ": unknown value " + quoted(text) + " " + expected + ")");
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

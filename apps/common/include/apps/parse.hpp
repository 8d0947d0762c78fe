// Process geometries ("2x2x1"), the one option value CLI11's validators do not read (integers, sizes,
// lists and choices are checked by apps::Options through them). parse_geometry takes the option's name so
// that its UsageError names both the option and the bad value. Pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace apps {

// A process geometry of `dimensions` positive integers joined by 'x' ("2x2x1" for 3, "2x3" for 2).
std::vector<int> parse_geometry(std::string_view option, std::string_view text, int dimensions);

// The product of a geometry's extents (the number of ranks it needs).
long long product(const std::vector<int>& extents) noexcept;
// "2x2x1".
std::string format_geometry(const std::vector<int>& extents);

}  // namespace apps

// Parsing of option values: integers, sizes with binary suffixes, comma lists and process geometries
// ("2x2x1"). Every function takes the option's name ("--iters") so that its UsageError names both the
// option and the bad value, e.g. "--iters must be at least 1, got '0'". Pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace apps {

// A decimal integer in [min, max]; "--n: expected an integer, got 'x'" or "--n must be at least 1, got '0'".
long long parse_int(std::string_view option, std::string_view text, long long min = -(1LL << 62),
                    long long max = (1LL << 62));
// A finite decimal number in [min, max].
double parse_double(std::string_view option, std::string_view text, double min = -1e300, double max = 1e300);
// A byte count: an integer with an optional binary suffix K, M or G (KiB, MiB, GiB; also "KiB" etc.).
std::size_t parse_size(std::string_view option, std::string_view text);
// A count (matrix order, grid points, iterations) in [min, max]: an integer with an optional suffix K, M or G
// (powers of 1024), so "--size 4K" means 4096.
long long parse_count(std::string_view option, std::string_view text, long long min = 0,
                      long long max = (1LL << 62));
// Comma-separated counts, each in [min, max]; errors quote the whole list.
std::vector<long long> parse_count_list(std::string_view option, std::string_view text, long long min = 0,
                                        long long max = (1LL << 62));
// Comma-separated items, each non-empty ("a,b,c"); an empty item is an error naming the text.
std::vector<std::string> parse_list(std::string_view option, std::string_view text);
// Comma-separated integers, each in [min, max].
std::vector<long long> parse_int_list(std::string_view option, std::string_view text, long long min = -(1LL << 62),
                                      long long max = (1LL << 62));
// A process geometry of `dimensions` positive integers joined by 'x' ("2x2x1" for 3, "2x3" for 2).
std::vector<int> parse_geometry(std::string_view option, std::string_view text, int dimensions);
// One of `choices`; "--mode: unknown value 'foo' (expected sync, async, mt or proxy)".
std::string parse_choice(std::string_view option, std::string_view text, const std::vector<std::string>& choices);

// The product of a geometry's extents (the number of ranks it needs).
long long product(const std::vector<int>& extents) noexcept;
// "2x2x1".
std::string format_geometry(const std::vector<int>& extents);

}  // namespace apps

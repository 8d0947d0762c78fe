// proxy_settings_help and proxy_settings_show: the PROXY_* table (proxy/environment_variables.hpp) for a C or
// Fortran program's --help and --show-config, in the C++ drivers' words.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <proxy/environment_variables.hpp>

#include "c_boundary.hpp"

namespace {

// Copies text into [out, out + size), or refuses a buffer it does not fit whole.
void copy_whole(const std::string& text, char* out, std::size_t size, const char* function) {
  proxy::c::require(out, function, "text");
  if (text.size() >= size) {
    throw proxy::c::ArgumentError(std::string(function) + ": the text needs " + std::to_string(text.size() + 1) +
                                  " bytes, got " + std::to_string(size));
  }
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
}

// "  SETTING  VALUE  SOURCE" per row, columns aligned (apps::Options::show_config's table).
std::string settings_rows() {
  std::vector<std::array<std::string, 3>> rows;
  const auto settings = proxy::proxy_and_omp_settings();
  const auto known = proxy::environment_variables();
  for (const proxy::EnvironmentVariable& v : known) {
    const auto set =
        std::find_if(settings.begin(), settings.end(), [&](const auto& kv) { return kv.first == v.name; });
    rows.push_back({std::string(v.name), set != settings.end() ? set->second : std::string(v.default_value),
                    set != settings.end() ? "environment" : "default"});
  }
  for (const auto& [name, value] : settings) {
    if (std::none_of(known.begin(), known.end(), [&](const auto& v) { return v.name == name; }))
      rows.push_back({name, value, name.starts_with("PROXY_") ? "environment (unknown to this version)" : "environment"});
  }
  std::size_t width[2] = {0, 0};
  for (const auto& row : rows) {
    width[0] = std::max(width[0], row[0].size());
    width[1] = std::max(width[1], row[1].size());
  }
  std::string text;
  for (const auto& row : rows) {
    text += "  " + row[0] + std::string(width[0] - row[0].size() + 2, ' ') + row[1] +
            std::string(width[1] - row[1].size() + 2, ' ') + row[2] + "\n";
  }
  return text;
}

}  // namespace

extern "C" {

proxy_status proxy_settings_help(char* text, size_t size) {
  if (text != nullptr && size > 0) text[0] = '\0';
  return proxy::c::guarded([&] { copy_whole(proxy::environment_help(), text, size, "proxy_settings_help"); });
}

proxy_status proxy_settings_show(char* text, size_t size) {
  if (text != nullptr && size > 0) text[0] = '\0';
  return proxy::c::guarded([&] { copy_whole(settings_rows(), text, size, "proxy_settings_show"); });
}

}  // extern "C"

#include "apps/options.hpp"

#include <algorithm>
#include <cassert>
#include <sstream>

#include "apps/parse.hpp"
#include "apps/usage_error.hpp"

namespace apps {

Options::Options(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

Options& Options::option(std::string name, std::string value_name, std::string help,
                         std::optional<std::string> default_value) {
  assert(find(name) == nullptr && "option declared twice");
  specs_.push_back(Spec{std::move(name), std::move(value_name), std::move(help), std::move(default_value), {}, false,
                        false});
  return *this;
}

Options& Options::flag(std::string name, std::string help) {
  assert(find(name) == nullptr && "option declared twice");
  specs_.push_back(Spec{std::move(name), {}, std::move(help), {}, {}, true, false});
  return *this;
}

Options& Options::epilog(std::string text) {
  epilog_ = std::move(text);
  return *this;
}

Options::Spec* Options::find(std::string_view name) {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  return it == specs_.end() ? nullptr : &*it;
}

const Options::Spec& Options::spec(std::string_view name) const {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  assert(it != specs_.end() && "option not declared");
  return *it;
}

bool Options::parse(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return false;
    if (!arg.starts_with("--") || arg.size() == 2) {
      throw UsageError("unexpected argument '" + std::string(arg) + "' (options start with --; see --help)");
    }
    std::string_view name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string_view::npos) {
      inline_value = std::string(name.substr(eq + 1));
      name = name.substr(0, eq);
    }
    Spec* s = find(name);
    if (s == nullptr) throw UsageError("unknown option '--" + std::string(name) + "' (see --help)");
    if (s->seen) throw UsageError("option --" + s->name + " given twice");
    s->seen = true;
    if (s->is_flag) {
      if (inline_value) throw UsageError("option --" + s->name + " takes no value, got '" + *inline_value + "'");
      continue;
    }
    if (inline_value) {
      s->given = std::move(inline_value);
    } else {
      if (i + 1 >= argc) throw UsageError("option --" + s->name + " needs a value (" + s->value_name + ")");
      s->given = argv[++i];
    }
  }
  return true;
}

bool Options::given(std::string_view name) const { return spec(name).seen; }

bool Options::has(std::string_view name) const {
  const Spec& s = spec(name);
  return s.given.has_value() || s.default_value.has_value();
}

bool Options::flag_set(std::string_view name) const { return spec(name).is_flag && spec(name).seen; }

const std::string& Options::value(std::string_view name) const {
  const Spec& s = spec(name);
  if (s.given) return *s.given;
  if (s.default_value) return *s.default_value;
  throw UsageError("missing required option --" + s.name);
}

long long Options::integer(std::string_view name, long long min, long long max) const {
  return parse_int("--" + std::string(name), value(name), min, max);
}

double Options::real(std::string_view name, double min, double max) const {
  return parse_double("--" + std::string(name), value(name), min, max);
}

std::size_t Options::size(std::string_view name) const { return parse_size("--" + std::string(name), value(name)); }

std::vector<int> Options::geometry(std::string_view name, int dimensions) const {
  return parse_geometry("--" + std::string(name), value(name), dimensions);
}

std::string Options::choice(std::string_view name, const std::vector<std::string>& choices) const {
  return parse_choice("--" + std::string(name), value(name), choices);
}

std::string Options::help() const {
  std::ostringstream out;
  out << "usage: " << program_ << " [options]\n" << summary_ << "\n\noptions:\n";
  const std::string help_left = "  -h, --help";
  std::vector<std::string> left;
  std::size_t width = help_left.size();
  for (const Spec& s : specs_) {
    left.push_back("  --" + s.name + (s.is_flag ? "" : " " + s.value_name));
    width = std::max(width, left.back().size());
  }
  out << help_left << std::string(width - help_left.size() + 2, ' ') << "print this help and exit\n";
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const Spec& s = specs_[i];
    out << left[i] << std::string(width - left[i].size() + 2, ' ');
    // Continuation lines of a multi-line help text line up under its first line.
    std::string text = s.help;
    if (s.default_value) text += " (default: " + (s.default_value->empty() ? "none" : *s.default_value) + ")";
    std::size_t begin = 0;
    while (true) {
      const std::size_t nl = text.find('\n', begin);
      out << text.substr(begin, nl == std::string::npos ? std::string::npos : nl - begin) << '\n';
      if (nl == std::string::npos) break;
      begin = nl + 1;
      out << std::string(width + 2, ' ');
    }
  }
  out << "Options take their value as '--key value' or '--key=value'.\n";
  if (!epilog_.empty()) out << '\n' << epilog_ << (epilog_.ends_with('\n') ? "" : "\n");
  return out.str();
}

}  // namespace apps

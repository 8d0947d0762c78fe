#include "apps/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>

#include <proxy/version.hpp>

#include "apps/environment_variables.hpp"
#include "apps/parse.hpp"
#include "apps/run_record.hpp"
#include "apps/usage_error.hpp"

namespace apps {
namespace {

// Options every program has; declared after the program's own so that --help lists them last.
constexpr std::string_view kVersion = "version";
constexpr std::string_view kShowConfig = "show-config";
// --verbose's environment name, honoured by every program (a nameless option where --verbose is not declared).
constexpr std::string_view kVerbose = "verbose";
constexpr std::string_view kVerboseVariable = "PROXY_VERBOSE";

// PROXY_VERBOSE: 0 or 1, as the runtime's PROXY_BIND and PROXY_TIMINGS (CLI11's flag would take "yes",
// "on" or "-1" too). --verbose on the command line gives "1" ("--verbose{1}").
const CLI::Validator kZeroOrOne(
    [](std::string& text) {
      return text == "0" || text == "1"
                 ? std::string()
                 : std::string(kVerboseVariable) + "='" + text + "' is not an integer from 0 to 1";
    },
    "");

// --show-config's table as CLI11's config output: "  SETTING  VALUE  SOURCE" for every configurable
// option (its checked values, or "(none)") and then `more` rows (the environment), columns aligned. Output
// only: no program reads a configuration file (App::set_config is not used), so from_config is never called.
class ConfigTable : public CLI::Config {
 public:
  using Row = std::array<std::string, 3>;
  ConfigTable(std::string title, std::function<std::string(const CLI::Option&)> source, std::vector<Row> more)
      : title_(std::move(title)), source_(std::move(source)), more_(std::move(more)) {}

  std::string to_config(const CLI::App* app, bool default_also, bool, std::string) const override {
    std::vector<Row> rows;
    for (const CLI::Option* option : app->get_options()) {
      if (!option->get_configurable() || (!default_also && option->count() == 0)) continue;
      rows.push_back({"--" + option->get_single_name(), value(*option), source_(*option)});
    }
    rows.insert(rows.end(), more_.begin(), more_.end());
    std::size_t width[2] = {0, 0};
    for (const Row& row : rows)
      for (int c = 0; c < 2; ++c) width[c] = std::max(width[c], row[c].size());
    std::string text = title_;
    for (const Row& row : rows) {
      text += "  " + row[0] + std::string(width[0] - row[0].size() + 2, ' ') + row[1] +
              std::string(width[1] - row[1].size() + 2, ' ') + row[2] + "\n";
    }
    return text;
  }
  std::vector<CLI::ConfigItem> from_config(std::istream&) const override { return {}; }

 private:
  static std::string value(const CLI::Option& option) {
    if (option.get_expected_max() == 0) return option.count() > 0 && option.as<bool>() ? "true" : "false";  // a flag
    std::string joined;
    for (const std::string& item : option.as<std::vector<std::string>>()) joined += (joined.empty() ? "" : ",") + item;
    return joined.empty() ? "(none)" : joined;
  }

  std::string title_;
  std::function<std::string(const CLI::Option&)> source_;
  std::vector<Row> more_;
};

// CLI11's layout with the project's wording: "usage: NAME [options]", "-h, --help", the summary on top.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    return "usage: " + name + " [options]\n" + app->get_description() + "\n";
  }
  std::string make_description(const CLI::App*) const override { return ""; }
  std::string make_option_name(const CLI::Option* option, bool positional) const override {
    std::string name = CLI::Formatter::make_option_name(option, positional);
    for (std::size_t comma = name.find(','); comma != std::string::npos; comma = name.find(',', comma + 2))
      name.replace(comma, 1, ", ");
    return name;
  }
  std::string make_footer(const CLI::App* app) const override { return app->get_footer(); }
};

// One reading of a number, for its check and for its value. CLI11 reads an integer with strtoll in base 0
// and std::stoll read it again in base 10: "--iters 0x2" passed the range check as 2 and ran 0 iterations,
// "010" was checked as 8 and run as 10; std::stod threw on "1e-400", which CLI11 had let through.

// "64", "+3", "-1", and where `suffixes`, "4K", "8 kib", "1GB": a decimal integer and one of CLI11's size
// units (b; k, kb, ki, kib ... e: powers of 1024), any case. nullopt if the text is none of these;
// `overflow` if it is one but its value does not fit a long long.
// `text` without the blanks around it: integers and reals take " 8 " as "8", as the Python tools' float() does.
std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  return first == text.npos ? std::string_view() : text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::optional<long long> read_integer(std::string_view text, bool suffixes, bool& overflow) {
  overflow = false;
  text = trim(text);
  std::size_t unit_begin = text.size();
  while (unit_begin > 0 && std::isalpha(static_cast<unsigned char>(text[unit_begin - 1]))) --unit_begin;
  std::string unit(text.substr(unit_begin));
  std::string_view digits = trim(text.substr(0, unit_begin));
  if (digits.starts_with('+')) digits.remove_prefix(1);  // from_chars rejects a leading '+', users write it
  if (digits.starts_with('-') && text.starts_with('+')) return std::nullopt;  // "+-3"
  long long value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool read_whole = !digits.empty() && end == digits.data() + digits.size();
  if (!read_whole || (ec != std::errc() && ec != std::errc::result_out_of_range)) return std::nullopt;
  long long factor = 1;
  if (!unit.empty()) {
    if (!suffixes) return std::nullopt;
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit != "b") {
      const std::size_t power = std::string_view("kmgtpe").find(unit.front());
      const std::string_view rest = std::string_view(unit).substr(1);
      if (power == std::string_view::npos || !(rest.empty() || rest == "b" || rest == "i" || rest == "ib"))
        return std::nullopt;
      factor = 1LL << (10 * (power + 1));
    }
  }
  overflow = ec == std::errc::result_out_of_range || __builtin_mul_overflow(value, factor, &value);
  return value;
}

// An integer option's check: read_integer, then [min, max] if bounded; the text becomes the decimal value.
// The refusals quote the text as given: "expected an integer, got '0x2'", "Value 0 not in range 1 to 8",
// "Value 2147483648 not in range 1 to 1073741824 (given as '2G')".
CLI::Validator integer_in_range(bool suffixes, std::optional<std::pair<long long, long long>> bounds) {
  return CLI::Validator(
      [suffixes, bounds](std::string& text) {
        bool overflow = false;
        const std::optional<long long> value = read_integer(text, suffixes, overflow);
        if (!value) {
          return "expected an integer" + std::string(suffixes ? " (suffixes K, M, G allowed)" : "") + ", got '" +
                 text + "'";
        }
        const std::string decimal = overflow ? text : std::to_string(*value);
        const std::string range = bounds ? " not in range " + std::to_string(bounds->first) + " to " +
                                               std::to_string(bounds->second)
                                         : " too large";
        if (overflow || (bounds && (*value < bounds->first || *value > bounds->second)))
          return "Value " + decimal + range + (decimal == text ? "" : " (given as '" + text + "')");
        text = decimal;
        return std::string();
      },
      "");
}

// A finite decimal number as strtod reads it ("1e-400" is 0, "1e400" is refused), for the check and for real().
// Hexadecimal ("0x1p-3") is refused, as the integers refuse "0x10" and the Python tools' float() refuses it. Blanks
// around it are dropped, as the integers' and float()'s are (strtod took ' 8' and refused '8 ').
std::optional<double> read_real(const std::string& given) {
  const std::string text(trim(given));
  if (text.empty() || text.find_first_of("xX") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A finite number in [min, max]: "expected a finite number, got 'nan'", "Value 2.5 not in range 0 to 2" (the
// bounds as the run record writes numbers; CLI::Range wrote "0.000000 to 2.000000" and let NaN through).
CLI::Validator real_in_range(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) {
        const std::optional<double> value = read_real(text);
        if (!value) return "expected a finite number, got '" + text + "'";
        if (*value < min || *value > max)
          return "Value " + text + " not in range " + shortest_text(min) + " to " + shortest_text(max);
        return std::string();
      },
      "");
}

std::string help_text(const std::string& help, const std::optional<std::string>& default_value) {
  if (!default_value) return help;
  return help + " (default: " + (default_value->empty() ? "none" : *default_value) + ")";
}

}  // namespace

Options::Options(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

Options& Options::option(std::string name, std::string value_name, std::string help,
                         std::optional<std::string> default_value) {
  assert(find(name) == nullptr && "option declared twice");
  Spec& s = specs_.emplace_back();
  s.name = std::move(name);
  s.value_name = std::move(value_name);
  s.help = std::move(help);
  s.default_value = std::move(default_value);
  return *this;
}

Options::Spec& Options::last() {
  assert(!specs_.empty() && !specs_.back().is_flag && "a constraint needs an option declared before it");
  return specs_.back();
}

Options& Options::range(long long min, long long max) {
  last().integer_range = {min, max};
  return *this;
}

Options& Options::real_range(double min, double max) {
  last().real_range = {min, max};
  return *this;
}

Options& Options::number() {
  return real_range(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
}

Options& Options::suffixes() {
  last().suffixes = true;
  return *this;
}

Options& Options::one_of(std::vector<std::string> choices) {
  last().choices = std::move(choices);
  return *this;
}

Options& Options::list() {
  last().list = true;
  return *this;
}

Options& Options::per_rank() {
  last().per_rank = true;
  return *this;
}

std::string Options::agreed_values() const {
  // The program first: an MPMD launch of two programs was refused naming an option one of them lacks ("--variant
  // classic here, --n 16 on rank 0"), or ran (heat2d beside heat2d-tasks).
  std::string text = std::string(kProgramLine) + program_ + "\n";
  for (const Spec& s : specs_) {
    if (s.per_rank || s.name == kVerbose) continue;
    std::string values = s.is_flag ? (s.seen ? "given" : "not given") : "";
    for (const std::string& item : s.checked) values += (values.empty() ? "" : ",") + item;
    if (values.empty()) values = "not given";  // an option without a default ("--geometry  here")
    text += "--" + s.name + " " + values + "\n";
  }
  // The built-in --show-config too: answered on one rank only, it left the others waiting in the set-up's first
  // collective until PROXY_WAIT_TIMEOUT.
  return text + "--" + std::string(kShowConfig) + (show_config_ ? " given" : " not given") + "\n";
}

Options& Options::flag(std::string name, std::string help) {
  assert(find(name) == nullptr && "option declared twice");
  Spec& s = specs_.emplace_back();
  s.name = std::move(name);
  s.help = std::move(help);
  s.is_flag = true;
  return *this;
}

Options& Options::alias(std::string old_name, std::string name) {
  assert(find(name) != nullptr && find(old_name) == nullptr && "alias of an undeclared option");
  aliases_.emplace_back(std::move(old_name), std::move(name));
  return *this;
}

Options& Options::epilog(std::string text) {
  epilog_ = std::move(text);
  return *this;
}

Options& Options::effective(std::string variable, std::string value, std::string source) {
  std::erase_if(effective_, [&](const auto& row) { return row[0] == variable; });
  effective_.push_back({std::move(variable), std::move(value), std::move(source)});
  return *this;
}

Options::Spec* Options::find(std::string_view name) {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  return it == specs_.end() ? nullptr : &*it;
}

const Options::Spec* Options::find(std::string_view name) const {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  return it == specs_.end() ? nullptr : &*it;
}

const Options::Spec& Options::spec(std::string_view name) const {
  const Spec* s = find(name);
  assert(s != nullptr && "option not declared");
  return *s;
}

std::vector<std::string> Options::normalised(int argc, const char* const* argv) {
  std::vector<std::string> args;
  std::vector<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // A flag given a value: CLI11 printed the help for "-h=x" and "--help=x" (refused below for the long form).
    if (arg.starts_with("-h=")) throw UsageError("option -h takes no value, got '" + arg.substr(3) + "'");
    // Grouped short flags ("-hv", "-vh"): the only short option is -h, so a group is a typo of a long option.
    // CLI11 split "-hv" into -h and -v and printed the help; refused at once, as the Python tools refuse it
    // (apps/toolkit/cli.py). A negative number is left to the option checks.
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && !std::isdigit(static_cast<unsigned char>(arg[1])) &&
        arg.find('=') == std::string::npos)
      throw UsageError("unexpected argument '" + arg + "' (options start with --; see --help)");
    if (arg.starts_with("--") && arg.size() > 2) {
      const std::size_t eq = arg.find('=');
      std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      for (const auto& [old_name, declared] : aliases_) {
        if (name == old_name) {
          arg = "--" + declared + (eq == std::string::npos ? "" : arg.substr(eq));
          name = declared;
        }
      }
      Spec* s = find(name);
      if (s != nullptr) {
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
          throw UsageError("option --" + name + " given twice");
        seen.push_back(name);
        s->seen = true;
      }
      const bool builtin_flag = name == "help" || name == kVersion || name == kShowConfig;
      if ((builtin_flag || (s != nullptr && s->is_flag)) && eq != std::string::npos)
        throw UsageError("option --" + name + " takes no value, got '" + arg.substr(eq + 1) + "'");
      // '--n=' with nothing after it: CLI11 would take the next word as the value ('--n= 8' ran with 8).
      if (s != nullptr && !s->is_flag && eq + 1 == arg.size())
        throw UsageError("option --" + name + " needs a value after '=' (" + s->value_name + ")");
      // The next word is this option's value, whatever it looks like: copy it without looking at it.
      if (s != nullptr && !s->is_flag && eq != std::string::npos) s->given = arg.substr(arg.find('=') + 1);
      if (s != nullptr && !s->is_flag && eq == std::string::npos && i + 1 < argc) {
        args.push_back(std::move(arg));
        arg = argv[++i];
        s->given = arg;  // the text as written; CLI11's results are the checked values
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

bool Options::parse(int argc, const char* const* argv) {
  std::vector<std::string> args = normalised(argc, argv);
  // CLI11's delimiter drops empty items; "8,,64" or "8,64," is a typo, not a shorter list. Before CLI11 parses: a
  // value of commas alone (",") is no value to it, and it took the next word ("--n , --iters 2": "got '--iters'").
  for (const Spec& s : specs_) {
    if (s.list && s.given && !s.given->empty() &&
        (s.given->front() == ',' || s.given->back() == ',' || s.given->find(",,") != std::string::npos))
      throw UsageError("--" + s.name + ": empty item in '" + *s.given + "'");
  }
  app_ = std::make_shared<CLI::App>(summary_, program_);
  CLI::App& app = *app_;
  app.allow_extras();  // reported below in the project's words
  app.set_help_flag("-h,--help", "print this help and exit");
  std::vector<CLI::Option*> declared;  // CLI11's option of each Spec, same index
  verbose_option_ = nullptr;
  for (Spec& s : specs_) {
    CLI::Option* o = nullptr;
    if (s.is_flag && s.name == kVerbose) {
      o = app.add_flag("--" + s.name + "{1}")->envname(std::string(kVerboseVariable))->check(kZeroOrOne);
      verbose_option_ = o;
    } else {
      o = s.is_flag ? app.add_flag("--" + s.name) : app.add_option("--" + s.name)->type_name(s.value_name);
    }
    if (!s.is_flag) {
      o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
      if (s.default_value) o->default_str(*s.default_value);
      if (s.list) o->delimiter(',');
      if (s.suffixes || s.integer_range) o->transform(integer_in_range(s.suffixes, s.integer_range));  // "4K": "4096"
      if (s.real_range) o->check(real_in_range(s.real_range->first, s.real_range->second));
      if (!s.choices.empty()) o->check(CLI::IsMember(s.choices));
    }
    declared.push_back(o);
  }
  if (verbose_option_ == nullptr)
    verbose_option_ = app.add_flag("")->envname(std::string(kVerboseVariable))->check(kZeroOrOne)->configurable(false);
  CLI::Option* version = app.add_flag("--" + std::string(kVersion))->configurable(false);
  CLI::Option* show_config = app.add_flag("--" + std::string(kShowConfig))->configurable(false);

  std::reverse(args.begin(), args.end());  // CLI11 takes the words last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    answer_ = help();
    return false;
  } catch (const CLI::ArgumentMismatch& error) {
    // "--iters: 1 required K missing": the option is the word before the colon.
    const std::string what = error.what();
    const Spec* s = what.starts_with("--") ? find(what.substr(2, what.find(':') - 2)) : nullptr;
    if (s != nullptr) throw UsageError("option --" + s->name + " needs a value (" + s->value_name + ")");
    throw UsageError(what);
  } catch (const CLI::ValidationError& error) {
    // CLI11 puts the option's name first ("--verbose: ", ": " for the nameless one); the variable says it.
    const std::string what = error.what();
    const std::size_t variable = what.find(": " + std::string(kVerboseVariable) + "='");
    const bool verbose =
        variable != std::string::npos && (variable == 0 || what.substr(0, variable) == "--" + std::string(kVerbose));
    throw UsageError(verbose ? what.substr(variable + 2) : what);
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.starts_with("--") && extra.size() > 2)
      throw UsageError("unknown option '" + extra.substr(0, extra.find('=')) + "' (see --help)");
    throw UsageError("unexpected argument '" + extra + "' (options start with --; see --help)");
  }
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    Spec* s = &specs_[i];
    const CLI::Option* o = declared[i];
    if (s->is_flag) continue;
    // A default goes through the same validators (as<> applies them to default_str).
    try {
      if (s->seen || s->default_value) s->checked = o->as<std::vector<std::string>>();
    } catch (const CLI::ParseError& error) {
      throw UsageError(error.what());
    }
  }
  if (version->count() > 0) {
    answer_ = this->version();
    return false;
  }
  show_config_ = show_config->count() > 0;
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

const std::vector<std::string>& Options::values(std::string_view name) const {
  const Spec& s = spec(name);
  if (!s.given && !s.default_value) throw UsageError("missing required option --" + s.name);
  return s.checked;
}

long long Options::integer(std::string_view name) const {
  assert((spec(name).integer_range || spec(name).suffixes) && "integer() of an option declared without range()");
  return std::stoll(values(name).front());  // the decimal text integer_in_range made
}

double Options::real(std::string_view name) const {
  assert(spec(name).real_range && "real() of an option declared without real_range() or number()");
  return *read_real(values(name).front());  // checked by real_in_range
}

std::vector<long long> Options::integers(std::string_view name) const {
  std::vector<long long> result;
  for (const std::string& item : values(name)) result.push_back(std::stoll(item));
  return result;
}

std::vector<int> Options::geometry(std::string_view name, int dimensions) const {
  return parse_geometry("--" + std::string(name), value(name), dimensions);
}

bool Options::verbose() const {
  return verbose_option_ != nullptr && verbose_option_->count() > 0 && verbose_option_->as<bool>();
}

std::string Options::show_config() const {
  assert(app_ != nullptr && "show_config() before parse()");
  std::vector<std::array<std::string, 3>> rows;  // the environment's: variable, value, source
  const auto settings = proxy_and_omp_settings();
  auto set_in_environment = [&](std::string_view name) {
    return std::find_if(settings.begin(), settings.end(), [&](const auto& kv) { return kv.first == name; });
  };
  for (const EnvironmentVariable& v : proxy_environment_variables()) {
    const auto it = set_in_environment(v.name);
    rows.push_back({std::string(v.name), it != settings.end() ? it->second : std::string(v.default_value),
                    it != settings.end() ? "environment" : "default"});
  }
  auto decided = [&](std::string_view name) {
    return std::find_if(effective_.begin(), effective_.end(), [&](const auto& row) { return row[0] == name; });
  };
  for (const auto& [name, value] : settings) {
    const auto& known = proxy_environment_variables();
    if (decided(name) != effective_.end()) continue;
    if (std::none_of(known.begin(), known.end(), [&](const auto& v) { return v.name == name; }))
      rows.push_back(
          {name, value, name.starts_with("PROXY_") ? "environment (unknown to this version)" : "environment"});
  }
  for (const auto& row : effective_) rows.push_back(row);
  auto source = [this](const CLI::Option& option) -> std::string {
    const Spec* s = find(option.get_single_name());
    if (s != nullptr && s->seen) return "option";
    if (&option == verbose_option_ && option.count() > 0) return "environment (" + std::string(kVerboseVariable) + ")";
    return "default";
  };
  const std::string title = program_ + ": effective configuration (setting, value, source)\n";
  app_->config_formatter(std::make_shared<ConfigTable>(title, source, std::move(rows)));
  return app_->config_to_str(/*default_also=*/true);
}

std::string Options::version() const { return program_ + " (proxy) " + PROXY_VERSION_STRING + "\n"; }

std::string Options::help() const {
  CLI::App app(summary_, program_);
  auto formatter = std::make_shared<HelpFormatter>();
  std::size_t width = 4 + kShowConfig.size();  // "  --show-config", the longest built-in
  for (const Spec& s : specs_) width = std::max(width, 4 + s.name.size() + (s.is_flag ? 0 : 1 + s.value_name.size()));
  formatter->column_width(width + 2);
  app.formatter(formatter);
  app.set_help_flag("-h,--help", "print this help and exit");
  for (const Spec& s : specs_) {
    const std::string text = help_text(s.help, s.default_value);
    if (s.is_flag) {
      app.add_flag("--" + s.name)->description(text);
    } else {
      app.add_option("--" + s.name, text)->type_name(s.value_name);
    }
  }
  app.add_flag("--" + std::string(kVersion))
      ->description("print \"" + program_ + " (proxy) " + PROXY_VERSION_STRING + "\" and exit");
  app.add_flag("--" + std::string(kShowConfig))
      ->description("print every effective setting (options, PROXY_*, OMP_*) with its source and exit");
  std::string footer = "Options take their value as '--key value' or '--key=value'; lists are comma-separated;\n"
                       "sizes (grid points, matrix orders and panel widths, bytes) take K, M, G (powers of 1024);\n"
                       "counts (iterations, repetitions, ranks, threads) are plain decimal integers.\n";
  if (!epilog_.empty()) footer += "\n" + epilog_ + (epilog_.ends_with('\n') ? "" : "\n");
  footer += "\n" + environment_help();
  app.footer(footer);
  return app.help();
}

}  // namespace apps

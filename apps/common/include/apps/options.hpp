// Command-line options of a program in the one vocabulary (README "Command-line conventions"): declared
// once (name, value name, help, default), parsed by CLI11 from argv as "--key value" or "--key=value",
// printed as --help text with the shared PROXY_* footer. Every program gets --help, --version ("NAME
// (proxy) X.Y.Z") and --show-config (every effective setting with its source). An option's constraints
// are declared with it (range, suffixes, one_of, list) and checked by CLI11 validators while parsing
// (ours for numbers, CLI::IsMember, delimiter ','), defaults included, so a bad value fails
// at parse() as one UsageError naming the option and the value ("--iters: Value 0 not in range 1 to
// 1073741823"). Unknown options, missing values, repeated options and stray arguments throw UsageError
// naming them. PROXY_VERBOSE is --verbose's environment name (CLI11's envname; every program honours it,
// declared --verbose or not), 0 or 1 like the runtime's PROXY_BIND. --show-config's table is CLI11's config
// output (config_to_str) through a formatter of ours that adds each setting's source. Plain object: use it
// from one thread; a copy shares the parsed options.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace apps {

class Options {
 public:
  // program: the program's name ("redblack3d"); summary: one line saying what it does.
  Options(std::string program, std::string summary);

  // An option taking a value. Without a default the option is absent unless given (see given()).
  Options& option(std::string name, std::string value_name, std::string help,
                  std::optional<std::string> default_value = std::nullopt);
  // Constraints of the option declared last, checked for each value (each item of a list):
  // An integer in [min, max], decimal ("0x10" is refused, "010" is 10), read as it was checked.
  Options& range(long long min, long long max);
  Options& real_range(double min, double max);   // a finite number in [min, max], as strtod reads it
  Options& number();                             // any finite number
  // An integer with an optional suffix K, M or G (CLI::AsSizeValue's units, powers of 1024): "--size 4K" is
  // 4096.
  Options& suffixes();
  Options& one_of(std::vector<std::string> choices);  // CLI::IsMember
  Options& list();                                    // comma-separated values (CLI11's delimiter)
  // Every rank of a run must be given the same value of an option (apps::parse_agreed refuses a launch that
  // gives ranks different ones: two grids whose faces happen to match computed an inconsistent problem and
  // reported it converged), except one declared per_rank(): a count of iterations or repetitions, whose
  // mismatch the run itself ends with the wait timeout's diagnostic (tests/app_faults provokes it so).
  Options& per_rank();

  // A switch without a value ("--verify").
  Options& flag(std::string name, std::string help);
  // A hidden old spelling of a declared option ("iterations" for "iters"): accepted, not listed in --help.
  Options& alias(std::string old_name, std::string name);
  // Free text appended to --help (examples, output format notes), before the shared footer.
  Options& epilog(std::string text);
  // A variable whose value in effect the program decided (OMP_NUM_THREADS when the mode and --threads size
  // the teams): --show-config shows `value` and `source` in its row instead of the environment's.
  Options& effective(std::string variable, std::string value, std::string source);

  // Parses argv[1..argc) and PROXY_VERBOSE. Returns false when --help (-h) or --version was given: print
  // answer() on rank 0 and exit 0. Throws UsageError for an unknown option, a missing value, a value given
  // to a flag, an option given twice, a stray argument, or PROXY_VERBOSE other than 0 or 1.
  bool parse(int argc, const char* const* argv);
  const std::string& answer() const noexcept { return answer_; }  // the help or version text

  bool given(std::string_view name) const;           // on the command line
  bool has(std::string_view name) const;             // given or defaulted
  bool flag_set(std::string_view name) const;        // a flag that was given
  // The value as written (given or default); throws UsageError "missing required option --name" when
  // there is none.
  const std::string& value(std::string_view name) const;

  // The checked values (suffixes applied, a list split), as declared; the same UsageError when there is none.
  const std::vector<std::string>& values(std::string_view name) const;
  long long integer(std::string_view name) const;  // declared with range()
  double real(std::string_view name) const;        // declared with real_range() or number()
  std::vector<long long> integers(std::string_view name) const;  // a list() of integers
  // A process geometry ("2x2x1", apps/parse.hpp): CLI11 has no validator for it.
  std::vector<int> geometry(std::string_view name, int dimensions) const;

  // --verbose given (when declared), else PROXY_VERBOSE=1 when parsed.
  bool verbose() const;
  // --show-config given: the program validates its settings, prints show_config() on rank 0, exits 0.
  bool show_config_requested() const noexcept { return show_config_; }
  // Every option (its checked value, suffixes applied, and source: default, option, or environment
  // (PROXY_VERBOSE) for --verbose) and every PROXY_* / OMP_* variable (value and source: default,
  // environment), one per line, in the order --help lists them.
  std::string show_config() const;

  // The line "program NAME", then one line "--name VALUES" per option every rank must agree on (not per_rank(), not
  // --verbose), the checked values ("not given" for an option without a default), a flag as "given" or "not
  // given", and the built-in --show-config: what parse_agreed compares across ranks.
  std::string agreed_values() const;
  static constexpr std::string_view kProgramLine = "program ";

  const std::string& program() const noexcept { return program_; }
  std::string help() const;
  std::string version() const;

 private:
  struct Spec {
    std::string name;
    std::string value_name;  // empty for a flag
    std::string help;
    std::optional<std::string> default_value;
    std::optional<std::string> given;
    bool is_flag = false;
    bool seen = false;  // on the command line
    // Constraints, applied to CLI11's option by parse().
    std::optional<std::pair<long long, long long>> integer_range;
    std::optional<std::pair<double, double>> real_range;
    bool suffixes = false;
    bool list = false;
    bool per_rank = false;
    std::vector<std::string> choices;
    std::vector<std::string> checked;  // the values after CLI11's validators
  };
  Spec& last();
  Spec* find(std::string_view name);
  const Spec* find(std::string_view name) const;
  const Spec& spec(std::string_view name) const;
  // argv with old spellings renamed; throws for a value given to a flag ("--verify=yes") and for an
  // option given twice (CLI11 cannot tell two --sizes from one list of two).
  // Records each option's text as written (Spec::given) and that it was there (Spec::seen).
  std::vector<std::string> normalised(int argc, const char* const* argv);

  std::string program_;
  std::string summary_;
  std::string epilog_;
  std::string answer_;
  bool show_config_ = false;
  std::vector<Spec> specs_;
  std::vector<std::pair<std::string, std::string>> aliases_;  // old name, declared name
  std::vector<std::array<std::string, 3>> effective_;          // variable, value, source
  // Set by parse(): the parsed options and the one PROXY_VERBOSE sets (--verbose, or a nameless option of
  // that variable alone).
  std::shared_ptr<CLI::App> app_;
  CLI::Option* verbose_option_ = nullptr;
};

}  // namespace apps

// Command-line options of a program in the one vocabulary (README "Command-line conventions"): declared
// once (name, value name, help, default), parsed by CLI11 from argv as "--key value" or "--key=value",
// printed as --help text with the shared PROXY_* footer. Every program gets --help, --version ("NAME
// (proxy) X.Y.Z") and --show-config (every effective setting with its source). Unknown options, missing
// values and stray arguments throw apps::UsageError naming them. Typed getters parse through
// apps/parse.hpp (sizes take K/M/G, lists commas) so their errors name the option and the bad value.
// Plain object: use it from one thread.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apps {

class Options {
 public:
  // program: the program's name ("redblack3d"); summary: one line saying what it does.
  Options(std::string program, std::string summary);

  // An option taking a value. Without a default the option is absent unless given (see given()).
  Options& option(std::string name, std::string value_name, std::string help,
                  std::optional<std::string> default_value = std::nullopt);
  // A switch without a value ("--verify").
  Options& flag(std::string name, std::string help);
  // A hidden old spelling of a declared option ("iterations" for "iters"): accepted, not listed in --help.
  Options& alias(std::string old_name, std::string name);
  // Free text appended to --help (examples, output format notes), before the shared footer.
  Options& epilog(std::string text);
  // A variable whose value in effect the program decided (OMP_NUM_THREADS when the mode and --threads size
  // the teams): --show-config shows `value` and `source` in its row instead of the environment's.
  Options& effective(std::string variable, std::string value, std::string source);

  // Parses argv[1..argc). Returns false when --help (-h) or --version was given: print answer() on rank
  // 0 and exit 0. Throws UsageError for an unknown option, a missing value, a value given to a flag, an
  // option given twice, or a stray argument.
  bool parse(int argc, const char* const* argv);
  const std::string& answer() const noexcept { return answer_; }  // the help or version text

  bool given(std::string_view name) const;           // on the command line
  bool has(std::string_view name) const;             // given or defaulted
  bool flag_set(std::string_view name) const;        // a flag that was given
  // The value (given or default); throws UsageError "missing required option --name" when there is none.
  const std::string& value(std::string_view name) const;

  // Typed getters: "--name must be at least 1, got '0'" and the like.
  long long integer(std::string_view name, long long min = -(1LL << 62), long long max = (1LL << 62)) const;
  double real(std::string_view name, double min = -1e300, double max = 1e300) const;
  std::size_t size(std::string_view name) const;
  // An integer count with an optional K/M/G suffix (powers of 1024), in [min, max].
  long long count(std::string_view name, long long min = 0, long long max = (1LL << 62)) const;
  std::vector<int> geometry(std::string_view name, int dimensions) const;
  std::string choice(std::string_view name, const std::vector<std::string>& choices) const;

  // --verbose given (when declared) or PROXY_VERBOSE set to anything but 0.
  bool verbose() const;
  // --show-config given: the program validates its settings, prints show_config() on rank 0, exits 0.
  bool show_config_requested() const noexcept { return show_config_; }
  // Every option (value and source: default, option) and every PROXY_* / OMP_* variable (value and source:
  // default, environment), one per line, in the order --help lists them.
  std::string show_config() const;

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
    bool seen = false;
  };
  Spec* find(std::string_view name);
  const Spec* find(std::string_view name) const;
  const Spec& spec(std::string_view name) const;
  // argv with old spellings renamed; throws for a value given to a flag ("--verify=yes").
  std::vector<std::string> normalised(int argc, const char* const* argv) const;

  std::string program_;
  std::string summary_;
  std::string epilog_;
  std::string answer_;
  bool show_config_ = false;
  std::vector<Spec> specs_;
  std::vector<std::pair<std::string, std::string>> aliases_;  // old name, declared name
  std::vector<std::array<std::string, 3>> effective_;          // variable, value, source
};

}  // namespace apps

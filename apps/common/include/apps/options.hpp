// Command-line options of a driver: declared once (name, value name, help, default), parsed from argv
// as "--key value" or "--key=value", and printed as --help text. Unknown options, missing values and
// stray arguments throw apps::UsageError naming them. Typed getters parse through apps/parse.hpp so their
// errors name the option and the bad value. Plain object: use it from one thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apps {

class Options {
 public:
  // program: the driver's name ("redblack3d"); summary: one line saying what it does.
  Options(std::string program, std::string summary);

  // An option taking a value. Without a default the option is absent unless given (see given()).
  Options& option(std::string name, std::string value_name, std::string help,
                  std::optional<std::string> default_value = std::nullopt);
  // A switch without a value ("--verify").
  Options& flag(std::string name, std::string help);
  // Free text appended to --help (examples, output format notes).
  Options& epilog(std::string text);

  // Parses argv[1..argc). Returns false when --help (or -h) was given: print help() on rank 0, exit 0.
  // Throws UsageError for an unknown option, a missing value, a value given to a flag, or a stray argument.
  bool parse(int argc, const char* const* argv);

  bool given(std::string_view name) const;           // on the command line
  bool has(std::string_view name) const;             // given or defaulted
  bool flag_set(std::string_view name) const;        // a flag that was given
  // The value (given or default); throws UsageError "missing required option --name" when there is none.
  const std::string& value(std::string_view name) const;

  // Typed getters: "--name must be at least 1, got '0'" and the like.
  long long integer(std::string_view name, long long min = -(1LL << 62), long long max = (1LL << 62)) const;
  double real(std::string_view name, double min = -1e300, double max = 1e300) const;
  std::size_t size(std::string_view name) const;
  std::vector<int> geometry(std::string_view name, int dimensions) const;
  std::string choice(std::string_view name, const std::vector<std::string>& choices) const;

  const std::string& program() const noexcept { return program_; }
  std::string help() const;

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
  const Spec& spec(std::string_view name) const;

  std::string program_;
  std::string summary_;
  std::string epilog_;
  std::vector<Spec> specs_;
};

}  // namespace apps

// The display reporter of a Google Benchmark program that adds its own summary after the runs (a ratio
// table) without breaking --benchmark_format: the runs go to the reporter the format names (console,
// json or csv, as Google Benchmark would pick), and the summary to stdout only in console format and to
// stderr otherwise, so `--benchmark_format=json > out.json` stays valid JSON. --benchmark_out=FILE is
// Google Benchmark's own file reporter and unaffected. Main thread (Google Benchmark reports from it).
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// The last --benchmark_<name>=VALUE in argv, or `fallback`. Read before benchmark::Initialize, which
// removes the flags it knows.
inline std::string benchmark_flag(int argc, char** argv, std::string_view name, std::string fallback) {
  const std::string prefix = "--benchmark_" + std::string(name) + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(prefix)) fallback = std::string(arg.substr(prefix.size()));
  }
  return fallback;
}

// Splits argv into Google Benchmark's flags (--benchmark_*, --v=) and the program's own options; both
// lists start with argv[0], ready for apps::Options::parse and benchmark::Initialize.
inline void split_arguments(int argc, char** argv, std::vector<char*>& ours, std::vector<char*>& theirs) {
  ours = {argv[0]};
  theirs = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    (arg.starts_with("--benchmark_") || arg.starts_with("--v=") ? theirs : ours).push_back(argv[i]);
  }
}

class FormatReporter : public benchmark::BenchmarkReporter {
 public:
  // format: "console", "json" or "csv"; color: "auto", "true", "false" (--benchmark_color).
  FormatReporter(const std::string& format, const std::string& color) : console_(format == "console") {
    if (format == "json") {
      inner_ = std::make_unique<benchmark::JSONReporter>();
    } else if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // still Google Benchmark's own csv format
      inner_ = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    } else {
      const bool colored = color == "true" || color == "yes" || color == "1" || (color == "auto" && isatty(STDOUT_FILENO));
      inner_ = std::make_unique<benchmark::ConsoleReporter>(colored ? benchmark::ConsoleReporter::OO_ColorTabular
                                                                    : benchmark::ConsoleReporter::OO_Tabular);
    }
  }

  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override { inner_->ReportRuns(runs); }
  void Finalize() override {
    inner_->Finalize();
    std::fflush(stdout);
  }

 protected:
  // Where the program's own summary goes: stdout beside console output, stderr beside JSON or CSV.
  std::FILE* summary_stream() const noexcept { return console_ ? stdout : stderr; }

 private:
  bool console_;
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
};

}  // namespace bench

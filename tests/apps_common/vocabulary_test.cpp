// The one vocabulary (README "Command-line conventions") as apps::Options implements it, and the
// provenance fields of run records (apps/provenance.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <proxy/version.hpp>

#include "apps/common.hpp"
#include "apps/environment_variables.hpp"
#include "apps/provenance.hpp"

#include "usage_error_of.hpp"

namespace {

apps::Options sample() {
  apps::Options options("tool", "does things");
  options.option("iters", "K", "iterations", "10")
      .range(1, 100)
      .option("size", "N", "order", "1K")
      .suffixes()
      .range(1, 1LL << 40)
      .flag("verbose", "talk");
  options.alias("iterations", "iters");
  return options;
}

bool parse(apps::Options& options, std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  return options.parse(static_cast<int>(args.size()), args.data());
}

TEST(Vocabulary, VersionNamesProgramAndProject) {
  auto options = sample();
  EXPECT_FALSE(parse(options, {"--version"}));
  EXPECT_EQ(options.answer(), std::string("tool (proxy) ") + PROXY_VERSION_STRING + "\n");
}

TEST(Vocabulary, HelpListsDefaultsBuiltinsAndEveryProxyVariable) {
  auto options = sample();
  EXPECT_FALSE(parse(options, {"-h"}));
  const std::string& help = options.answer();
  for (const char* text : {"--iters K", "iterations (default: 10)", "-h, --help", "--version", "--show-config",
                           "'--key=value'", "Exit status: 0 success, 1 run-time failure, 2 usage error"})
    EXPECT_NE(help.find(text), std::string::npos) << text;
  EXPECT_EQ(help.find("--iterations"), std::string::npos) << "aliases are hidden";
  for (const auto& v : apps::proxy_environment_variables())
    EXPECT_NE(help.find(std::string(v.name)), std::string::npos) << v.name;
}

TEST(Vocabulary, AliasesSuffixesAndEqualsSpelling) {
  auto options = sample();
  ASSERT_TRUE(parse(options, {"--iterations=7", "--size", "2K"}));
  EXPECT_EQ(options.integer("iters"), 7);
  EXPECT_EQ(options.integer("size"), 2048);
  EXPECT_EQ(options.value("size"), "2K");  // as written, for messages and records
  auto mega = sample();
  ASSERT_TRUE(parse(mega, {"--size=3M"}));
  EXPECT_EQ(mega.integer("size"), 3LL << 20);
  auto bad = sample();
  EXPECT_EQ(usage_error_of([&] { parse(bad, {"--size", "12abc"}); }),
            "--size: expected an integer (suffixes K, M, G allowed), got '12abc'");
  auto large = sample();
  EXPECT_EQ(usage_error_of([&] { parse(large, {"--size", "2048G"}); }),
            "--size: Value 2199023255552 not in range 1 to 1099511627776 (given as '2048G')");
  auto twice = sample();
  EXPECT_EQ(usage_error_of([&] { parse(twice, {"--iters", "1", "--iterations", "2"}); }), "option --iters given twice");
  auto negative = sample();  // a value that looks like an option is still the value, refused by its range
  EXPECT_EQ(usage_error_of([&] { parse(negative, {"--iters", "-3"}); }), "--iters: Value -3 not in range 1 to 100");
}

// The row of `setting` in a --show-config table, or "" when there is none.
std::string row_of(const std::string& config, const std::string& setting) {
  for (std::size_t at = config.find("\n  " + setting + " "); at != std::string::npos;
       at = config.find("\n  " + setting + " ", at + 1)) {
    return config.substr(at + 1, config.find('\n', at + 1) - at - 1);
  }
  return "";
}

// "  SETTING  VALUE  SOURCE" with any spacing between the columns.
bool has_row(const std::string& config, const std::string& setting, const std::string& value,
             const std::string& source) {
  const std::string row = row_of(config, setting);
  const std::size_t value_at = row.find_first_not_of(' ', 2 + setting.size());
  if (value_at == std::string::npos || row.compare(value_at, value.size(), value) != 0) return false;
  const std::size_t source_at = row.find_first_not_of(' ', value_at + value.size());
  return source_at > value_at + value.size() && row.substr(source_at) == source;
}

TEST(Vocabulary, ShowConfigNamesEverySourceAndTheCheckedValues) {
  ::setenv("PROXY_SPIN_COUNT", "77", 1);
  ::setenv("OMP_NUM_THREADS", "3", 1);
  ::unsetenv("PROXY_VERBOSE");
  auto options = sample();
  ASSERT_TRUE(parse(options, {"--iters=5", "--show-config"}));
  EXPECT_TRUE(options.show_config_requested());
  EXPECT_FALSE(options.verbose());
  const std::string config = options.show_config();
  EXPECT_TRUE(config.starts_with("tool: effective configuration (setting, value, source)\n")) << config;
  EXPECT_TRUE(has_row(config, "--iters", "5", "option")) << config;
  EXPECT_TRUE(has_row(config, "--size", "1024", "default")) << config;  // the default's suffix applied
  EXPECT_TRUE(has_row(config, "--verbose", "false", "default")) << config;
  EXPECT_TRUE(has_row(config, "PROXY_SPIN_COUNT", "77", "environment")) << config;
  EXPECT_TRUE(has_row(config, "PROXY_WAIT_TIMEOUT", "120", "default")) << config;
  EXPECT_TRUE(has_row(config, "PROXY_VERBOSE", "0", "default")) << config;
  EXPECT_TRUE(has_row(config, "OMP_NUM_THREADS", "3", "environment")) << config;
  for (const char* builtin : {"--version", "--show-config", "--help", "--iterations"})
    EXPECT_EQ(row_of(config, builtin), "") << builtin;
  auto sized = sample();
  ASSERT_TRUE(parse(sized, {"--size=2K"}));
  EXPECT_TRUE(has_row(sized.show_config(), "--size", "2048", "option")) << sized.show_config();
  ::unsetenv("PROXY_SPIN_COUNT");
  ::unsetenv("OMP_NUM_THREADS");
}

TEST(Vocabulary, ProxyVerboseIsVerbosesEnvironmentNameZeroOrOne) {
  ::setenv("PROXY_VERBOSE", "1", 1);
  auto on = sample();
  ASSERT_TRUE(parse(on, {}));
  EXPECT_TRUE(on.verbose());
  EXPECT_FALSE(on.flag_set("verbose")) << "set by the environment, not on the command line";
  EXPECT_TRUE(has_row(on.show_config(), "--verbose", "true", "environment (PROXY_VERBOSE)")) << on.show_config();
  EXPECT_TRUE(has_row(on.show_config(), "PROXY_VERBOSE", "1", "environment")) << on.show_config();
  ::setenv("PROXY_VERBOSE", "0", 1);
  auto off = sample();
  ASSERT_TRUE(parse(off, {}));
  EXPECT_FALSE(off.verbose());
  EXPECT_TRUE(has_row(off.show_config(), "--verbose", "false", "environment (PROXY_VERBOSE)")) << off.show_config();
  auto given = sample();  // the command line wins
  ASSERT_TRUE(parse(given, {"--verbose"}));
  EXPECT_TRUE(given.verbose());
  EXPECT_TRUE(has_row(given.show_config(), "--verbose", "true", "option")) << given.show_config();
  // A program without --verbose honours the variable too, and lists no --verbose row.
  apps::Options quiet("bench", "measures");
  quiet.option("reps", "R", "repetitions", "3").range(1, 9);
  ::setenv("PROXY_VERBOSE", "1", 1);
  ASSERT_TRUE(parse(quiet, {}));
  EXPECT_TRUE(quiet.verbose());
  EXPECT_EQ(row_of(quiet.show_config(), "--verbose"), "") << quiet.show_config();
  for (const char* text : {"yes", "2", "-1", "true"}) {
    ::setenv("PROXY_VERBOSE", text, 1);
    const std::string expected = std::string("PROXY_VERBOSE='") + text + "' is not an integer from 0 to 1";
    auto declared = sample();
    EXPECT_EQ(usage_error_of([&] { parse(declared, {}); }), expected);
    apps::Options undeclared("bench", "measures");
    EXPECT_EQ(usage_error_of([&] { parse(undeclared, {}); }), expected);
  }
  ::setenv("PROXY_VERBOSE", "", 1);  // empty is unset, as for every PROXY_* variable
  auto empty = sample();
  ASSERT_TRUE(parse(empty, {}));
  EXPECT_FALSE(empty.verbose());
  ::unsetenv("PROXY_VERBOSE");
}

TEST(Provenance, RecordsCarryEveryFieldNestedInJsonAndFlatInCsv) {
  ::setenv("PROXY_WAIT_POLICY", "block", 1);
  apps::Provenance p;
  p.time_utc = "2026-11-23T12:30:05Z";
  p.host = "h";
  p.argv = {"redblack3d", "--n", "a \"b\""};
  p.commit = "abc-dirty";
  p.build_type = "Release";
  p.build_flags = "-O3 -DNDEBUG";
  p.compiler = "GCC 12";
  p.mpi = "MPICH 4.0.2";
  p.hwloc = "2.9.0";
  p.blas = "none";
  p.os = "Linux 6.1 x86_64";
  p.cpu_model = "CPU";
  p.cores = 8;
  p.cpus_bound = 2;
  p.env = {{"OMP_NUM_THREADS", "2"}, {"PROXY_WAIT_POLICY", "block"}};
  p.load_1m = 0.5;
  p.placement = "proxy core 1";
  apps::RunRecord record;
  record.set("mode", "sync").set_provenance(p);
  EXPECT_EQ(record.json(),
            "{\"mode\":\"sync\",\"provenance\":{\"time_utc\":\"2026-11-23T12:30:05Z\",\"host\":\"h\",\"argv\":"
            "[\"redblack3d\", \"--n\", \"a \\\"b\\\"\"],\"commit\":\"abc-dirty\",\"build_type\":\"Release\","
            "\"build_flags\":\"-O3 -DNDEBUG\",\"compiler\":\"GCC 12\",\"mpi\":\"MPICH 4.0.2\",\"hwloc\":\"2.9.0\","
            "\"blas\":\"none\",\"os\":\"Linux 6.1 x86_64\",\"cpu_model\":\"CPU\",\"cores\":8,\"cpus_bound\":2,"
            "\"env\":{\"OMP_NUM_THREADS\": \"2\", \"PROXY_WAIT_POLICY\": \"block\"},\"load_1m\":0.5,"
            "\"placement\":\"proxy core 1\"}}");
  EXPECT_EQ(record.csv_header(),
            "mode,prov_time_utc,prov_host,prov_argv,prov_commit,prov_build_type,prov_build_flags,prov_compiler,"
            "prov_mpi,prov_hwloc,prov_blas,prov_os,prov_cpu_model,prov_cores,prov_cpus_bound,prov_env,prov_load_1m,"
            "prov_placement");
  EXPECT_EQ(record.csv_row(),
            "sync,2026-11-23T12:30:05Z,h,\"[\"\"redblack3d\"\", \"\"--n\"\", \"\"a \\\"\"b\\\"\"\"\"]\",abc-dirty,"
            "Release,-O3 -DNDEBUG,GCC 12,MPICH 4.0.2,2.9.0,none,Linux 6.1 x86_64,CPU,8,2,"
            "\"{\"\"OMP_NUM_THREADS\"\": \"\"2\"\", \"\"PROXY_WAIT_POLICY\"\": \"\"block\"\"}\",0.5,proxy core 1");
  p.load_1m.reset();
  EXPECT_NE(p.json().find("\"load_1m\":null,"), std::string::npos) << p.json();
  const char* argv[] = {"program", "--flag"};
  const apps::Provenance live = apps::collect_provenance(2, argv);
  EXPECT_EQ(live.time_utc.size(), 20u);
  EXPECT_FALSE(live.host.empty());
  EXPECT_EQ(live.argv, (std::vector<std::string>{"program", "--flag"}));
  EXPECT_FALSE(live.commit.empty());
  EXPECT_NE(live.compiler.find(__VERSION__), std::string::npos);
  EXPECT_TRUE(live.mpi.starts_with("MPICH ") || live.mpi.starts_with("Open MPI ")) << live.mpi;
  EXPECT_EQ(live.blas, "none");  // this test links no BLAS
  EXPECT_GE(live.cores, 1);
  EXPECT_GE(live.cpus_bound, 1);
  EXPECT_NE(live.cpu_model, "");
  bool found = false;
  for (const auto& [name, value] : live.env) found = found || (name == "PROXY_WAIT_POLICY" && value == "block");
  EXPECT_TRUE(found);
  ::unsetenv("PROXY_WAIT_POLICY");
}

}  // namespace

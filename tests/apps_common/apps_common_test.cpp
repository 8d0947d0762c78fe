// Unit tests of the drivers' shared support (apps/common): option parsing, value parsing with errors that
// name the bad value, run records in CSV and JSON Lines, the ideal-proxy model and the timing table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/common.hpp"

#include "usage_error_of.hpp"

namespace {

apps::Options sample_options() {
  apps::Options options("tool", "does things");
  options.option("n", "N", "grid size", "16")
      .range(1, 1 << 20)
      .option("mode", "MODE", "sync or proxy")
      .one_of({"sync", "proxy"})
      .flag("verify", "check it");
  return options;
}

// The constraints of every kind, each checked by CLI11 while parsing.
apps::Options constrained_options() {
  apps::Options options("tool", "checks things");
  options.option("iters", "K", "iterations", "5")
      .range(1, 8)
      .option("omega", "W", "factor", "1")
      .real_range(0.0, 2.0)
      .option("tol", "T", "tolerance", "1e-8")
      .number()
      .option("bytes", "B", "size", "4K")
      .suffixes()
      .range(1, 1 << 30)
      .option("modes", "LIST", "modes", "sync")
      .list()
      .one_of({"sync", "async", "proxy"})
      .option("n", "LIST", "orders", "64,32,16")
      .list()
      .suffixes()
      .range(1, 1 << 20)
      .option("geometry", "PXxPYxPZ", "ranks per axis", "2x1X3");
  return options;
}

std::string refusal(std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  return usage_error_of([&] { constrained_options().parse(static_cast<int>(args.size()), args.data()); });
}

TEST(AppsOptions, ParsesBothSpellingsAndDefaults) {
  auto options = sample_options();
  const char* argv[] = {"tool", "--n=32", "--mode", "proxy", "--verify"};
  ASSERT_TRUE(options.parse(5, argv));
  EXPECT_EQ(options.integer("n"), 32);
  EXPECT_EQ(options.value("mode"), "proxy");
  EXPECT_TRUE(options.flag_set("verify"));
  auto defaults = sample_options();
  const char* none[] = {"tool"};
  ASSERT_TRUE(defaults.parse(1, none));
  EXPECT_EQ(defaults.integer("n"), 16);
  EXPECT_FALSE(defaults.given("n"));
  EXPECT_FALSE(defaults.has("mode"));
  EXPECT_EQ(usage_error_of([&] { defaults.value("mode"); }), "missing required option --mode");
}

TEST(AppsOptions, HelpStopsParsingAndListsEveryOption) {
  auto options = sample_options();
  const char* argv[] = {"tool", "--n", "4", "--help", "--bogus"};
  EXPECT_FALSE(options.parse(5, argv));
  const std::string help = options.help();
  for (const char* text : {"usage: tool", "--n N", "grid size (default: 16)", "--mode MODE", "--verify", "--help"}) {
    EXPECT_NE(help.find(text), std::string::npos) << text;
  }
}

TEST(AppsOptions, BadCommandLinesNameTheCulprit) {
  auto bad = [](std::vector<const char*> args) {
    args.insert(args.begin(), "tool");
    return usage_error_of([&] { sample_options().parse(static_cast<int>(args.size()), args.data()); });
  };
  EXPECT_EQ(bad({"--nn", "3"}), "unknown option '--nn' (see --help)");
  EXPECT_EQ(bad({"--n"}), "option --n needs a value (N)");
  EXPECT_EQ(bad({"--verify=yes"}), "option --verify takes no value, got 'yes'");
  EXPECT_EQ(bad({"--help=x"}), "option --help takes no value, got 'x'");  // CLI11 printed the help
  EXPECT_EQ(bad({"-h="}), "option -h takes no value, got ''");
  EXPECT_EQ(bad({"--n=", "8"}), "option --n needs a value after '=' (N)");  // not 8: the next word is no value
  EXPECT_EQ(bad({"--n="}), "option --n needs a value after '=' (N)");
  EXPECT_EQ(bad({"stray"}), "unexpected argument 'stray' (options start with --; see --help)");
  EXPECT_EQ(bad({"--n", "1", "--n", "2"}), "option --n given twice");
  EXPECT_EQ(bad({"--n", "0"}), "--n: Value 0 not in range 1 to 1048576");
  EXPECT_EQ(bad({"--mode", "fast"}), "--mode: fast not in {sync,proxy}");
}

TEST(AppsOptions, DefaultsGoThroughTheValidators) {
  auto options = constrained_options();
  const char* none[] = {"tool"};
  ASSERT_TRUE(options.parse(1, none));
  EXPECT_EQ(options.integer("iters"), 5);
  EXPECT_EQ(options.integer("bytes"), 4096);
  EXPECT_EQ(options.integers("n"), (std::vector<long long>{64, 32, 16}));
  EXPECT_EQ(options.values("modes"), (std::vector<std::string>{"sync"}));
  EXPECT_DOUBLE_EQ(options.real("tol"), 1e-8);
  EXPECT_EQ(options.geometry("geometry", 3), (std::vector<int>{2, 1, 3}));
}

TEST(AppsOptions, RangesAtTheirBoundsAndBeyond) {
  auto options = constrained_options();
  const char* argv[] = {"tool", "--iters=+8", "--omega", "2", "--tol", "-1", "--bytes", "1G"};
  ASSERT_TRUE(options.parse(8, argv));
  EXPECT_EQ(options.integer("iters"), 8);
  EXPECT_DOUBLE_EQ(options.real("omega"), 2.0);
  EXPECT_DOUBLE_EQ(options.real("tol"), -1.0);  // any finite number: the program checks its sign
  EXPECT_EQ(options.integer("bytes"), 1 << 30);
  EXPECT_EQ(refusal({"--iters", "0"}), "--iters: Value 0 not in range 1 to 8");
  EXPECT_EQ(refusal({"--iters", "9"}), "--iters: Value 9 not in range 1 to 8");
  EXPECT_EQ(refusal({"--iters", "3x"}), "--iters: expected an integer, got '3x'");
  EXPECT_EQ(refusal({"--iters", "99999999999999999999"}), "--iters: Value 99999999999999999999 not in range 1 to 8");
  EXPECT_EQ(refusal({"--omega", "2.5"}), "--omega: Value 2.5 not in range 0 to 2");
  EXPECT_EQ(refusal({"--omega", "nan"}), "--omega: expected a finite number, got 'nan'");
  EXPECT_EQ(refusal({"--tol", "x"}), "--tol: expected a finite number, got 'x'");
  EXPECT_EQ(refusal({"--tol", "1e400"}), "--tol: expected a finite number, got '1e400'");
  EXPECT_EQ(refusal({"--tol", ""}), "--tol: expected a finite number, got ''");  // not 0
  EXPECT_EQ(refusal({"--tol", "0x1p-20"}), "--tol: expected a finite number, got '0x1p-20'");  // strtod took it
  EXPECT_EQ(refusal({"--tol", "  "}), "--tol: expected a finite number, got '  '");
  // Blanks around a number are dropped, as around an integer (strtod took ' 1.5' and refused '1.5 ').
  auto blank_options = constrained_options();
  const char* blanks[] = {"tool", "--omega", "1.5 ", "--tol", " 2e-3 "};
  ASSERT_TRUE(blank_options.parse(5, blanks));
  EXPECT_EQ(blank_options.real("omega"), 1.5);
  EXPECT_EQ(blank_options.real("tol"), 2e-3);
}

// The value a program reads is the value that was checked: integers are decimal (CLI11 alone read "0x2" as 2
// for the range check and std::stoll as 0 for the run, "010" as 8 and 10, and refused "08"), and a number too
// small for a double is its rounded value (std::stod threw on "1e-400" after the check had passed it).
TEST(AppsOptions, TheCheckedValueIsTheValueRead) {
  auto options = constrained_options();
  const char* argv[] = {"tool",  "--iters", "08",     "--omega", "1e-310", "--bytes",
                        " 2 kib ", "--tol", "1e-400", "--n",     "+1,08,3"};
  ASSERT_TRUE(options.parse(11, argv));
  EXPECT_EQ(options.integer("iters"), 8);  // decimal, not octal
  EXPECT_EQ(options.integer("bytes"), 2048);
  EXPECT_EQ(options.real("tol"), 0.0);
  EXPECT_EQ(options.real("omega"), 1e-310);  // subnormal, in (0, 2]
  EXPECT_EQ(options.integers("n"), (std::vector<long long>{1, 8, 3}));
  EXPECT_EQ(refusal({"--iters", "0x2"}), "--iters: expected an integer, got '0x2'");
  EXPECT_EQ(refusal({"--iters", "+-2"}), "--iters: expected an integer, got '+-2'");
  EXPECT_EQ(refusal({"--iters", "2K"}), "--iters: expected an integer, got '2K'");  // no suffixes declared
  EXPECT_EQ(refusal({"--bytes", "0x10"}), "--bytes: expected an integer (suffixes K, M, G allowed), got '0x10'");
  EXPECT_EQ(refusal({"--bytes", "9999999999999999999K"}),
            "--bytes: Value 9999999999999999999K not in range 1 to 1073741824");
  EXPECT_EQ(refusal({"--bytes", "16E"}), "--bytes: Value 16E not in range 1 to 1073741824");  // 2^64: overflows
  EXPECT_EQ(refusal({"--n", "0x8"}), "--n: expected an integer (suffixes K, M, G allowed), got '0x8'");
}

TEST(AppsOptions, SizesListsAndChoices) {
  auto options = constrained_options();
  const char* argv[] = {"tool", "--bytes", "64K", "--modes", "sync,proxy", "--n=2K,1,1M"};
  ASSERT_TRUE(options.parse(6, argv));
  EXPECT_EQ(options.integer("bytes"), 65536);
  EXPECT_EQ(options.values("modes"), (std::vector<std::string>{"sync", "proxy"}));
  EXPECT_EQ(options.value("modes"), "sync,proxy");
  EXPECT_EQ(options.integers("n"), (std::vector<long long>{2048, 1, 1 << 20}));
  EXPECT_EQ(refusal({"--bytes", "-1"}), "--bytes: Value -1 not in range 1 to 1073741824");
  EXPECT_EQ(refusal({"--bytes", "1X"}), "--bytes: expected an integer (suffixes K, M, G allowed), got '1X'");
  EXPECT_EQ(refusal({"--bytes", "2G"}), "--bytes: Value 2147483648 not in range 1 to 1073741824 (given as '2G')");
  EXPECT_EQ(refusal({"--bytes", "0"}), "--bytes: Value 0 not in range 1 to 1073741824");
  EXPECT_EQ(refusal({"--modes", "sync,fast"}), "--modes: fast not in {sync,async,proxy}");
  EXPECT_EQ(refusal({"--n", "64,0,2"}), "--n: Value 0 not in range 1 to 1048576");
  EXPECT_EQ(refusal({"--n", "64,,2"}), "--n: empty item in '64,,2'");
  EXPECT_EQ(refusal({"--modes", "sync,"}), "--modes: empty item in 'sync,'");
  EXPECT_EQ(refusal({"--modes", ",sync"}), "--modes: empty item in ',sync'");
  // Commas alone are no value to CLI11, which took the next word ("got '--bytes'", "--modes: --bytes not in").
  EXPECT_EQ(refusal({"--n", ",", "--bytes", "64"}), "--n: empty item in ','");
  EXPECT_EQ(refusal({"--modes", ",,", "--bytes", "64"}), "--modes: empty item in ',,'");
  EXPECT_EQ(refusal({"--bytes", "64", "--n=,"}), "--n: empty item in ','");
}

TEST(AppsParse, Geometries) {
  EXPECT_EQ(apps::parse_geometry("--geometry", "2x1X3", 3), (std::vector<int>{2, 1, 3}));
  EXPECT_EQ(apps::format_geometry({2, 1, 3}), "2x1x3");
  EXPECT_EQ(apps::product({2, 1, 3}), 6);
  EXPECT_EQ(usage_error_of([] { apps::parse_geometry("--geometry", "2x0x1", 3); }),
            "--geometry: expected PxPxP with positive integers (e.g. 2x1x1), got '2x0x1'");
  EXPECT_NE(usage_error_of([] { apps::parse_geometry("--geometry", "2x2", 3); }).find("got '2x2'"), std::string::npos);
  EXPECT_NE(usage_error_of([] { apps::parse_geometry("--geometry", "99999999999x1x1", 3); }).find("got '99999999999x1x1'"),
            std::string::npos);
}

TEST(AppsRunRecord, CsvWritesHeaderOnceAndRefusesAMismatch) {
  const auto path = (std::filesystem::temp_directory_path() / "apps_common_test_record.csv").string();
  std::filesystem::remove(path);
  apps::RunRecord record;
  record.set("mode", "sync").set("n", 64).set("total_s", 0.25).set("verified", true).set("note", "a,\"b\"");
  record.append_to(path);
  record.set("n", 32);  // replaces in place, keeps the order
  record.append_to(path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "mode,n,total_s,verified,note\n"
            "sync,64,0.25,true,\"a,\"\"b\"\"\"\n"
            "sync,32,0.25,true,\"a,\"\"b\"\"\"\n");
  apps::RunRecord other;
  other.set("mode", "sync");
  EXPECT_THROW(other.append_to(path), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(AppsRunRecord, JsonLinesOneObjectPerRun) {
  const auto path = (std::filesystem::temp_directory_path() / "apps_common_test_record.jsonl").string();
  std::filesystem::remove(path);
  apps::RunRecord record;
  record.set("mode", "proxy").set("iters", 8).set("error", std::nan("")).set("ratio", 0.1);
  record.append_to(path);
  record.append_to(path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string line = "{\"mode\":\"proxy\",\"iters\":8,\"error\":null,\"ratio\":0.1}\n";
  EXPECT_EQ(text.str(), line + line);
  std::filesystem::remove(path);
  EXPECT_EQ(apps::record_format_for("x.json"), apps::RecordFormat::json_lines);
  EXPECT_EQ(usage_error_of([] { apps::record_format_for("out.txt"); }),
            "--output: unknown file type 'out.txt' (expected .csv, .json or .jsonl)");
}

TEST(AppsRunRecord, JsonObjectKeysOfOneLine) {
  using Keys = std::vector<std::string>;
  EXPECT_EQ(apps::json_object_keys(R"({"a":1,"b":"x,}\"]","c":{"d":[1,{"e":2}]},"f":null})"), (Keys{"a", "b", "c", "f"}));
  EXPECT_EQ(apps::json_object_keys(" { \"a\" : [1, 2] } \r"), Keys{"a"});
  EXPECT_EQ(apps::json_object_keys("{}"), Keys{});
  EXPECT_EQ(apps::json_object_keys(R"({"a\"b":1})"), Keys{"a\\\"b"});  // as written, escapes kept
  for (const char* not_one_object : {"", "[1,2]", "{\"a\":1", "{\"a\":1,}", "{\"a\":}", "{a:1}", "{\"a\":1}x",
                                     "{\"a\":\"open}", "{\"a\":1]}", "{\"a\":{\"b\":1}", "{\"a\"}"})
    EXPECT_EQ(apps::json_object_keys(not_one_object), std::nullopt) << not_one_object;
}

// A file the record would damage is refused whole, before and at the append, and left as it was; a torn last
// record of this program is mended.
TEST(AppsRunRecord, JsonLinesRefusesAFileItWouldDamage) {
  const auto path = (std::filesystem::temp_directory_path() / "apps_common_test_foreign.jsonl").string();
  const auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
  const auto read = [&] {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
  };
  apps::RunRecord record;
  record.set("mode", "proxy").set("iters", 8);
  const auto refusal = [&] {
    try {
      record.append_to(path);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("appended");
  };
  write("[1,2]\n");
  EXPECT_EQ(refusal(), "cannot append to '" + path + "': its first line is not a JSON object ([1,2])");
  EXPECT_EQ(read(), "[1,2]\n");
  write("{\n  \"mode\": \"proxy\"\n}\n");  // one pretty-printed document, not JSON Lines
  EXPECT_EQ(refusal(), "cannot append to '" + path + "': its first line is not a JSON object ({)");
  write("{\"mode\":\"sync\",\"n\":64}\n");
  EXPECT_EQ(refusal(),
            "cannot append to '" + path + "': its first record's keys (mode,n) differ from this program's (mode,iters)");
  EXPECT_EQ(read(), "{\"mode\":\"sync\",\"n\":64}\n");
  EXPECT_EQ(record.mismatch_with(std::string(300, 'x'), apps::RecordFormat::json_lines),
            "its first line is not a JSON object (" + std::string(200, 'x') + "...)");
  // Control bytes are written \xNN: a NUL cut the message short, an escape sequence reached the terminal raw.
  EXPECT_EQ(record.mismatch_with(std::string("\0\1a\x1b[31m", 8), apps::RecordFormat::json_lines),
            "its first line is not a JSON object (\\x00\\x01a\\x1b[31m)");
  const std::string line = record.json() + "\n";
  write(line + "{\"mode\":\"pro");
  EXPECT_EQ(refusal(), "appended");
  EXPECT_EQ(read(), line + "{\"mode\":\"pro\n" + line);
  std::filesystem::remove(path);
}

TEST(AppsIdealProxy, ThesisModel) {
  // Thesis Table IV.8 (LeMieux, p = 4): sync total 16.56 s, comm 2.81 s -> ideal 18.33 s.
  EXPECT_NEAR(apps::ideal_proxy_time(16.56, 2.81, 4), (16.56 - 2.81) * 4.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(apps::ideal_proxy_time(10.0, 4.0, 2), 12.0);
  EXPECT_DOUBLE_EQ(apps::ideal_proxy_time(10.0, 9.0, 2), 9.0);  // communication-bound: T_p = C_t
  EXPECT_TRUE(std::isnan(apps::ideal_proxy_time(10.0, 1.0, 1)));
  // Cooperative progress gives up no core (s = 0): compute keeps its time, communication is hidden.
  EXPECT_DOUBLE_EQ(apps::ideal_proxy_time(10.0, 4.0, 2, 0), 6.0);
  EXPECT_DOUBLE_EQ(apps::ideal_proxy_time(10.0, 4.0, 1, 0), 6.0);   // even on one core per node
  EXPECT_DOUBLE_EQ(apps::ideal_proxy_time(10.0, 7.0, 2, 0), 7.0);   // communication-bound
}

TEST(AppsIdealProxy, ExplainedLineShowsFormulaNumbersAndResult) {
  EXPECT_EQ(apps::ideal_proxy_explained(10.0, 4.0, 2),
            "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t) = max((10.0000 - 4.0000) x 2/1, 4.0000) = 12.0000 s "
            "(p = 2 cores per node, s = 1 core given to the proxy; thesis IV.B)");
  EXPECT_EQ(apps::ideal_proxy_explained(10.0, 4.0, 2, 0),
            "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t) = max((10.0000 - 4.0000) x 2/2, 4.0000) = 6.0000 s "
            "(p = 2 cores per node, s = 0 cores given to the proxy; thesis IV.B)");
  EXPECT_EQ(apps::ideal_proxy_explained(10.0, 1.0, 1),
            "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t): none for p = 1 core per node, s = 1 core given to "
            "the proxy (no core left to compute; thesis IV.B)");
}

TEST(AppsTimingTable, PrintsEveryColumn) {
  std::ostringstream out;
  apps::print_timing_table(out, {{"sync", 2.0, 1.5, 0.5, 0.25, 10, 3.0}, {"proxy", 1.8, 1.7, 0.1, 0.1, 10}}, "t");
  const std::string text = out.str();
  EXPECT_NE(text.find("Comm %"), std::string::npos);
  EXPECT_NE(text.find("sync        2.0000     1.5000    0.5000    0.2500   25.0% |   200.000   150.000    50.000 |"
                      "         3.0000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("|              -"), std::string::npos) << text;
}

}  // namespace

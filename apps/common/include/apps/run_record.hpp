// The run record: one row of ordered key/value fields per run, appended to the file given by --output.
// The extension picks the format: ".csv" appends a CSV row (the header is written once, when the file is
// new or empty; an existing file with a different header is refused), ".json" or ".jsonl" appends one
// JSON object per line (JSON Lines; an existing file whose first line is not an object with this
// record's keys, in order, is refused: no record is ever added to a file it would damage). The sweep
// scripts read both. Write it on rank 0 only; concurrent runs
// may append to one file (each record is one locked write).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "apps/provenance.hpp"

namespace apps {

enum class RecordFormat { csv, json_lines };

// The shortest text that reads back as `value` ("1e-08", "1.9999999"): the records' doubles, and the
// drivers' header lines, which must not round a value the run used ("omega 2" for 1.9999999).
std::string shortest_text(double value);

// ".csv" -> csv; ".json" / ".jsonl" -> json_lines; anything else throws UsageError naming the path.
// Drivers call it while validating options, so a bad --output fails before the run, on every rank.
RecordFormat record_format_for(std::string_view path);

// The keys of the JSON object that `line` holds, in order and as written (escapes kept); nullopt when
// `line` is not one object. Values are skipped by their brackets and strings, not validated.
std::optional<std::vector<std::string>> json_object_keys(std::string_view line);

// The first line of the file open for reading as fd, without its newline: read with pread from offset 0
// up to the first newline, the end of the file or kFirstLineLimit bytes (a longer line is returned cut,
// which no header or record of ours matches). Throws std::runtime_error with strerror when reading fails.
inline constexpr std::size_t kFirstLineLimit = std::size_t{1} << 20;
std::string first_line_of(int fd);

class RunRecord {
 public:
  using Value = std::variant<std::string, long long, double, bool>;

  // Adds a field at the end, or replaces the value of an existing key in place (order is kept).
  RunRecord& set(std::string key, std::string value) { return put(std::move(key), Value(std::move(value))); }
  RunRecord& set(std::string key, const char* value) { return put(std::move(key), Value(std::string(value))); }
  RunRecord& set(std::string key, double value) { return put(std::move(key), Value(value)); }
  RunRecord& set(std::string key, bool value) { return put(std::move(key), Value(value)); }
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  RunRecord& set(std::string key, T value) {
    return put(std::move(key), Value(static_cast<long long>(value)));
  }

  // Where the run came from (apps/provenance.hpp): written after the fields, as "provenance" in JSON and
  // as prov_* columns in CSV.
  RunRecord& set_provenance(Provenance provenance) {
    provenance_ = std::move(provenance);
    return *this;
  }

  const std::vector<std::pair<std::string, Value>>& fields() const noexcept { return fields_; }

  std::string csv_header() const;  // "mode,n,..." without a newline
  std::string csv_row() const;     // values, quoted where needed; doubles in shortest round-trip form
  std::string json() const;        // {"mode":"sync","n":64,...}; NaN and infinities become null

  // Why a file of `format` whose first line (up to its newline or end) is `first_line` cannot take this
  // record, or "" when it can: "its CSV header (a,b) differs from this program's columns (...)", "its
  // first line is not a JSON object", "its first record's keys (...) differ from this program's (...)".
  std::string mismatch_with(std::string_view first_line, RecordFormat format) const;

  // Appends this record to `path` in the format of its extension, atomically: under an exclusive flock,
  // one write(2) with O_APPEND of whole lines (a new or empty CSV gets the header first; a file whose last
  // line lacks its newline gets one first). Throws std::runtime_error naming the path when it cannot be
  // written or when an existing file's first line does not match (mismatch_with). check_record_output
  // (output_file.hpp) checks the same before a run.
  void append_to(const std::string& path) const;

 private:
  RunRecord& put(std::string key, Value value);
  std::vector<std::pair<std::string, Value>> fields_;
  std::optional<Provenance> provenance_;
};

}  // namespace apps

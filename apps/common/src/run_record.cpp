#include "apps/run_record.hpp"

#include <cerrno>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apps/file_lock.hpp"
#include "apps/json_string.hpp"
#include "apps/usage_error.hpp"

namespace apps {
namespace {

std::string format_double(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact form
  return std::string(buffer, result.ptr);
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

struct CsvValue {
  std::string operator()(const std::string& v) const { return csv_escape(v); }
  std::string operator()(long long v) const { return std::to_string(v); }
  std::string operator()(double v) const { return format_double(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
};

struct JsonValue {
  std::string operator()(const std::string& v) const { return json_string(v); }
  std::string operator()(long long v) const { return std::to_string(v); }
  std::string operator()(double v) const { return std::isfinite(v) ? format_double(v) : "null"; }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
};

// How long an append waits for another run's lock: appends take microseconds, so a lock held longer belongs
// to something else (an editor, a stuck process), which is reported rather than waited on for ever.
constexpr std::chrono::seconds kAppendPatience{60};

}  // namespace

RecordFormat record_format_for(std::string_view path) {
  if (path.ends_with(".csv")) return RecordFormat::csv;
  if (path.ends_with(".json") || path.ends_with(".jsonl")) return RecordFormat::json_lines;
  throw UsageError("--output: unknown file type '" + std::string(path) + "' (expected .csv, .json or .jsonl)");
}

RunRecord& RunRecord::put(std::string key, Value value) {
  for (auto& field : fields_) {
    if (field.first == key) {
      field.second = std::move(value);
      return *this;
    }
  }
  fields_.emplace_back(std::move(key), std::move(value));
  return *this;
}

std::string RunRecord::csv_header() const {
  std::string line;
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_escape(fields_[i].first);
  }
  if (provenance_) {
    for (const auto& [name, value] : provenance_->flat()) line += "," + name;
  }
  return line;
}

std::string RunRecord::csv_row() const {
  std::string line;
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) line += ',';
    line += std::visit(CsvValue{}, fields_[i].second);
  }
  if (provenance_) {
    for (const auto& [name, value] : provenance_->flat()) {
      line += ',';
      line += csv_escape(value);
    }
  }
  return line;
}

std::string RunRecord::json() const {
  std::string line = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) line += ',';
    line += json_string(fields_[i].first);
    line += ':';
    line += std::visit(JsonValue{}, fields_[i].second);
  }
  if (provenance_) line += std::string(fields_.empty() ? "" : ",") + "\"provenance\":" + provenance_->json();
  return line + "}";
}

void RunRecord::append_to(const std::string& path) const {
  const RecordFormat format = record_format_for(path);
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot open '" + path + "' for the run record: " + std::strerror(errno));
  // Held until close: concurrent runs appending to one file take turns, and the first writes the header.
  const FileLock lock(fd, path, kAppendPatience);
  struct stat info{};
  if (::fstat(fd, &info) != 0) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
  std::string text;
  char last = '\n';  // a last line without its newline (a torn or hand-edited file) gets one first
  if (info.st_size > 0 && ::pread(fd, &last, 1, info.st_size - 1) == 1 && last != '\n') text.push_back('\n');
  if (format == RecordFormat::csv) {
    const std::string header = csv_header();
    if (info.st_size == 0) {
      text.append(header).push_back('\n');
    } else {
      std::string existing(header.size() + 1, '\0');
      const ssize_t got = ::pread(fd, existing.data(), existing.size(), 0);
      existing.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
      if (existing.size() != header.size() + 1 || existing.back() != '\n' || existing.compare(0, header.size(), header) != 0)
        throw std::runtime_error("cannot append to '" + path + "': its CSV header differs from this run's fields (" +
                                 header + ")");
    }
    text.append(csv_row()).push_back('\n');
  } else {
    text.append(json()).push_back('\n');
  }
  // One write(2) of whole lines with O_APPEND: a killed run leaves the record out, never half of it.
  const ssize_t written = ::write(fd, text.data(), text.size());
  if (written != static_cast<ssize_t>(text.size())) {
    const std::string why = written < 0 ? std::strerror(errno) : "short write (disk full?)";
    if (written > 0) (void)::ftruncate(fd, info.st_size);  // take the partial line back
    throw std::runtime_error("cannot write run record to '" + path + "': " + why);
  }
}

}  // namespace apps

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

std::string shortest_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact form
  return std::string(buffer, result.ptr);
}

namespace {

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
  std::string operator()(double v) const { return shortest_text(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
};

struct JsonValue {
  std::string operator()(const std::string& v) const { return json_string(v); }
  std::string operator()(long long v) const { return std::to_string(v); }
  std::string operator()(double v) const { return std::isfinite(v) ? shortest_text(v) : "null"; }
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

std::optional<std::vector<std::string>> json_object_keys(std::string_view line) {
  std::size_t at = 0;
  const auto skip_blanks = [&] {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
  };
  // From an opening quote at `at`: the index after its closing quote, or npos when the string never ends.
  const auto string_end = [&](std::size_t quote) {
    for (std::size_t i = quote + 1; i < line.size(); ++i) {
      if (line[i] == '\\') ++i;
      else if (line[i] == '"') return i + 1;
    }
    return std::string_view::npos;
  };
  std::vector<std::string> keys;
  skip_blanks();
  if (at == line.size() || line[at] != '{') return std::nullopt;
  ++at;
  skip_blanks();
  if (at < line.size() && line[at] == '}') {
    ++at;
    skip_blanks();
    return at == line.size() ? std::optional(keys) : std::nullopt;
  }
  while (true) {
    skip_blanks();
    if (at == line.size() || line[at] != '"') return std::nullopt;
    const std::size_t key_end = string_end(at);
    if (key_end == std::string_view::npos) return std::nullopt;
    keys.emplace_back(line.substr(at + 1, key_end - at - 2));
    at = key_end;
    skip_blanks();
    if (at == line.size() || line[at] != ':') return std::nullopt;
    ++at;
    // The value: up to the ',' or '}' outside any string, object or array.
    int depth = 0;
    bool empty = true;
    for (; at < line.size(); ++at) {
      const char c = line[at];
      if (depth == 0 && (c == ',' || c == '}')) break;
      if (c == '"') {
        const std::size_t end = string_end(at);
        if (end == std::string_view::npos) return std::nullopt;
        at = end - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth < 0) return std::nullopt;
      }
      if (c != ' ' && c != '\t' && c != '\r') empty = false;
    }
    if (empty || at == line.size()) return std::nullopt;
    if (line[at++] == ',') continue;
    skip_blanks();
    return at == line.size() ? std::optional(keys) : std::nullopt;
  }
}

std::string first_line_of(int fd) {
  std::string text(kFirstLineLimit, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;
    const auto newline = text.find('\n', got);
    got += static_cast<std::size_t>(n);
    if (newline != std::string::npos && newline < got) return text.substr(0, newline);
  }
  text.resize(got);
  return text;
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

std::string RunRecord::mismatch_with(std::string_view first_line, RecordFormat format) const {
  // The file's text in a message: its first 200 bytes (a foreign file's line can be long), control bytes written
  // \xNN (a NUL cut the line short, an escape sequence reached the terminal raw).
  const auto shown = [](std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 200)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte != 0x7f) {
        out += c;
        continue;
      }
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
    return text.size() <= 200 ? out : out + "...";
  };
  const auto joined = [](const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
    return text;
  };
  if (format == RecordFormat::csv) {
    if (first_line == csv_header()) return "";
    return "its CSV header (" + shown(first_line) + ") differs from this program's columns (" + csv_header() + ")";
  }
  const auto keys = json_object_keys(first_line);
  if (!keys) return "its first line is not a JSON object (" + shown(first_line) + ")";
  const auto own = json_object_keys(json()).value();
  if (*keys == own) return "";
  return "its first record's keys (" + shown(joined(*keys)) + ") differ from this program's (" + joined(own) + ")";
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
  if (info.st_size > 0) {
    std::string why;
    try {
      why = mismatch_with(first_line_of(fd), format);
    } catch (const std::runtime_error& error) {
      why = error.what();
    }
    if (!why.empty()) throw std::runtime_error("cannot append to '" + path + "': " + why);
  } else if (format == RecordFormat::csv) {
    text.append(csv_header()).push_back('\n');
  }
  text.append(format == RecordFormat::csv ? csv_row() : json()).push_back('\n');
  // One write(2) of whole lines with O_APPEND: a killed run leaves the record out, never half of it.
  const ssize_t written = ::write(fd, text.data(), text.size());
  if (written != static_cast<ssize_t>(text.size())) {
    const std::string why = written < 0 ? std::strerror(errno) : "short write (disk full?)";
    if (written > 0) (void)::ftruncate(fd, info.st_size);  // take the partial line back
    throw std::runtime_error("cannot write run record to '" + path + "': " + why);
  }
}

}  // namespace apps

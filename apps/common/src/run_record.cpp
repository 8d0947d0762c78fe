#include "apps/run_record.hpp"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <stdexcept>

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

std::string json_escape(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
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
  std::string operator()(const std::string& v) const { return json_escape(v); }
  std::string operator()(long long v) const { return std::to_string(v); }
  std::string operator()(double v) const { return std::isfinite(v) ? format_double(v) : "null"; }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
};

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
    for (const auto& [name, value] : provenance_->flat()) line += "," + csv_escape(value);
  }
  return line;
}

std::string RunRecord::json() const {
  std::string line = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) line += ',';
    line += json_escape(fields_[i].first);
    line += ':';
    line += std::visit(JsonValue{}, fields_[i].second);
  }
  if (provenance_) line += std::string(fields_.empty() ? "" : ",") + "\"provenance\":" + provenance_->json();
  return line + "}";
}

void RunRecord::append_to(const std::string& path) const {
  const RecordFormat format = record_format_for(path);
  std::string text;
  if (format == RecordFormat::csv) {
    std::string existing_header;
    {
      std::ifstream in(path);
      if (in) std::getline(in, existing_header);
    }
    if (existing_header.empty()) {
      text = csv_header() + "\n";
    } else if (existing_header != csv_header()) {
      throw std::runtime_error("cannot append to '" + path + "': its CSV header differs from this run's fields (" +
                               csv_header() + ")");
    }
    text += csv_row() + "\n";
  } else {
    text = json() + "\n";
  }
  std::ofstream out(path, std::ios::app);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error("cannot write run record to '" + path + "'");
}

}  // namespace apps

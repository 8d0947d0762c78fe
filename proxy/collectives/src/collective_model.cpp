// The HPDC'13 cost formulas (seed 001, section 2), with m in bytes and the binary tree (n = 2) we build.
#include "proxy/collective_model.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/detail/enum_names.hpp"
#include "proxy/detail/paths.hpp"

namespace proxy {

namespace {

int ceil_log2(int x) noexcept {
  int steps = 0;
  while ((1 << steps) < x) ++steps;
  return steps;
}

struct Terms {
  double p, s, q, m;
  int log_q, log_s;
};

Terms terms(TeamShape shape, std::size_t bytes) noexcept {
  const int p = std::max(1, shape.threads);
  const int s = std::clamp(shape.sockets, 1, p);
  const int q = (p + s - 1) / s;
  return {double(p), double(s), double(q), double(bytes), ceil_log2(q), ceil_log2(s)};
}

// HPDC'13 eq. (1)-(3): binary-tree reduce; at level i, q / 2^(i+1) combines share the socket's bandwidth.
double tree_reduce(const ModelParameters& c, const Terms& t) noexcept {
  double time = 0.0;
  for (int i = 0; i < t.log_q; ++i) {
    const double concurrent = std::max(1.0, std::ceil(t.q / double(2 << i)));
    time += std::max(c.a_alpha + c.b_alpha * t.m, c.a_alpha + c.B_alpha * concurrent * t.m);
  }
  return time + (c.a_beta + c.b_beta * t.m) * t.log_s;
}

// HPDC'13 eq. (4): one stage (everyone reads the root) or two stages (socket masters first). On one
// socket both reduce to p - 1 simultaneous readers of the root within the socket.
double broadcast(const ModelParameters& c, const Terms& t, bool two_stage) noexcept {
  if (t.p <= 1) return 0.0;
  if (t.s <= 1) return c.a_alpha + c.B_alpha * (t.p - 1) * t.m;
  if (two_stage) return c.a_alpha + c.B_alpha * (t.q - 1) * t.m + c.a_beta + c.b_beta * t.m;
  return c.a_beta + c.B_beta * t.q * t.m;
}

// HPDC'13 eq. (6) and (7): dissemination, with the fix-up for r = q - q' excess threads.
double dissemination(const ModelParameters& c, const Terms& t) noexcept {
  const int u = static_cast<int>(std::floor(std::log2(t.q)));
  const double q2 = std::ldexp(1.0, u);
  const double r = t.q - q2;
  double time = (c.a_alpha + c.B_alpha * q2 * t.m) * u + (c.a_beta + c.B_beta * q2 * t.m) * t.log_s;
  if (r > 0) time += 2 * (c.a_alpha + c.B_alpha * r * t.m);
  return time;
}

// HPDC'13 eq. (10): tiled reduce within a socket, tree across sockets.
double tiled_reduce(const ModelParameters& c, const Terms& t) noexcept {
  return c.a_alpha * t.q + c.B_alpha * t.q * t.m + (c.a_beta + c.B_beta * t.m) * t.log_s;
}

struct Field {
  const char* name;
  double ModelParameters::*member;
};
constexpr Field kFields[] = {{"a_alpha", &ModelParameters::a_alpha}, {"b_alpha", &ModelParameters::b_alpha},
                             {"B_alpha", &ModelParameters::B_alpha}, {"a_beta", &ModelParameters::a_beta},
                             {"b_beta", &ModelParameters::b_beta},   {"B_beta", &ModelParameters::B_beta}};

}  // namespace

namespace {
constexpr detail::EnumNames<AllreduceAlgorithm, 6> kAllreduceAlgorithms{
    {{AllreduceAlgorithm::automatic, "auto"},
     {AllreduceAlgorithm::tree_one_stage, "tree-one-stage"},
     {AllreduceAlgorithm::tree_two_stage, "tree-two-stage"},
     {AllreduceAlgorithm::dissemination, "dissemination"},
     {AllreduceAlgorithm::tiled_one_stage, "tiled-one-stage"},
     {AllreduceAlgorithm::tiled_two_stage, "tiled-two-stage"}}};
constexpr detail::EnumNames<ReduceAlgorithm, 3> kReduceAlgorithms{
    {{ReduceAlgorithm::automatic, "auto"}, {ReduceAlgorithm::tree, "tree"}, {ReduceAlgorithm::tiled, "tiled"}}};
constexpr detail::EnumNames<BroadcastAlgorithm, 3> kBroadcastAlgorithms{{{BroadcastAlgorithm::automatic, "auto"},
                                                                         {BroadcastAlgorithm::one_stage, "one-stage"},
                                                                         {BroadcastAlgorithm::two_stage, "two-stage"}}};
}  // namespace

std::string_view to_string(AllreduceAlgorithm algorithm) noexcept {
  return detail::name_of(kAllreduceAlgorithms, algorithm);
}
std::string_view to_string(ReduceAlgorithm algorithm) noexcept { return detail::name_of(kReduceAlgorithms, algorithm); }
std::string_view to_string(BroadcastAlgorithm algorithm) noexcept {
  return detail::name_of(kBroadcastAlgorithms, algorithm);
}

const std::vector<AllreduceAlgorithm>& allreduce_algorithms() noexcept {
  static const std::vector<AllreduceAlgorithm> all = {
      AllreduceAlgorithm::tree_one_stage, AllreduceAlgorithm::tree_two_stage, AllreduceAlgorithm::dissemination,
      AllreduceAlgorithm::tiled_one_stage, AllreduceAlgorithm::tiled_two_stage};
  return all;
}

AllreduceAlgorithm as_run(AllreduceAlgorithm algorithm, TeamShape shape) noexcept {
  if (shape.sockets > 1) return algorithm;
  if (algorithm == AllreduceAlgorithm::tree_two_stage) return AllreduceAlgorithm::tree_one_stage;
  if (algorithm == AllreduceAlgorithm::tiled_two_stage) return AllreduceAlgorithm::tiled_one_stage;
  return algorithm;
}

std::vector<AllreduceAlgorithm> distinct_allreduce_algorithms(TeamShape shape) {
  std::vector<AllreduceAlgorithm> distinct;
  for (auto a : allreduce_algorithms())
    if (as_run(a, shape) == a) distinct.push_back(a);
  return distinct;
}

AllreduceAlgorithm parse_allreduce_algorithm(std::string_view text) {
  if (const auto algorithm = detail::value_named(kAllreduceAlgorithms, text)) return *algorithm;
  throw Error("unknown allreduce algorithm '" + std::string(text) + "' (expected " +
              detail::expected_names(kAllreduceAlgorithms) + ")");
}

BroadcastAlgorithm parse_broadcast_algorithm(std::string_view text) {
  if (const auto algorithm = detail::value_named(kBroadcastAlgorithms, text)) return *algorithm;
  throw Error("unknown broadcast algorithm '" + std::string(text) + "' (expected " +
              detail::expected_names(kBroadcastAlgorithms) + ")");
}

double MeasuredCurve::at(std::size_t bytes) const noexcept {
  if (points.empty()) return 0.0;
  if (points.size() == 1 || bytes <= points.front().first) return points.front().second;
  if (bytes >= points.back().first)  // past the end: bandwidth-bound, proportional to the bytes
    return points.back().second * (double(bytes) / double(points.back().first));
  std::size_t i = 1;
  while (i + 1 < points.size() && points[i].first < bytes) ++i;
  const auto [m0, t0] = points[i - 1];
  const auto [m1, t1] = points[i];
  const double slope = (t1 - t0) / (double(m1) - double(m0));
  return std::max(0.0, t0 + slope * (double(bytes) - double(m0)));
}

CollectiveModel::CollectiveModel(ModelParameters parameters, TeamShape shape, std::vector<MeasuredCurve> curves)
    : parameters_(parameters), measured_shape_(shape), curves_(std::move(curves)) {
  for (std::size_t i = 0; i < curves_.size(); ++i) {
    const MeasuredCurve& c = curves_[i];
    if (c.points.empty() || c.algorithm == AllreduceAlgorithm::automatic)
      throw Error("collective model: the curve of " + std::string(to_string(c.algorithm)) + " has no points");
    for (std::size_t k = 1; k < c.points.size(); ++k)
      if (c.points[k].first <= c.points[k - 1].first)
        throw Error("collective model: the curve of " + std::string(to_string(c.algorithm)) +
                    " has sizes out of order (" + std::to_string(c.points[k - 1].first) + " then " +
                    std::to_string(c.points[k].first) + " bytes)");
    for (std::size_t j = 0; j < i; ++j)
      if (curves_[j].algorithm == c.algorithm)
        throw Error("collective model: two curves of " + std::string(to_string(c.algorithm)));
  }
}

const MeasuredCurve* CollectiveModel::curve_of(AllreduceAlgorithm algorithm, TeamShape shape) const noexcept {
  if (!(shape == measured_shape_)) return nullptr;
  for (const auto& c : curves_)
    if (c.algorithm == algorithm) return &c;
  return nullptr;
}

double CollectiveModel::predict(AllreduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept {
  if (algorithm == AllreduceAlgorithm::automatic) return predict(choose_allreduce(shape, bytes), shape, bytes);
  if (shape.threads <= 1) return 0.0;
  algorithm = as_run(algorithm, shape);
  if (const MeasuredCurve* curve = curve_of(algorithm, shape)) return curve->at(bytes);
  return formula(algorithm, shape, bytes);
}

double CollectiveModel::formula(AllreduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept {
  const Terms t = terms(shape, bytes);
  const auto& c = parameters_;
  switch (algorithm) {
    case AllreduceAlgorithm::automatic: {
      double best = formula(AllreduceAlgorithm::tree_one_stage, shape, bytes);
      for (auto a : allreduce_algorithms()) best = std::min(best, formula(a, shape, bytes));
      return best;
    }
    case AllreduceAlgorithm::tree_one_stage: return tree_reduce(c, t) + broadcast(c, t, false);  // eq. (5)
    case AllreduceAlgorithm::tree_two_stage: return tree_reduce(c, t) + broadcast(c, t, true);
    case AllreduceAlgorithm::dissemination: return dissemination(c, t);
    case AllreduceAlgorithm::tiled_one_stage: return tiled_reduce(c, t) + broadcast(c, t, false);  // eq. (11)
    case AllreduceAlgorithm::tiled_two_stage: return tiled_reduce(c, t) + broadcast(c, t, true);
  }
  return 0.0;
}

double CollectiveModel::predict(BroadcastAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept {
  const Terms t = terms(shape, bytes);
  if (algorithm == BroadcastAlgorithm::automatic) algorithm = choose_broadcast(shape, bytes);
  return broadcast(parameters_, t, algorithm == BroadcastAlgorithm::two_stage);
}

double CollectiveModel::predict(ReduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept {
  const Terms t = terms(shape, bytes);
  if (algorithm == ReduceAlgorithm::automatic) algorithm = choose_reduce(shape, bytes);
  return algorithm == ReduceAlgorithm::tiled ? tiled_reduce(parameters_, t) : tree_reduce(parameters_, t);
}

AllreduceAlgorithm CollectiveModel::choose_allreduce(TeamShape shape, std::size_t bytes) const noexcept {
  // Measured here: the cheapest measured algorithm. A twin's curve (as_run; a file calibrate wrote before it
  // left twins out has them) is not a candidate.
  if (shape == measured_shape_) {
    const MeasuredCurve* best = nullptr;
    for (const auto& c : curves_)
      if (as_run(c.algorithm, shape) == c.algorithm && (best == nullptr || c.at(bytes) < best->at(bytes))) best = &c;
    if (best != nullptr) return best->algorithm;
  }
  AllreduceAlgorithm best = AllreduceAlgorithm::tree_one_stage;
  double best_time = predict(best, shape, bytes);
  for (auto a : allreduce_algorithms()) {
    const double time = predict(a, shape, bytes);
    // Ties keep the earlier (simpler) algorithm: a two-stage twin, predicted as its one-stage algorithm on one
    // socket, never wins.
    if (time < best_time) best = a, best_time = time;
  }
  return best;
}

ReduceAlgorithm CollectiveModel::choose_reduce(TeamShape shape, std::size_t bytes) const noexcept {
  return predict(ReduceAlgorithm::tiled, shape, bytes) < predict(ReduceAlgorithm::tree, shape, bytes)
             ? ReduceAlgorithm::tiled
             : ReduceAlgorithm::tree;
}

BroadcastAlgorithm CollectiveModel::choose_broadcast(TeamShape shape, std::size_t bytes) const noexcept {
  return predict(BroadcastAlgorithm::two_stage, shape, bytes) < predict(BroadcastAlgorithm::one_stage, shape, bytes)
             ? BroadcastAlgorithm::two_stage
             : BroadcastAlgorithm::one_stage;
}

CollectiveModel CollectiveModel::load(const std::string& path) {
  // The kind of file first: opening a pipe to read waits for a writer, for ever.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw Error("cannot read collective model file '" + path + "'");
  if (!S_ISREG(info.st_mode)) throw Error("collective model file '" + path + "' is not a regular file");
  // A model is a few kilobytes; a far bigger file is the wrong one, and reading it line by line could fill
  // memory (a file without newlines is one line).
  if (info.st_size > kMaxCollectiveModelBytes)
    throw Error("collective model file '" + path + "' is " + std::to_string(info.st_size) +
                " bytes, more than a model can be (" + std::to_string(kMaxCollectiveModelBytes) + " bytes at most)");
  std::ifstream in(path);
  if (!in) throw Error("cannot read collective model file '" + path + "'");
  ModelParameters parameters;
  TeamShape shape{0, 0};
  std::vector<MeasuredCurve> curves;
  int entries = 0;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    // A byte that is no text (a control character, as in a binary file) is named, not echoed to the terminal.
    for (const char c : line)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
        throw Error("collective model file '" + path + "' line " + std::to_string(number) +
                    ": not text (byte " + std::to_string(static_cast<unsigned char>(c)) + "): is it a model?");
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string name;
    if (!(words >> name)) continue;
    const auto bad = [&](const std::string& why) {
      return Error("collective model file '" + path + "' line " + std::to_string(number) + ": bad entry '" + line +
                   "' (" + why + ")");
    };
    std::string rest;
    if (name == "shape") {
      if (!(words >> shape.threads >> shape.sockets) || (words >> rest) || shape.threads < 2 || shape.sockets < 1 ||
          shape.sockets > shape.threads)
        throw bad("expected 'shape <threads >= 2> <sockets, 1 to threads>'");
      ++entries;
      continue;
    }
    if (name == "curve") {
      std::string algorithm_name;
      long long bytes = 0;
      double seconds = 0.0;
      if (shape.threads == 0) throw bad("a curve needs a 'shape' line before it");
      if (!(words >> algorithm_name >> bytes >> seconds) || (words >> rest) || bytes < 1 || !(seconds > 0.0) ||
          !std::isfinite(seconds))
        throw bad("expected 'curve <algorithm> <bytes >= 1> <seconds > 0>'");
      const auto algorithm = detail::value_named(kAllreduceAlgorithms, algorithm_name);
      if (!algorithm || *algorithm == AllreduceAlgorithm::automatic)
        throw bad("unknown allreduce algorithm '" + algorithm_name + "'");
      auto curve = std::find_if(curves.begin(), curves.end(), [&](const MeasuredCurve& c) { return c.algorithm == *algorithm; });
      if (curve == curves.end()) curve = curves.insert(curves.end(), MeasuredCurve{*algorithm, {}});
      if (!curve->points.empty() && curve->points.back().first >= static_cast<std::size_t>(bytes))
        throw bad("sizes of a curve must increase");
      curve->points.emplace_back(static_cast<std::size_t>(bytes), seconds);
      ++entries;
      continue;
    }
    const Field* field = nullptr;
    for (const auto& f : kFields)
      if (name == f.name) field = &f;
    double value = 0.0;
    if (field == nullptr || !(words >> value) || (words >> rest) || !(value >= 0.0) || !std::isfinite(value))
      throw bad("expected '<a_alpha|b_alpha|B_alpha|a_beta|b_beta|B_beta> <seconds >= 0>', 'shape <threads> "
                "<sockets>' or 'curve <algorithm> <bytes> <seconds>'");
    parameters.*(field->member) = value;
    ++entries;
  }
  // An empty file (a failed calibrate, a truncated copy) must not pass for the built-in defaults.
  if (entries == 0)
    throw Error("collective model file '" + path + "' has no entries (expected lines '<name> <seconds >= 0>', as "
                "calibrate writes them)");
  return CollectiveModel(parameters, shape, std::move(curves));
}

void CollectiveModel::save(const std::string& path) const {
  // Written beside the file it replaces, then renamed over it: a failed write (a full disk) leaves an existing
  // model as it was and no partial file behind. A symbolic link is written through (its target replaced, the
  // link kept), and the temporary's name is short whatever the model's (a 255-byte name is legal).
  std::string target;
  try {
    target = detail::link_target(path);
  } catch (const std::runtime_error& error) {
    throw Error("cannot write collective model file '" + path + "': " + error.what());
  }
  static std::atomic<unsigned> saves{0};
  const std::string temporary = detail::directory_of(target) + "/.proxy-model-" + std::to_string(::getpid()) + "-" +
                                std::to_string(saves.fetch_add(1)) + ".tmp";
  std::ofstream out(temporary);
  if (!out) throw Error("cannot write collective model file '" + path + "': " + std::strerror(errno));
  out << "# proxy collective model (HPDC'13 section 2): a in seconds, b and B in seconds per byte\n";
  out.precision(6);
  for (const auto& f : kFields) out << f.name << ' ' << std::scientific << parameters_.*(f.member) << '\n';
  if (!curves_.empty()) {
    out << "# measured on this team shape (threads sockets): its allreduce curves, bytes per thread and seconds\n";
    out << "shape " << measured_shape_.threads << ' ' << measured_shape_.sockets << '\n';
    for (const auto& c : curves_)
      for (const auto& [bytes, seconds] : c.points)
        out << "curve " << to_string(c.algorithm) << ' ' << bytes << ' ' << std::scientific << seconds << '\n';
  }
  errno = 0;
  out.close();  // the buffered text reaches the file here: a full disk fails now, not before
  if (!out || std::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw Error("cannot write collective model file '" + path + "'" +
                (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
  }
}

CollectiveModel CollectiveModel::from_env() {
  const char* path = std::getenv("PROXY_COLLECTIVE_MODEL");
  if (path == nullptr || *path == '\0') return CollectiveModel();
  return load(path);
}

}  // namespace proxy

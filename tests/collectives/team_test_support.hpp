// Helpers for the team-collective tests: run a function on p std::threads (so ThreadSanitizer sees plain
// pthreads, not an OpenMP runtime), deterministic inputs whose reductions are exact in every type, an
// independent serial reference (plain loops, thread order, no proxy code) and an associative but
// non-commutative user operation.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "proxy/reduction.hpp"
#include "proxy/team.hpp"

namespace proxy::testing {

// Runs body(t) on threads t = 0..p-1 and rethrows the first exception any of them threw.
inline void run_threads(int p, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  std::exception_ptr first;
  std::mutex mutex;
  for (int t = 0; t < p; ++t)
    threads.emplace_back([&, t] {
      try {
        body(t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first) first = std::current_exception();
      }
    });
  for (auto& thread : threads) thread.join();
  if (first) std::rethrow_exception(first);
}

// Affine maps x -> m*x + a modulo 2^16, packed (m << 32) | a into an int64. Composition is associative and
// not commutative, so a reduction in the wrong thread order gives a different answer.
inline std::int64_t affine(std::int64_t m, std::int64_t a) { return ((m & 0xffff) << 32) | (a & 0xffff); }
inline std::int64_t compose(std::int64_t left, std::int64_t right) {
  const std::int64_t m1 = left >> 32, a1 = left & 0xffff, m2 = right >> 32, a2 = right & 0xffff;
  return affine(m1 * m2, m1 * a2 + a1);  // (left o right)(x) = m1 (m2 x + a2) + a1
}
inline void compose_user(const void* in, void* inout, std::size_t count, void*) {
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  for (std::size_t i = 0; i < count; ++i) b[i] = compose(a[i], b[i]);  // MPI: inout = in op inout
}
inline Reduction noncommutative() { return Reduction::custom(DataType::int64, compose_user, nullptr, false); }

// A commutative user operation (integer sum), to cover that path too.
inline void sum_user(const void* in, void* inout, std::size_t count, void*) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (std::size_t i = 0; i < count; ++i) b[i] += a[i];
}
inline Reduction commutative_user() { return Reduction::custom(DataType::int32, sum_user, nullptr, true); }

// Input of thread t, element i, for a reduction: small integers (exact in float too) so that sums,
// products (factors in {-2,-1,1,2} over at most a few dozen contributors) and min/max are exact.
inline double input_value(const Reduction& r, int t, std::size_t i) {
  const std::size_t h = (std::size_t(t) * 2654435761u + i * 40503u + 17) % 1009;
  if (r.op == ReduceOp::prod) {
    static constexpr double kFactors[] = {1, -1, 2, 1, -2, 1, 1, -1};
    return kFactors[h % 8];
  }
  return double(int(h % 33) - 16);
}

template <class T>
void fill_typed(const Reduction& r, int t, void* buffer, std::size_t count) {
  auto* out = static_cast<T*>(buffer);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<T>(input_value(r, t, i));
}

// Fills thread t's input for `r` (user operations get their own value patterns).
inline void fill_input(const Reduction& r, int t, void* buffer, std::size_t count) {
  if (r.op == ReduceOp::user && r.type == DataType::int64) {
    auto* out = static_cast<std::int64_t*>(buffer);
    for (std::size_t i = 0; i < count; ++i) out[i] = affine(1 + 2 * ((t + i) % 5), 3 * t + int(i % 11));
    return;
  }
  switch (r.type) {
    case DataType::float32: fill_typed<float>(r, t, buffer, count); break;
    case DataType::float64: fill_typed<double>(r, t, buffer, count); break;
    case DataType::int32: fill_typed<std::int32_t>(r, t, buffer, count); break;
    case DataType::int64: fill_typed<std::int64_t>(r, t, buffer, count); break;
  }
}

template <class T>
T apply(ReduceOp op, T x, T y) {
  switch (op) {
    case ReduceOp::sum: return x + y;
    case ReduceOp::prod: return x * y;
    case ReduceOp::min: return y < x ? y : x;
    case ReduceOp::max: return x < y ? y : x;
    case ReduceOp::user: break;
  }
  return x;
}

template <class T>
void reference_typed(const Reduction& r, const std::vector<std::vector<unsigned char>>& in, void* out,
                     std::size_t count) {
  auto* o = static_cast<T*>(out);
  for (std::size_t i = 0; i < count; ++i) {
    T acc;
    std::memcpy(&acc, in[0].data() + i * sizeof(T), sizeof(T));
    for (std::size_t t = 1; t < in.size(); ++t) {
      T x;
      std::memcpy(&x, in[t].data() + i * sizeof(T), sizeof(T));
      if (r.op == ReduceOp::user && r.type == DataType::int64) acc = T(compose(std::int64_t(acc), std::int64_t(x)));
      else if (r.op == ReduceOp::user) acc = acc + x;  // the commutative user op is a sum
      else acc = apply(r.op, acc, x);
    }
    o[i] = acc;
  }
}

// Serial reference in thread order, independent of proxy::combine.
inline void reference(const Reduction& r, const std::vector<std::vector<unsigned char>>& in, void* out,
                      std::size_t count) {
  switch (r.type) {
    case DataType::float32: reference_typed<float>(r, in, out, count); break;
    case DataType::float64: reference_typed<double>(r, in, out, count); break;
    case DataType::int32: reference_typed<std::int32_t>(r, in, out, count); break;
    case DataType::int64: reference_typed<std::int64_t>(r, in, out, count); break;
  }
}

inline TeamConfig test_config(std::vector<std::vector<int>> levels = {}) {
  TeamConfig config;
  config.wait_policy = WaitPolicy::block;  // oversubscribed: up to 4 threads on 2 cores
  config.spin_count = 200;
  config.wait_timeout = std::chrono::milliseconds(60'000);
  config.levels = std::move(levels);
  config.last_level_cache_bytes = 256 << 10;  // so that a 384 KiB vector is "beyond the LLC" and strip-mined
  return config;
}

}  // namespace proxy::testing

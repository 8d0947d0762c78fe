// Copy routines: memcpy or non-temporal stores with run-time ISA dispatch (seed 002). The vector bodies
// carry __attribute__((target)) so that the library itself needs no -mavx flags.
#include "proxy/copy.hpp"
#include "proxy/detail/enum_names.hpp"

#include <cstdint>
#include <cstring>

#include <immintrin.h>

namespace proxy {

namespace {

// Copies the unaligned head with memcpy until `destination` is `alignment`-aligned; returns bytes done.
std::size_t head_bytes(const void* destination, std::size_t bytes, std::size_t alignment) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(destination);
  const std::size_t head = (alignment - (address & (alignment - 1))) & (alignment - 1);
  return head < bytes ? head : bytes;
}

__attribute__((target("avx512f"))) void stream_avx512(char* d, const char* s, std::size_t n) noexcept {
  for (; n >= 64; n -= 64, d += 64, s += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
}

__attribute__((target("avx2"))) void stream_avx2(char* d, const char* s, std::size_t n) noexcept {
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32), b);
  }
}

void stream_sse2(char* d, const char* s, std::size_t n) noexcept {
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    for (int k = 0; k < 4; ++k)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16 * k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k)));
  }
}

using StreamBody = void (*)(char*, const char*, std::size_t) noexcept;

struct Dispatch {
  StreamBody body;
  std::string_view isa;
};

Dispatch detect() noexcept {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {stream_avx512, "avx512"};
  if (__builtin_cpu_supports("avx2")) return {stream_avx2, "avx2"};
  return {stream_sse2, "sse2"};
}

const Dispatch& dispatch() noexcept {
  static const Dispatch chosen = detect();
  return chosen;
}

}  // namespace

std::string_view to_string(CopyKind kind) noexcept {
  static constexpr detail::EnumNames<CopyKind, 3> kKinds{
      {{CopyKind::automatic, "automatic"}, {CopyKind::memcpy, "memcpy"}, {CopyKind::streaming, "streaming"}}};
  return detail::name_of(kKinds, kind);
}

std::string_view streaming_isa() noexcept { return dispatch().isa; }

void copy_streaming(void* destination, const void* source, std::size_t bytes) noexcept {
  auto* d = static_cast<char*>(destination);
  const auto* s = static_cast<const char*>(source);
  const std::size_t head = head_bytes(d, bytes, 64);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  const std::size_t body = bytes & ~std::size_t{63};
  if (body != 0) {
    dispatch().body(d, s, body);
    _mm_sfence();  // streaming stores are weakly ordered: fence before anyone publishes "done"
  }
  std::memcpy(d + body, s + body, bytes - body);
}

void copy(void* destination, const void* source, std::size_t bytes, CopyKind kind,
          const CopyPolicy& policy) noexcept {
  if (bytes == 0 || destination == source) return;
  if (kind == CopyKind::automatic) kind = policy.choose(bytes);
  if (kind == CopyKind::streaming) copy_streaming(destination, source, bytes);
  else std::memcpy(destination, source, bytes);
}

}  // namespace proxy

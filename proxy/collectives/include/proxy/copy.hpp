// Copy: proxy::copy moves bytes between buffers of one address space, choosing between memcpy and
// non-temporal (streaming) stores. Streaming stores bypass the cache: they pay off when the buffer is large
// and the consumer does not share a cache with the producer, so the data would be evicted before it is read
// anyway (Wang et al., "Can Streaming SIMD Non-Temporal Instructions Benefit Intra-node MPI
// Communication?", seed 002). The ISA is chosen at run time: AVX-512, AVX2 or SSE2.
// Results are exact for any alignment: unaligned heads and tails are copied with ordinary stores.
// Thread safety: every function may be called from any thread; nothing is shared.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <string_view>

namespace proxy {

enum class CopyKind { automatic, memcpy, streaming };

std::string_view to_string(CopyKind kind) noexcept;

struct CopyPolicy {
  // Streaming stores from this many bytes up when producer and consumer share no cache.
  std::size_t streaming_threshold = std::size_t{1} << 20;
  // When they share a cache, streaming only beyond the cache's size (the copy would evict itself).
  std::size_t shared_cache_bytes = std::size_t{32} << 20;
  bool share_cache = true;

  CopyKind choose(std::size_t bytes) const noexcept {
    const std::size_t limit = share_cache ? shared_cache_bytes : streaming_threshold;
    return bytes >= limit ? CopyKind::streaming : CopyKind::memcpy;
  }
};

// Which vector ISA copy_streaming uses on this machine: "avx512", "avx2" or "sse2".
std::string_view streaming_isa() noexcept;

// Non-temporal copy: aligned streaming stores for the body, plain stores for the unaligned head and tail,
// and a store fence at the end so that another thread reading after a release/acquire sees the data.
void copy_streaming(void* destination, const void* source, std::size_t bytes) noexcept;

// Copies `bytes` (buffers must not overlap; destination == source is a no-op) by `kind`; automatic asks
// `policy`.
void copy(void* destination, const void* source, std::size_t bytes, CopyKind kind = CopyKind::automatic,
          const CopyPolicy& policy = {}) noexcept;

}  // namespace proxy

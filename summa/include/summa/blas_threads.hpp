// OpenBLAS's own thread count. Debian's default libopenblas is the pthread variant, which would start its
// own threads inside every dgemm; the multi-tier modes own the partitioning instead (threads x one
// single-threaded dgemm each) so that BLAS threads never fight the proxy for cores (thesis IV.D.2, the
// Blue Horizon ESSL-SMP failure). Call from the main thread, outside parallel regions.
#pragma once

namespace summa {

void set_blas_threads(int threads) noexcept;
int blas_threads() noexcept;

// Sets the count for a scope and restores the previous one.
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads) noexcept : previous_(blas_threads()) { set_blas_threads(threads); }
  ~ScopedBlasThreads() { set_blas_threads(previous_); }
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int previous_;
};

}  // namespace summa

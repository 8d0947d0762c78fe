// The BLAS library's own thread count, for whichever BLAS the build linked (CMake's FindBLAS, BLA_VENDOR).
// A threaded BLAS (Debian's default libopenblas is the pthread variant) would start its own threads inside
// every dgemm; the multi-tier modes own the partitioning instead (threads x one single-threaded dgemm each)
// so that BLAS threads never fight the proxy for cores (thesis IV.D.2, the Blue Horizon ESSL-SMP failure).
// The control is found at run time among the loaded symbols: OpenBLAS (openblas_set_num_threads), MKL
// (MKL_Set_Num_Threads), BLIS (bli_thread_set_num_threads), FlexiBLAS (flexiblas_set_num_threads). A BLAS
// with none of them is taken to be sequential; set_blas_threads then says once, on stderr, what the
// multi-tier modes need from it. Thread contract: call from the main thread, outside parallel regions.
#pragma once

namespace summa {

void set_blas_threads(int threads) noexcept;
// The BLAS's thread count; 1 when it offers no control.
int blas_threads() noexcept;
// Which control was found: "openblas", "mkl", "blis", "flexiblas", or "none".
const char* blas_thread_control() noexcept;

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

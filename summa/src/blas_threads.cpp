#include "summa/blas_threads.hpp"

// OpenBLAS extensions; declared here so that the code also builds against a cblas.h that lacks them.
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}

namespace summa {

void set_blas_threads(int threads) noexcept { openblas_set_num_threads(threads); }
int blas_threads() noexcept { return openblas_get_num_threads(); }

}  // namespace summa

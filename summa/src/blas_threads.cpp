#include "summa/blas_threads.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace summa {
namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();

// One BLAS's thread-count functions, as its library exports them.
struct Control {
  const char* name;
  const char* set_symbol;
  const char* get_symbol;
};

// In order of preference: FlexiBLAS first, because it forwards to whichever backend it loaded (which
// may itself export openblas_* symbols into the process).
constexpr Control kControls[] = {
    {"flexiblas", "flexiblas_set_num_threads", "flexiblas_get_num_threads"},
    {"openblas", "openblas_set_num_threads", "openblas_get_num_threads"},
    {"mkl", "MKL_Set_Num_Threads", "MKL_Get_Max_Threads"},
    {"blis", "bli_thread_set_num_threads", "bli_thread_get_num_threads"},
};

// The functions found among the loaded libraries (the BLAS is linked into the program, so its symbols are
// visible through RTLD_DEFAULT), looked up once.
struct Found {
  const char* name = "none";
  SetThreads set = nullptr;
  GetThreads get = nullptr;
};

Found find_control() noexcept {
  for (const Control& control : kControls) {
    auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, control.set_symbol));
    auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, control.get_symbol));
    if (set && get) return {control.name, set, get};
  }
  return {};
}

const Found& control() noexcept {
  static const Found found = find_control();
  return found;
}

}  // namespace

void set_blas_threads(int threads) noexcept {
  if (control().set) {
    control().set(threads);
    return;
  }
  static bool told = false;
  if (threads > 1 && !told) {
    told = true;
    std::fprintf(stderr,
                 "summa: note: the BLAS this program is linked with offers no known thread control "
                 "(OpenBLAS, MKL, BLIS, FlexiBLAS); it runs as it was built. The multi-tier modes need it "
                 "single-threaded: link a sequential BLAS or set its own variable (e.g. OMP_NUM_THREADS=1 "
                 "for an OpenMP BLAS)\n");
  }
}

int blas_threads() noexcept { return control().get ? control().get() : 1; }

const char* blas_thread_control() noexcept { return control().name; }

}  // namespace summa

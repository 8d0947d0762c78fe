// What README's "The API in 30 lines" leaves to the application (apps/heat/heat2d.cpp has them for real),
// so that the snippet compiles and runs as written: a strip of `rows` rows of `nx` cells with a ghost row
// above and below, in two buffers, on one rank that is its own neighbour both ways (up = down = 0), so
// that each halo plan moves row 1 into the lower ghost row and row `rows` into the upper one.
// check_readme_api.py puts the snippet's #include lines first, then this file, then the snippet's
// statements as the body of main(), then check_after_snippet().
#include <cstdio>
#include <vector>

#include <proxy/version.hpp>

namespace {
constexpr int nx = 8, rows = 4, steps = 4;
constexpr int up = 0, down = 0;
double local = 1.0, global = 0.0;
std::vector<double> u[2];

double* row(std::vector<double>& buffer, int r) { return buffer.data() + r * nx; }
void update_row() {}  // the snippet's computation; the check below is about the ghost rows

// Before the snippet runs (a static initialiser): row r of buffer b holds 100 b + r; ghost rows -1.
const bool filled = [] {
  for (int b = 0; b < 2; ++b) {
    u[b].assign((rows + 2) * nx, -1.0);
    for (int r = 1; r <= rows; ++r)
      for (int i = 0; i < nx; ++i) row(u[b], r)[i] = 100.0 * b + r;
  }
  return true;
}();

// After it: every ghost row holds its neighbour's edge row, and the Allreduce on the proxy ran.
int check_after_snippet() {
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < nx; ++i)
      if (row(u[b], rows + 1)[i] != 100.0 * b + 1 || row(u[b], 0)[i] != 100.0 * b + rows) {
        std::printf("readme-api: buffer %d: ghost rows not exchanged (%g, %g)\n", b, row(u[b], 0)[i],
                    row(u[b], rows + 1)[i]);
        return 1;
      }
  std::printf("readme-api: halo exchanged in both buffers, global = %g (proxy %s)\n", global, PROXY_VERSION_STRING);
  return global == local && filled ? 0 : 1;
}
}  // namespace

#include "cg3d/serial.hpp"

#include <cmath>

#include "cg3d/kernels.hpp"
#include "redblack3d/problem.hpp"

namespace cg3d {
namespace {

// out = A v over the whole interior (zero ghosts: the Dirichlet boundary).
void apply_whole(const Grid& v, Grid& out, const Stencil& s) {
  const Extent& n = v.interior();
  for (int k = 1; k <= n[2]; ++k)
    for (int j = 1; j <= n[1]; ++j)
      for (int i = 1; i <= n[0]; ++i) out.at(i, j, k) = apply_at(v.data() + v.index(i, j, k), v.stride_y(), v.stride_z(), s);
}

double dot_whole(const Grid& a, const Grid& b) {
  const Extent& n = a.interior();
  double sum = 0.0;
  for (int k = 1; k <= n[2]; ++k)
    for (int j = 1; j <= n[1]; ++j)
      for (int i = 1; i <= n[0]; ++i) sum += a.at(i, j, k) * b.at(i, j, k);
  return sum;
}

// y = a x + b y over the whole interior.
void combine(double a, const Grid& x, double b, Grid& y) {
  const Extent& n = y.interior();
  for (int k = 1; k <= n[2]; ++k)
    for (int j = 1; j <= n[1]; ++j)
      for (int i = 1; i <= n[0]; ++i) y.at(i, j, k) = a * x.at(i, j, k) + b * y.at(i, j, k);
}

// r = b - A x.
Grid residual_of(const Grid& b, const Grid& x, const Stencil& s) {
  Grid r(x.interior());
  apply_whole(x, r, s);
  combine(1.0, b, -1.0, r);
  return r;
}

void solve_classic(const Grid& b, const Stencil& stencil, double norm_b, double tol, int max_iterations,
                   SerialResult& out) {
  Grid& x = out.x;
  Grid r = residual_of(b, x, stencil);
  Grid p = r;
  Grid q(x.interior());
  double rr = dot_whole(r, r);
  out.history.push_back(std::sqrt(rr) / norm_b);
  while (out.history.back() > tol && out.iterations < max_iterations) {
    apply_whole(p, q, stencil);
    const double alpha = rr / dot_whole(p, q);
    combine(alpha, p, 1.0, x);
    combine(-alpha, q, 1.0, r);
    const double rr_next = dot_whole(r, r);
    combine(1.0, r, rr_next / rr, p);
    rr = rr_next;
    ++out.iterations;
    out.history.push_back(std::sqrt(rr) / norm_b);
  }
}

void solve_pipelined(const Grid& b, const Stencil& stencil, double norm_b, double tol, int max_iterations,
                     SerialResult& out) {
  Grid& x = out.x;
  const Extent& n = x.interior();
  Grid r = residual_of(b, x, stencil);
  Grid w(n), q(n), z(n), s(n), p(n);
  apply_whole(r, w, stencil);
  double previous_gamma = 0.0, previous_alpha = 0.0;
  for (int i = 0;; ++i) {
    const double gamma = dot_whole(r, r), delta = dot_whole(w, r);
    out.history.push_back(std::sqrt(gamma) / norm_b);
    if (out.history.back() <= tol || i == max_iterations) break;
    apply_whole(w, q, stencil);
    const StepLengths step = pipelined_step(i, gamma, delta, previous_gamma, previous_alpha);
    combine(1.0, q, step.beta, z);
    combine(1.0, w, step.beta, s);
    combine(1.0, r, step.beta, p);
    combine(step.alpha, p, 1.0, x);
    combine(-step.alpha, s, 1.0, r);
    combine(-step.alpha, z, 1.0, w);
    previous_gamma = gamma;
    previous_alpha = step.alpha;
    out.iterations = i + 1;
  }
}

}  // namespace

SerialResult solve_serial(const Extent& global, Variant variant, double tol, int max_iterations) {
  const Stencil stencil = redblack3d::make_stencil(global, 1.0);
  const Extent origin{0, 0, 0};
  const Grid b = redblack3d::make_rhs(global, origin, global);
  SerialResult out;
  out.x = initial_guess(global, origin, global);
  const double norm_b = std::sqrt(dot_whole(b, b));
  if (variant == Variant::classic)
    solve_classic(b, stencil, norm_b, tol, max_iterations, out);
  else
    solve_pipelined(b, stencil, norm_b, tol, max_iterations, out);
  out.converged = out.history.back() <= tol;
  const Grid r = residual_of(b, out.x, stencil);
  out.true_residual = std::sqrt(dot_whole(r, r)) / norm_b;
  return out;
}

}  // namespace cg3d

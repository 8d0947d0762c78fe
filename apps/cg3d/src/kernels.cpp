#include "cg3d/kernels.hpp"

namespace cg3d {
namespace {

// Calls row(j, k, first) for every interior row of g (first: the index of its point i = 1), split over
// the team by an orphaned `omp for nowait`.
template <class Row>
void each_row(const Grid& g, Row&& row) {
  const Extent& n = g.interior();
  const int rows = n[1] * n[2];
#pragma omp for schedule(static) nowait
  for (int index = 0; index < rows; ++index) {
    const int j = 1 + index % n[1], k = 1 + index / n[1];
    row(j, k, g.index(1, j, k));
  }
}

// The same over the rows of a box in redblack3d's cache bands (first: the index of its point i = box.lo[0]).
template <class Row>
void each_box_row(const Grid& g, const Box& box, const std::function<void()>& between_planes, Row&& row) {
  const int band_rows = redblack3d::cache_block_rows(g.stride_y() * static_cast<std::ptrdiff_t>(sizeof(double)));
  redblack3d::for_each_row(box, band_rows, between_planes, [&](int j, int k) { row(g.index(box.lo[0], j, k)); });
}

}  // namespace

std::array<double, 2> RowSums::total() const noexcept {
  if (sums_.empty()) return {0.0, 0.0};
  std::array<double, 2> sum = sums_.front();
  for (std::size_t i = 1; i < sums_.size(); ++i) {
    sum[0] += sums_[i][0];
    sum[1] += sums_[i][1];
  }
  return sum;
}

std::vector<const void*> RowSums::rows() const {
  std::vector<const void*> rows;
  rows.reserve(sums_.size());
  for (const std::array<double, 2>& row : sums_) rows.push_back(row.data());
  return rows;
}

void apply(const Grid& v, Grid& out, const Stencil& s, const Box& box, const std::function<void()>& between_planes) {
  const std::ptrdiff_t sy = v.stride_y(), sz = v.stride_z();
  const int width = box.hi[0] - box.lo[0];
  each_box_row(v, box, between_planes, [&](std::ptrdiff_t first) {
    const double* __restrict in = v.data() + first;
    double* __restrict result = out.data() + first;
    for (int i = 0; i < width; ++i) result[i] = apply_at(in + i, sy, sz, s);
  });
}

void residual(const Grid& b, const Grid& x, Grid& r, const Stencil& s, const Box& box,
              const std::function<void()>& between_planes) {
  const std::ptrdiff_t sy = x.stride_y(), sz = x.stride_z();
  const int width = box.hi[0] - box.lo[0];
  each_box_row(x, box, between_planes, [&](std::ptrdiff_t first) {
    const double* __restrict in = x.data() + first;
    const double* __restrict rhs = b.data() + first;
    double* __restrict result = r.data() + first;
    for (int i = 0; i < width; ++i) result[i] = rhs[i] - apply_at(in + i, sy, sz, s);
  });
}

void dot(const Grid& a, const Grid& b, RowSums& sums, const Grid* c, const Grid* d) {
  const int width = a.interior()[0];
  each_row(a, [&](int j, int k, std::ptrdiff_t first) {
    std::array<double, 2> sum{0.0, 0.0};
    const double* ra = a.data() + first;
    const double* rb = b.data() + first;
    for (int i = 0; i < width; ++i) sum[0] += ra[i] * rb[i];
    if (c != nullptr) {
      const double* rc = c->data() + first;
      const double* rd = d->data() + first;
      for (int i = 0; i < width; ++i) sum[1] += rc[i] * rd[i];
    }
    sums.at(j, k) = sum;
  });
}

void start_direction(const Grid& r, Grid& p, RowSums& sums) {
  const int width = r.interior()[0];
  each_row(r, [&](int j, int k, std::ptrdiff_t first) {
    const double* rr = r.data() + first;
    double* rp = p.data() + first;
    double sum = 0.0;
    for (int i = 0; i < width; ++i) {
      rp[i] = rr[i];
      sum += rr[i] * rr[i];
    }
    sums.at(j, k) = {sum, 0.0};
  });
}

void update_residual(Grid& r, const Grid& q, double alpha, RowSums& sums) {
  const int width = r.interior()[0];
  each_row(r, [&](int j, int k, std::ptrdiff_t first) {
    double* rr = r.data() + first;
    const double* rq = q.data() + first;
    double sum = 0.0;
    for (int i = 0; i < width; ++i) {
      rr[i] -= alpha * rq[i];
      sum += rr[i] * rr[i];
    }
    sums.at(j, k) = {sum, 0.0};
  });
}

void update_solution(Grid& x, const Grid& p, double alpha) {
  const int width = x.interior()[0];
  each_row(x, [&](int, int, std::ptrdiff_t first) {
    double* __restrict rx = x.data() + first;
    const double* __restrict rp = p.data() + first;
    for (int i = 0; i < width; ++i) rx[i] += alpha * rp[i];
  });
}

void update_direction(Grid& p, const Grid& r, double beta) {
  const int width = p.interior()[0];
  each_row(p, [&](int, int, std::ptrdiff_t first) {
    double* __restrict rp = p.data() + first;
    const double* __restrict rr = r.data() + first;
    for (int i = 0; i < width; ++i) rp[i] = rr[i] + beta * rp[i];
  });
}

namespace {

// One row of pipelined_update; restrict parameters (not locals) are what lets GCC vectorise it.
void pipelined_row(int width, double alpha, double beta, double* __restrict x, double* __restrict r,
                   double* __restrict w, double* __restrict p, double* __restrict s, double* __restrict z,
                   const double* __restrict q) noexcept {
  for (int i = 0; i < width; ++i) {
    z[i] = q[i] + beta * z[i];
    s[i] = w[i] + beta * s[i];
    p[i] = r[i] + beta * p[i];
    x[i] += alpha * p[i];
    r[i] -= alpha * s[i];
    w[i] -= alpha * z[i];
  }
}

}  // namespace

void pipelined_update(const PipelinedVectors& v, double alpha, double beta, RowSums& sums) {
  const int width = v.x.interior()[0];
  each_row(v.x, [&](int j, int k, std::ptrdiff_t first) {
    double* r = v.r.data() + first;
    double* w = v.w.data() + first;
    pipelined_row(width, alpha, beta, v.x.data() + first, r, w, v.p.data() + first, v.s.data() + first,
                  v.z.data() + first, v.q.data() + first);
    // The sums in a second pass over the row (still in cache): two in-order reductions in the update loop
    // keep it from vectorising.
    double gamma = 0.0, delta = 0.0;
    for (int i = 0; i < width; ++i) {
      gamma += r[i] * r[i];
      delta += w[i] * r[i];
    }
    sums.at(j, k) = {gamma, delta};
  });
}

}  // namespace cg3d

#include "cg3d/kernels.hpp"

#include <algorithm>

namespace cg3d {
namespace {

// Calls row(first) for every interior row of g (first: the index of its point i = 1), part by part
// (RowParts) and in each part in order, split over the team by parts (an orphaned `omp for nowait`);
// part_done(part) after each part's rows.
template <class Row, class PartDone>
void each_part(const Grid& g, Row&& row, PartDone&& part_done) {
  const Extent& n = g.interior();
  const RowParts split(n);
#pragma omp for schedule(static) nowait
  for (int part = 0; part < split.parts; ++part) {
    const int end = std::min(split.rows, (part + 1) * split.rows_per_part);
    for (int index = part * split.rows_per_part; index < end; ++index)
      row(g.index(1, 1 + index % n[1], 1 + index / n[1]));
    part_done(part);
  }
}

template <class Row>
void each_row(const Grid& g, Row&& row) {
  each_part(g, row, [](int) {});
}

// The same for a kernel that sums: row(first) returns the row's sums, added in order into its part's.
template <class Row>
void each_row_summed(const Grid& g, PartialSums& sums, Row&& row) {
  std::array<double, 2> part_sum{0.0, 0.0};
  each_part(
      g,
      [&](std::ptrdiff_t first) {
        const std::array<double, 2> sum = row(first);
        part_sum[0] += sum[0];
        part_sum[1] += sum[1];
      },
      [&](int part) {
        sums.at(part) = part_sum;
        part_sum = {0.0, 0.0};
      });
}

// The same over the rows of a box in redblack3d's cache bands (first: the index of its point i = box.lo[0]).
template <class Row>
void each_box_row(const Grid& g, const Box& box, const std::function<void()>& between_planes, Row&& row) {
  const int band_rows = redblack3d::cache_block_rows(g.stride_y() * static_cast<std::ptrdiff_t>(sizeof(double)));
  redblack3d::for_each_row(box, band_rows, between_planes, [&](int j, int k) { row(g.index(box.lo[0], j, k)); });
}

}  // namespace

RowParts::RowParts(const Extent& local) noexcept : rows(local[1] * local[2]) {
  rows_per_part = std::max(1, (rows + kMaxParts - 1) / kMaxParts);
  parts = (rows + rows_per_part - 1) / rows_per_part;
}

std::array<double, 2> PartialSums::total() const noexcept {
  std::array<double, 2> sum{0.0, 0.0};
  for (const std::array<double, 2>& part : sums_) {
    sum[0] += part[0];
    sum[1] += part[1];
  }
  return sum;
}

std::vector<const void*> PartialSums::parts() const {
  std::vector<const void*> parts;
  parts.reserve(sums_.size());
  for (const std::array<double, 2>& part : sums_) parts.push_back(part.data());
  return parts;
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

void dot(const Grid& a, const Grid& b, PartialSums& sums, const Grid* c, const Grid* d) {
  const int width = a.interior()[0];
  each_row_summed(a, sums, [&](std::ptrdiff_t first) {
    std::array<double, 2> sum{0.0, 0.0};
    const double* ra = a.data() + first;
    const double* rb = b.data() + first;
    for (int i = 0; i < width; ++i) sum[0] += ra[i] * rb[i];
    if (c != nullptr) {
      const double* rc = c->data() + first;
      const double* rd = d->data() + first;
      for (int i = 0; i < width; ++i) sum[1] += rc[i] * rd[i];
    }
    return sum;
  });
}

void start_direction(const Grid& r, Grid& p, PartialSums& sums) {
  const int width = r.interior()[0];
  each_row_summed(r, sums, [&](std::ptrdiff_t first) {
    const double* rr = r.data() + first;
    double* rp = p.data() + first;
    double sum = 0.0;
    for (int i = 0; i < width; ++i) {
      rp[i] = rr[i];
      sum += rr[i] * rr[i];
    }
    return std::array<double, 2>{sum, 0.0};
  });
}

void update_residual(Grid& r, const Grid& q, double alpha, PartialSums& sums) {
  const int width = r.interior()[0];
  each_row_summed(r, sums, [&](std::ptrdiff_t first) {
    double* rr = r.data() + first;
    const double* rq = q.data() + first;
    double sum = 0.0;
    for (int i = 0; i < width; ++i) {
      rr[i] -= alpha * rq[i];
      sum += rr[i] * rr[i];
    }
    return std::array<double, 2>{sum, 0.0};
  });
}

void update_solution(Grid& x, const Grid& p, double alpha) {
  const int width = x.interior()[0];
  each_row(x, [&](std::ptrdiff_t first) {
    double* __restrict rx = x.data() + first;
    const double* __restrict rp = p.data() + first;
    for (int i = 0; i < width; ++i) rx[i] += alpha * rp[i];
  });
}

void update_direction(Grid& p, const Grid& r, double beta) {
  const int width = p.interior()[0];
  each_row(p, [&](std::ptrdiff_t first) {
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

void pipelined_update(const PipelinedVectors& v, double alpha, double beta, PartialSums& sums) {
  const int width = v.x.interior()[0];
  each_row_summed(v.x, sums, [&](std::ptrdiff_t first) {
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
    return std::array<double, 2>{gamma, delta};
  });
}

}  // namespace cg3d

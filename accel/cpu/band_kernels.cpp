#include "accel/cpu/band_kernels.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "accel/cpu/prefetch.hpp"

namespace quilt::accel::cpu {
namespace {

/// What a sweep makes of s = (A x)_i: s, b_i - s, a Jacobi update, or out_i + s (accumulate).
enum class Sweep { spmv, defect, jacobi, add };

/// The result of a guarded row i, given s = (A x)_i and its diagonal entry; the same formulas as
/// interior_rows. Only the arrays the sweep needs are read.
template <Sweep S, class T>
inline T finish(T s, std::ptrdiff_t i, const T* b, const T* x, T diagonal, T omega) {
  if constexpr (S == Sweep::spmv || S == Sweep::add) {
    return s;  // add: guarded_rows adds it to out
  } else if constexpr (S == Sweep::defect) {
    return b[i] - s;
  } else {
    return x[i] + omega * (T(1) / diagonal) * (b[i] - s);
  }
}

/// Rows [first, last) of a run whose 9 columns all lie inside the macro: one loop with no guard.
/// Every array is offset to the run's first row; xc points at x of that row, so x[r + offset] is
/// xc[i + offset]. The range (rather than offset pointers) keeps the loop's registers those of one
/// run when interior() calls it block by block: with pointers offset per block, GCC spilled them
/// and the float Jacobi sweep in cache ran 0.63 times as fast. The restrict-qualified parameters
/// tell the compiler that out aliases nothing it reads, which is what lets it vectorise without
/// runtime overlap checks.
///
/// Jacobi divides by the diagonal instead of reading a stored 1 / a4: one stream fewer (12
/// instead of 13), 1.18 (double) and 1.12 (float) times the rows per second at n = 1025, and the
/// same numbers as T(1.0 / a4) computed in double: a quotient rounded to double and then to float
/// is the float quotient, since 53 >= 2 * 24 + 2 (Figueroa, "When is double rounding
/// innocuous?", SIGNUM Newsl. 30(3), 1995).
template <Sweep S, class T>
void interior_rows(std::ptrdiff_t first, std::ptrdiff_t last, std::ptrdiff_t n,
                   const T* __restrict a0, const T* __restrict a1, const T* __restrict a2,
                   const T* __restrict a3, const T* __restrict a4, const T* __restrict a5,
                   const T* __restrict a6, const T* __restrict a7, const T* __restrict a8,
                   const T* __restrict xc, const T* __restrict b, T omega, T* __restrict out) {
  const T* __restrict xs = xc - n - 1;  // x of the south-west neighbour of row i
  const T* __restrict xm = xc - 1;      // west neighbour
  const T* __restrict xn = xc + n - 1;  // north-west neighbour
  for (std::ptrdiff_t i = first; i < last; ++i) {
    const T s = a0[i] * xs[i] + a1[i] * xs[i + 1] + a2[i] * xs[i + 2] + a3[i] * xm[i] +
                a4[i] * xm[i + 1] + a5[i] * xm[i + 2] + a6[i] * xn[i] + a7[i] * xn[i + 1] +
                a8[i] * xn[i + 2];
    // Spelled out rather than through finish(): passing the restrict pointers on loses their
    // no-alias guarantee and the loop gets runtime overlap checks.
    if constexpr (S == Sweep::spmv) {
      out[i] = s;
    } else if constexpr (S == Sweep::add) {
      out[i] = out[i] + s;
    } else if constexpr (S == Sweep::defect) {
      out[i] = b[i] - s;
    } else {
      out[i] = xc[i] + omega * (T(1) / a4[i]) * (b[i] - s);
    }
  }
}

/// The 9 bands of a macro at its first interior row.
template <class T>
using BandRows = std::array<const T*, kBands>;

/// interior_rows for rows [0, count), prefetched (prefetch.hpp) where the sweep streams from
/// memory: the bands, the x row that enters (north-west) and b or out where the sweep reads them.
template <Sweep S, class T>
void interior(std::ptrdiff_t count, std::ptrdiff_t n, const BandRows<T>& a, const T* xc, const T* b,
              T omega, T* out, bool prefetch) {
  const auto block = [&](std::ptrdiff_t f, std::ptrdiff_t c) {
    interior_rows<S, T>(f, f + c, n, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], xc, b,
                        omega, out);
  };
  if (!prefetch) return block(0, count);
  const T* xn = xc + n - 1;
  // Written out per sweep: one generic lambda over the extra stream changed GCC's inlining, and
  // the float defect and Jacobi sweeps at n = 65 ran at 0.76 and 0.80 times the speed.
  if constexpr (S == Sweep::spmv)
    in_prefetched_blocks<T>(count, block, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], xn);
  else if constexpr (S == Sweep::add)
    in_prefetched_blocks<T>(count, block, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], xn,
                            out);
  else
    in_prefetched_blocks<T>(count, block, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], xn,
                            b);
}

/// Rows near the first or last grid line of a macro: columns outside [0, n*n) are skipped.
/// entry(k, r) is A(r, r + offset of band k) of the macro at `base`.
template <Sweep S, class T, class Entry>
void guarded_rows(int n_, std::size_t base, std::ptrdiff_t first, std::ptrdiff_t last, const T* x,
                  const T* b, T omega, T* out, Entry&& entry) {
  const std::ptrdiff_t n = n_;
  const std::ptrdiff_t nn = n * n;
  const T* xm = x + base;
  for (std::ptrdiff_t r = first; r < last; ++r) {
    T s = T(0);
    for (int k = 0; k < kBands; ++k) {
      const std::ptrdiff_t c = r + band_offset(k, n_);
      if (c >= 0 && c < nn) s += entry(k, r) * xm[c];
    }
    const T value =
        finish<S>(s, static_cast<std::ptrdiff_t>(base) + r, b, x, entry(kCentre, r), omega);
    if constexpr (S == Sweep::add)
      out[base + r] = out[base + r] + value;
    else
      out[base + r] = value;
  }
}

/// interior_rows for rows that share one stencil a: the 9 entries are loop invariants (held in
/// registers), so the sweep streams x, b and out only, 3 of the 12 arrays of the band form
/// (SBBLAS's constant-coefficient kernels). The products and their order are interior_rows',
/// so the result is bitwise the same as from bands holding a. inv_diag here is the one value
/// 1/a4 of these rows (inverse_centre).
template <Sweep S, class T>
void constant_rows(std::ptrdiff_t count, std::ptrdiff_t n, const std::array<T, kBands>& a,
                   const T* __restrict xc, const T* __restrict b, T inv_diag, T omega,
                   T* __restrict out) {
  const T a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5], a6 = a[6], a7 = a[7],
          a8 = a[8];
  const T* __restrict xs = xc - n - 1;
  const T* __restrict xm = xc - 1;
  const T* __restrict xn = xc + n - 1;
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const T s = a0 * xs[i] + a1 * xs[i + 1] + a2 * xs[i + 2] + a3 * xm[i] + a4 * xm[i + 1] +
                a5 * xm[i + 2] + a6 * xn[i] + a7 * xn[i + 1] + a8 * xn[i + 2];
    if constexpr (S == Sweep::spmv) {
      out[i] = s;
    } else if constexpr (S == Sweep::add) {
      out[i] = out[i] + s;
    } else if constexpr (S == Sweep::defect) {
      out[i] = b[i] - s;
    } else {
      out[i] = xc[i] + omega * inv_diag * (b[i] - s);
    }
  }
}

/// 1/a4, as the band form's Jacobi rows divide.
template <class T>
T inverse_centre(const std::array<T, kBands>& a) {
  return T(1) / a[kCentre];
}

/// One zoned macro (accel/stencil_zones.hpp) at `base`: the guarded rows from the zone stencils,
/// every other grid line as its 5 zones, the middle one by constant_rows.
template <Sweep S, class T>
void zoned_macro(const StencilZones<T>& z, int m, std::size_t base, const T* x, const T* b, T omega,
                 T* out) {
  const int n_ = z.n;
  const std::ptrdiff_t n = n_;
  const std::ptrdiff_t nn = n * n;
  const auto entry = [&](int k, std::ptrdiff_t r) {
    return z.stencil(m, zone_of(static_cast<int>(r % n), n_),
                     zone_of(static_cast<int>(r / n), n_))[k];
  };
  // The guarded rows of the band path, [0, n+1) and [nn-n-1, nn): the same sums.
  guarded_rows<S>(n_, base, 0, n + 1, x, b, omega, out, entry);
  const auto run = [&](std::ptrdiff_t r, std::ptrdiff_t count, const std::array<T, kBands>& a) {
    const std::size_t g = base + r;
    if constexpr (S == Sweep::jacobi) {
      constant_rows<S, T>(count, n, a, x + g, b + g, inverse_centre(a), omega, out + g);
    } else {
      constant_rows<S, T>(count, n, a, x + g, b ? b + g : nullptr, T(0), omega, out + g);
    }
  };
  for (std::ptrdiff_t j = 1; j < n - 1; ++j) {
    const int zy = zone_of(static_cast<int>(j), n_);
    const std::ptrdiff_t row = j * n;
    // Row (0, 1) is guarded (its south-west column is -1) and so is (n-1, n-2).
    if (j > 1) run(row, 1, z.stencil(m, 0, zy));
    run(row + 1, 1, z.stencil(m, 1, zy));
    run(row + 2, n - 4, z.stencil(m, kMiddleZone, zy));
    run(row + n - 2, 1, z.stencil(m, 3, zy));
    if (j < n - 2) run(row + n - 1, 1, z.stencil(m, 4, zy));
  }
  guarded_rows<S>(n_, base, nn - n - 1, nn, x, b, omega, out, entry);
}

/// zones: null, or the zones of A (detect_stencil_zones); its zoned macros take zoned_macro.
template <Sweep S, class T>
void sweep(const BandedMatrix<T>& A, const StencilZones<T>* zones, const T* x, const T* b, T omega,
           T* out) {
  const std::ptrdiff_t n = A.n;
  const std::ptrdiff_t nn = n * n;
  // Rows [head, tail) have every column r + dj*n + di inside [0, n*n).
  const std::ptrdiff_t head = std::min(n + 1, nn);
  const std::ptrdiff_t tail = std::max(head, nn - n - 1);
  const bool prefetch = streams_from_memory(A);
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * nn;
    if (zones && zones->is_zoned(m)) {
      zoned_macro<S>(*zones, m, base, x, b, omega, out);
      continue;
    }
    const auto entry = [&](int k, std::ptrdiff_t r) { return A.band[k][base + r]; };
    guarded_rows<S>(A.n, base, 0, head, x, b, omega, out, entry);
    const std::size_t g = base + head;
    BandRows<T> a;
    for (int k = 0; k < kBands; ++k) a[k] = A.band[k].data() + g;
    interior<S, T>(tail - head, n, a, x + g, b ? b + g : nullptr, omega, out + g, prefetch);
    guarded_rows<S>(A.n, base, tail, nn, x, b, omega, out, entry);
  }
}

/// Rows per block of sweep_pair: the block's 9 bands (36 KiB in double) stay in L2 for the
/// second vector.
constexpr std::ptrdiff_t kPairBlock = 512;

/// One vector of a pair sweep: its input, right-hand side (null for spmv) and output.
template <class T>
struct Lane {
  const T* x;
  const T* b;
  T* out;
};

/// sweep() for two vectors: the band macros' interior rows block by block for both vectors, so
/// the bands come from memory once; the guarded rows (2 n + 2 per macro) and the zoned macros
/// (no bands read) per vector.
template <Sweep S, class T>
void sweep_pair(const BandedMatrix<T>& A, const StencilZones<T>* zones, const Lane<T>& v0,
                const Lane<T>& v1) {
  const std::ptrdiff_t n = A.n;
  const std::ptrdiff_t nn = n * n;
  const std::ptrdiff_t head = std::min(n + 1, nn);
  const std::ptrdiff_t tail = std::max(head, nn - n - 1);
  const bool prefetch = streams_from_memory(A);
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * nn;
    if (zones && zones->is_zoned(m)) {
      for (const Lane<T>* v : {&v0, &v1}) zoned_macro<S>(*zones, m, base, v->x, v->b, T(0), v->out);
      continue;
    }
    const auto entry = [&](int k, std::ptrdiff_t r) { return A.band[k][base + r]; };
    for (const Lane<T>* v : {&v0, &v1})
      guarded_rows<S>(A.n, base, 0, head, v->x, v->b, T(0), v->out, entry);
    // The interior rows in blocks that the second vector finds in cache: one loop over two
    // vectors (15 streams) ran slower than two sweeps, blocks of the one-vector loop do not.
    for (std::ptrdiff_t first = head; first < tail; first += kPairBlock) {
      const std::ptrdiff_t count = std::min(kPairBlock, tail - first);
      const std::size_t g = base + first;
      BandRows<T> a;
      for (int k = 0; k < kBands; ++k) a[k] = A.band[k].data() + g;
      for (const Lane<T>* v : {&v0, &v1})
        interior<S, T>(count, n, a, v->x + g, v->b ? v->b + g : nullptr, T(0), v->out + g,
                       prefetch);
    }
    for (const Lane<T>* v : {&v0, &v1})
      guarded_rows<S>(A.n, base, tail, nn, v->x, v->b, T(0), v->out, entry);
  }
}

}  // namespace

template <class T>
void spmv_pair(const BandedMatrix<T>& A, const StencilZones<T>* zones, const T* x0, const T* x1,
               T* y0, T* y1) {
  sweep_pair<Sweep::spmv>(A, zones, Lane<T>{x0, nullptr, y0}, Lane<T>{x1, nullptr, y1});
}

template <class T>
void defect_pair(const BandedMatrix<T>& A, const StencilZones<T>* zones, const T* b0, const T* x0,
                 T* d0, const T* b1, const T* x1, T* d1) {
  sweep_pair<Sweep::defect>(A, zones, Lane<T>{x0, b0, d0}, Lane<T>{x1, b1, d1});
}

template <class T>
void spmv(const BandedMatrix<T>& A, const T* x, T* y) {
  sweep<Sweep::spmv>(A, static_cast<const StencilZones<T>*>(nullptr), x,
                     static_cast<const T*>(nullptr), T(0), y);
}

template <class T>
void spmv_add(const BandedMatrix<T>& A, const T* x, T* y) {
  sweep<Sweep::add>(A, static_cast<const StencilZones<T>*>(nullptr), x,
                    static_cast<const T*>(nullptr), T(0), y);
}

template <class T>
void defect(const BandedMatrix<T>& A, const T* b, const T* x, T* d) {
  sweep<Sweep::defect>(A, static_cast<const StencilZones<T>*>(nullptr), x, b, T(0), d);
}

template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, T omega, const T* b, const T* x, T* x_new) {
  sweep<Sweep::jacobi>(A, static_cast<const StencilZones<T>*>(nullptr), x, b, omega, x_new);
}

template <class T>
void spmv(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* x, T* y) {
  sweep<Sweep::spmv>(A, &zones, x, static_cast<const T*>(nullptr), T(0), y);
}

template <class T>
void defect(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* b, const T* x, T* d) {
  sweep<Sweep::defect>(A, &zones, x, b, T(0), d);
}

template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, const StencilZones<T>& zones, T omega, const T* b,
                  const T* x, T* x_new) {
  sweep<Sweep::jacobi>(A, &zones, x, b, omega, x_new);
}

template <class T>
void jacobi_from_zero(const BandedMatrix<T>& A, const StencilZones<T>& zones, T omega, const T* b,
                      T* x_new) {
  const int n = A.n;
  const std::size_t nn = A.rows_per_macro();
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = m * nn;
    if (!zones.is_zoned(m)) {
      const T* __restrict diagonal = A.band[kCentre].data() + base;
      const T* __restrict bm = b + base;
      T* __restrict out = x_new + base;
      for (std::size_t r = 0; r < nn; ++r) out[r] = omega * (T(1) / diagonal[r]) * bm[r];
      continue;
    }
    // Per grid line its 5 zones: node 0, node 1, the middle run, node n-2, node n-1.
    T inverse[kZonesPerAxis][kZonesPerAxis];
    for (int zy = 0; zy < kZonesPerAxis; ++zy)
      for (int zx = 0; zx < kZonesPerAxis; ++zx)
        inverse[zy][zx] = inverse_centre(zones.stencil(m, zx, zy));
    for (int j = 0; j < n; ++j) {
      const std::size_t row = base + static_cast<std::size_t>(j) * n;
      const T* d = inverse[zone_of(j, n)];
      for (int i = 0; i < n; ++i) x_new[row + i] = omega * d[zone_of(i, n)] * b[row + i];
    }
  }
}

template void spmv(const BandedMatrix<float>&, const float*, float*);
template void spmv(const BandedMatrix<double>&, const double*, double*);
template void spmv_add(const BandedMatrix<float>&, const float*, float*);
template void spmv_add(const BandedMatrix<double>&, const double*, double*);
template void defect(const BandedMatrix<float>&, const float*, const float*, float*);
template void defect(const BandedMatrix<double>&, const double*, const double*, double*);
template void jacobi_sweep(const BandedMatrix<float>&, float, const float*, const float*, float*);
template void jacobi_sweep(const BandedMatrix<double>&, double, const double*, const double*,
                           double*);
template void spmv(const BandedMatrix<float>&, const StencilZones<float>&, const float*, float*);
template void spmv(const BandedMatrix<double>&, const StencilZones<double>&, const double*,
                   double*);
template void defect(const BandedMatrix<float>&, const StencilZones<float>&, const float*,
                     const float*, float*);
template void defect(const BandedMatrix<double>&, const StencilZones<double>&, const double*,
                     const double*, double*);
template void jacobi_sweep(const BandedMatrix<float>&, const StencilZones<float>&, float,
                           const float*, const float*, float*);
template void jacobi_sweep(const BandedMatrix<double>&, const StencilZones<double>&, double,
                           const double*, const double*, double*);

template void jacobi_from_zero(const BandedMatrix<float>&, const StencilZones<float>&, float,
                               const float*, float*);
template void jacobi_from_zero(const BandedMatrix<double>&, const StencilZones<double>&, double,
                               const double*, double*);

template void spmv_pair(const BandedMatrix<float>&, const StencilZones<float>*, const float*,
                        const float*, float*, float*);
template void spmv_pair(const BandedMatrix<double>&, const StencilZones<double>*, const double*,
                        const double*, double*, double*);
template void defect_pair(const BandedMatrix<float>&, const StencilZones<float>*, const float*,
                          const float*, float*, const float*, const float*, float*);
template void defect_pair(const BandedMatrix<double>&, const StencilZones<double>*, const double*,
                          const double*, double*, const double*, const double*, double*);

}  // namespace quilt::accel::cpu

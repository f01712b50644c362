// quilt-bench-local: how close the local layer's cpu target comes to the memory bandwidth of one
// core. Prints one Markdown table with
//   (1) a STREAM-like triad a = b + s c (the attainable bandwidth), the strip gather of the
//       y-line sweeps and their moves alone (gather and scatter), and 12 arrays streamed at one
//       index with every array at one page offset and staggered in their pages
//       (accel/staggered_allocator.hpp),
//   (2) the banded SpMV of accel::cpu::spmv, bytes moved = (9 bands + x + y) * sizeof(T) * rows,
//       and its ratio to the triad,
//   (3) the kernels of the local layer, bands against constant-stencil zones
//       (accel/stencil_zones.hpp): SpMV, defect, one sweep of Jacobi, Gauss-Seidel, ILU(0),
//       the x- and the y-line TRIGS and ADI-TRIGS, in
//       unknowns/s and GB/s (bytes of the arrays each one streams) against a triad run
//       alternately with each kernel's repetitions: best against best, and paired (the median
//       of each repetition against the triad run just before it),
//   (4) the same band kernels in cache (2 macros at level 7), ns per unknown in double and
//       float: the cost of their arithmetic and its code,
//   (5) the time per unknown of one local V-cycle on a batch of Q1 Laplacians: the default cycle
//       on every level, and one V(2,2) cycle (V(4,4) for Jacobi too) of every smoother on one
//       level, in double and float.
// Every working set but (4)'s is a multiple of the last-level cache, so those figures are memory
// figures.
//
//   quilt-bench-local [--quick] [--kernels]
//       --quick: small sizes and few repetitions (a smoke run); --kernels: (1), (3) and (4) only
//   quilt-bench-local --cycle SMOOTHER ORDERING PRE POST LEVEL MACROS PRECISION COARSE REPS
//       one Markdown row: the best-of-REPS seconds of one local solve (defect in, one V(PRE,
//       POST) cycle on levels COARSE..LEVEL, correction out) on MACROS band-path Q1 macros; the
//       cpu times of the GPU performance model (bench/gpu_model.py).

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/local_solver.hpp"
#include "accel/staggered_allocator.hpp"
#include "accel/stencil_zones.hpp"

namespace {

using quilt::accel::BandedMatrix;
using Clock = std::chrono::steady_clock;

struct Config {
  bool quick = false;
  bool kernels_only = false;    ///< --kernels: the triad and the kernel table only
  std::size_t working_set = 0;  ///< bytes each measurement streams through
  int reps = 0;
  int cycle_reps = 0;
  std::vector<int> levels;
  int coarse_level = 2;
};

std::size_t last_level_cache() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return llc > 0 ? static_cast<std::size_t>(llc) : std::size_t(32) << 20;
}

template <class F>
double best_seconds(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

/// Keeps a result alive so the compiler cannot drop the loop that produced it.
template <class T>
void keep(const T* p) {
  asm volatile("" : : "r"(p) : "memory");
}

/// The triad a = b + s c over arrays of the working set's size, kept so that it can run beside
/// each repetition of a kernel.
class Triad {
 public:
  explicit Triad(const Config& cfg)
      : len_(cfg.working_set / 3 / sizeof(double)), a_(len_, 0.0), b_(len_, 1.0), c_(len_, 2.0) {}
  /// Seconds of one triad.
  double seconds() {
    const auto t0 = Clock::now();
    double* __restrict pa = a_.data();
    const double* __restrict pb = b_.data();
    const double* __restrict pc = c_.data();
    const double s = 3.0;
    for (std::size_t i = 0; i < len_; ++i) pa[i] = pb[i] + s * pc[i];
    keep(pa);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }
  /// Bytes of one array; the triad counts the 3 arrays once each (no write-allocate).
  std::size_t array_bytes() const { return len_ * sizeof(double); }
  double bandwidth(double seconds) const {
    return 3.0 * static_cast<double>(array_bytes()) / seconds;
  }

 private:
  std::size_t len_;
  quilt::accel::StaggeredVector<double> a_, b_, c_;
};

/// Triad bandwidth in bytes/s, counting the 3 arrays once each (no write-allocate).
double triad_bandwidth(const Config& cfg, std::size_t* array_bytes) {
  Triad triad(cfg);
  *array_bytes = triad.array_bytes();
  double best = 1e300;
  for (int r = 0; r < cfg.reps; ++r) best = std::min(best, triad.seconds());
  return triad.bandwidth(best);
}

/// A kernel's best-of-reps seconds and the best triad bandwidth of a triad run alternately with
/// it, so that both come from the same seconds: this VM's bandwidth drifts by up to +-20 % within
/// minutes, and a triad measured once for a whole table misjudged the kernels measured later.
/// Besides the two bests, the median over the repetitions of (the triad's seconds / the kernel's
/// seconds) of each triad and the kernel run right after it: a ratio of two timings under the
/// same load, which the bests, each from its own quietest moment, are not.
struct Timing {
  double seconds = 0.0;
  double triad = 0.0;        ///< bytes/s
  double paired = 0.0;       ///< median of triad seconds / kernel seconds, one pair per repetition
  double triad_bytes = 0.0;  ///< what the triad streams, as Triad::bandwidth counts it
};

template <class F>
Timing best_beside_triad(int reps, Triad& triad, F&& f) {
  double best = 1e300, best_triad = 1e300;
  std::vector<double> ratios;
  for (int r = 0; r < reps; ++r) {
    const double t_triad = triad.seconds();
    best_triad = std::min(best_triad, t_triad);
    const auto t0 = Clock::now();
    f();
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, t);
    ratios.push_back(t_triad / t);
  }
  std::sort(ratios.begin(), ratios.end());
  const std::size_t h = ratios.size() / 2;
  const double median = ratios.size() % 2 ? ratios[h] : 0.5 * (ratios[h - 1] + ratios[h]);
  return {best, triad.bandwidth(best_triad), median, triad.bandwidth(1.0)};
}

/// y = a_1 + ... + a_11 over len entries, the 12 arrays of a[] streamed at one index.
void add_eleven_arrays(const std::array<double*, 12>& a, std::size_t len) {
  // One restrict pointer per array: with 11 possible overlaps to rule out at run time the
  // compiler would not vectorise the loop.
  const double* __restrict a1 = a[0];
  const double* __restrict a2 = a[1];
  const double* __restrict a3 = a[2];
  const double* __restrict a4 = a[3];
  const double* __restrict a5 = a[4];
  const double* __restrict a6 = a[5];
  const double* __restrict a7 = a[6];
  const double* __restrict a8 = a[7];
  const double* __restrict a9 = a[8];
  const double* __restrict a10 = a[9];
  const double* __restrict a11 = a[10];
  double* __restrict y = a[11];
  for (std::size_t i = 0; i < len; ++i)
    y[i] = (((a1[i] + a2[i]) + (a3[i] + a4[i])) + ((a5[i] + a6[i]) + (a7[i] + a8[i]))) +
           ((a9[i] + a10[i]) + a11[i]);
  keep(y);
}

/// Bytes/s of add_eleven_arrays, 12 arrays as a Jacobi sweep with bands streams them.
/// `staggered`: the arrays as the kernels' storage places them (accel/staggered_allocator.hpp);
/// else each at the start of a page, where malloc's mmap path puts every large array (at one
/// offset in its page).
double twelve_array_bandwidth(const Config& cfg, bool staggered) {
  constexpr int kArrays = 12;
  constexpr std::size_t kPageDoubles = 4096 / sizeof(double);
  const std::size_t len = cfg.working_set / kArrays / sizeof(double);
  std::vector<quilt::accel::StaggeredVector<double>> storage;
  std::array<double*, kArrays> a{};
  for (int k = 0; k < kArrays; ++k) {
    storage.emplace_back(len + kPageDoubles, 1.0);
    double* d = storage.back().data();
    const std::size_t into_page =
        reinterpret_cast<std::uintptr_t>(d) / sizeof(double) % kPageDoubles;
    a[k] = staggered ? d : d + (kPageDoubles - into_page) % kPageDoubles;
  }
  const double t = best_seconds(cfg.reps, [&] { add_eleven_arrays(a, len); });
  return kArrays * static_cast<double>(len) * sizeof(double) / t;
}

/// The local Q1 Laplacian (8/3, -1/3), Dirichlet unit rows all round, macro m scaled by 1 + m.
template <class T>
BandedMatrix<T> q1_batch(int level, int macros) {
  const int n = quilt::accel::nodes_per_side(level);
  BandedMatrix<T> A(macros, n);
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = i + static_cast<std::size_t>(j) * n;
        if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
          A.at(quilt::accel::kCentre, m, r) = T(1);
          continue;
        }
        for (int k = 0; k < quilt::accel::kBands; ++k)
          A.at(k, m, r) =
              static_cast<T>((k == quilt::accel::kCentre ? 8.0 / 3.0 : -1.0 / 3.0) * (1.0 + m));
      }
  return A;
}

int macros_for(const Config& cfg, std::size_t bytes_per_macro) {
  return static_cast<int>(
      std::max<std::size_t>(1, (cfg.working_set + bytes_per_macro - 1) / bytes_per_macro));
}

/// Bytes/s that a y-line strip gather reads: transpose_tile (grid_transpose.hpp) of every piece
/// of `piece_bytes` of the n grid rows of a strip, n doubles apart, into a buffer that stays in
/// cache; the strided access to memory that a y-line sweep cannot avoid for x and b. The buffer's
/// lines are as far apart as the sweep's (strip_buffer_stride).
double strip_gather_bandwidth(const Config& cfg, int level, int piece_bytes, int* macros) {
  const int n = quilt::accel::nodes_per_side(level);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t ld = quilt::accel::cpu::strip_buffer_stride<double>(n);
  const int width = piece_bytes / static_cast<int>(sizeof(double));
  *macros = macros_for(cfg, nn * sizeof(double));
  std::vector<double> x(nn * *macros, 1.0), strip(ld * width);
  const double t = best_seconds(cfg.reps, [&] {
    for (int m = 0; m < *macros; ++m)
      for (int i0 = 0; i0 + width <= n; i0 += width)
        quilt::accel::cpu::transpose_tile(x.data() + m * nn + i0, n, strip.data(), ld, n, width);
    keep(strip.data());
  });
  return static_cast<double>(*macros) * n * (n / width * width) * sizeof(double) / t;
}

/// Unknowns/s of a y-line sweep's moves without its relaxation: for every strip of the y-lines
/// (kYLineStrip pieces of the grid rows), x with its next line and b gathered into one of two
/// alternating buffer sets, and x scattered back, as LineSmoother's lexicographic y-sweep moves
/// them (its neighbour line copied from the previous set is left out: an n-element copy in
/// cache). Beside the kernel table's y-line sweep, it tells what share of that sweep the moves
/// take. Doubles.
double strip_moves_rate(const Config& cfg, int level, int* macros) {
  namespace cpu = quilt::accel::cpu;
  const int n = quilt::accel::nodes_per_side(level);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t ld = cpu::strip_buffer_stride<double>(n);
  constexpr int kStrip = cpu::kYLineStrip<double>;
  *macros = macros_for(cfg, 2 * nn * sizeof(double));
  quilt::accel::StaggeredVector<double> x(nn * *macros, 1.0), b(nn * *macros, 0.5);
  std::vector<double> x_strip(2 * (kStrip + 2) * ld), b_strip(2 * kStrip * ld);
  const double t = best_seconds(cfg.reps, [&] {
    for (int m = 0; m < *macros; ++m)
      for (int i0 = 0, set = 0; i0 < n; i0 += kStrip, set = 1 - set) {
        const int width = std::min(kStrip, n - i0), next = i0 + width < n ? 1 : 0;
        double* xs = x_strip.data() + set * (kStrip + 2) * ld;
        cpu::transpose_tile(x.data() + m * nn + i0, n, xs + ld, ld, n, width + next);
        cpu::transpose_tile(b.data() + m * nn + i0, n, b_strip.data() + set * kStrip * ld, ld, n,
                            width);
        keep(xs);
        cpu::transpose_tile(xs + ld, ld, x.data() + m * nn + i0, n, width, n);
      }
    keep(x.data());
  });
  return static_cast<double>(*macros) * static_cast<double>(nn) / t;
}

struct SpmvResult {
  int macros = 0;
  double bytes_per_second = 0.0;
  double seconds_per_row = 0.0;
};

template <class T>
SpmvResult spmv_bandwidth(const Config& cfg, int level) {
  const std::size_t n = quilt::accel::nodes_per_side(level);
  const std::size_t bytes_per_row = (quilt::accel::kBands + 2) * sizeof(T);
  SpmvResult res;
  res.macros = macros_for(cfg, bytes_per_row * n * n);
  const BandedMatrix<T> A = q1_batch<T>(level, res.macros);
  quilt::accel::StaggeredVector<T> x(A.rows(), T(1)), y(A.rows(), T(0));
  const double t = best_seconds(cfg.reps, [&] {
    quilt::accel::cpu::spmv(A, x.data(), y.data());
    keep(y.data());
  });
  res.bytes_per_second = static_cast<double>(bytes_per_row * A.rows()) / t;
  res.seconds_per_row = t / static_cast<double>(A.rows());
  return res;
}

struct CycleResult {
  int macros = 0;
  double ns_per_unknown = 0.0;
};

CycleResult vcycle_time(const Config& cfg, int level, quilt::accel::LocalSolverParams p) {
  const std::size_t n = quilt::accel::nodes_per_side(level);
  const std::size_t t_size = p.precision == quilt::accel::Precision::float32 ? 4 : 8;
  // The solver's finest level: 9 bands, 1/diag, b, two iterates and a defect.
  CycleResult res;
  res.macros = macros_for(cfg, 14 * t_size * n * n);
  p.max_cycles = 1;
  auto solver = quilt::accel::make_local_solver(p);
  {
    std::vector<BandedMatrix<double>> hierarchy;
    for (int L = cfg.coarse_level; L <= level; ++L)
      hierarchy.push_back(q1_batch<double>(L, res.macros));
    std::vector<const BandedMatrix<double>*> levels;
    for (const auto& A : hierarchy) levels.push_back(&A);
    solver->setup(levels);  // the solver keeps its own converted copies
  }
  const std::size_t rows = n * n * res.macros;
  quilt::accel::StaggeredVector<double> d(rows), c(rows);
  for (std::size_t r = 0; r < rows; ++r) d[r] = static_cast<double>((r * 7919) % 1000) * 1e-3;
  const double t = best_seconds(cfg.cycle_reps, [&] { solver->solve(d.data(), c.data()); });
  res.ns_per_unknown = t / static_cast<double>(rows) * 1e9;
  return res;
}

/// q1_batch with every macro kept on the band path: a -0 where the storage convention has +0 (a
/// south-west entry of the first grid line) changes no result but makes the rows differ in their
/// bits, which the zone detection refuses.
template <class T>
BandedMatrix<T> banded_only(BandedMatrix<T> A) {
  for (int m = 0; m < A.macros; ++m) A.at(0, m, 3) = T(-0.0);
  return A;
}

/// Seconds of one call of each kernel on A (bands or zones as A's detection gives), each beside
/// its triad. gs and ilu, which have no zone form, only where `point_smoothers` (else 0).
struct KernelTimes {
  Timing spmv, defect, jacobi, gs, ilu, line, line_x, line_y;
};

/// The kernels of the tables, in their order: the name, the time in KernelTimes, and the arrays
/// each streams per row in band form and in zone form (0: no zone form). The 9 bands plus the
/// vectors (Jacobi divides by band 4 rather than read a stored inverse: x, b and the result, 12
/// arrays; Gauss-Seidel likewise, x read and written in place). ILU(0) in its remainder form
/// with omega = 1, as timed here: upwards the 4 bands of R, the 4 of L, b, x and
/// v = L^{-1} (b + R x) written; downwards the 5 of U, v, and x written (read too where
/// omega != 1): 18. ADI-TRIGS: an x-line sweep reads 6 coupling bands, the lower band and 2
/// factor arrays, b, and reads and writes x; the y-line sweep the same on the transposed grid (b
/// and x moved through a strip in cache): 2 x (9 + 3) band-form arrays, 2 x 3 zone-form ones (a
/// zone's bands stay in cache).
struct KernelRow {
  const char* name;
  Timing KernelTimes::*time;
  int band_arrays, zone_arrays;
};
constexpr KernelRow kKernelRows[] = {
    {"SpMV y = A x", &KernelTimes::spmv, 11, 2},
    {"defect d = b - A x", &KernelTimes::defect, 12, 3},
    {"Jacobi sweep", &KernelTimes::jacobi, 12, 3},
    {"Gauss-Seidel sweep", &KernelTimes::gs, 12, 0},
    {"ILU(0) sweep", &KernelTimes::ilu, 18, 0},
    {"TRIGS sweep, x-lines", &KernelTimes::line_x, 12, 3},
    {"TRIGS sweep, y-lines", &KernelTimes::line_y, 12, 3},
    {"ADI-TRIGS sweep (x and y lines)", &KernelTimes::line, 24, 6}};

/// Repetitions of a kernel timed in cache: each takes well under a millisecond.
constexpr int kCacheReps = 200;

/// triad: run beside each repetition (the kernels from memory); null: the kernels timed
/// kCacheReps times in a row after one warm-up call, their arrays in the caches (Timing::triad 0).
template <class T>
KernelTimes kernel_times(const Config& cfg, Triad* triad, const BandedMatrix<T>& A,
                         bool point_smoothers) {
  namespace cpu = quilt::accel::cpu;
  const quilt::accel::StencilZones<T> zones = quilt::accel::detect_stencil_zones(A);
  quilt::accel::StaggeredVector<T> x(A.rows(), T(1)), b(A.rows(), T(0.5)), y(A.rows(), T(0));
  const auto time = [&](auto&& f) {
    if (triad != nullptr) return best_beside_triad(cfg.reps, *triad, f);
    f();
    return Timing{best_seconds(kCacheReps, f), 0.0};
  };
  KernelTimes t{};
  t.spmv = time([&] {
    cpu::spmv(A, zones, x.data(), y.data());
    keep(y.data());
  });
  t.defect = time([&] {
    cpu::defect(A, zones, b.data(), x.data(), y.data());
    keep(y.data());
  });
  t.jacobi = time([&] {
    cpu::jacobi_sweep(A, zones, T(0.7), b.data(), x.data(), y.data());
    keep(y.data());
  });
  const auto sweep_timing = [&](quilt::accel::SmootherType type) {
    auto line = cpu::make_smoother(A, {type, quilt::accel::SweepOrder::lexicographic, 1.0});
    return time([&] {
      line->smooth(A, b.data(), y.data(), 1, cpu::SweepDirection::forward, false);
      keep(y.data());
    });
  };
  if (point_smoothers) {
    t.gs = sweep_timing(quilt::accel::SmootherType::gs);
    t.ilu = sweep_timing(quilt::accel::SmootherType::ilu);
  }
  t.line = sweep_timing(quilt::accel::SmootherType::aditrigs);
  t.line_x = sweep_timing(quilt::accel::SmootherType::trigs_x);
  t.line_y = sweep_timing(quilt::accel::SmootherType::trigs_y);
  return t;
}

/// The band kernels against the constant-stencil ones on the finest benchmark level, each row's
/// share of the triad against the triad run beside it. Widens [low, high] to those triads.
template <class T>
void kernel_rows(const Config& cfg, const char* precision, double& low, double& high) {
  const int L = cfg.levels.back();
  const std::size_t n = quilt::accel::nodes_per_side(L);
  const int macros = macros_for(cfg, (quilt::accel::kBands + 4) * sizeof(T) * n * n);
  const BandedMatrix<T> zoned = q1_batch<T>(L, macros);
  Triad triad(cfg);
  const KernelTimes z = kernel_times(cfg, &triad, zoned, false);
  const KernelTimes v = kernel_times(cfg, &triad, banded_only(zoned), true);
  const double rows = static_cast<double>(zoned.rows());
  for (const KernelRow& k : kKernelRows) {
    const Timing& band = v.*k.time;
    const double band_gbs = k.band_arrays * sizeof(T) * rows / band.seconds;
    low = std::min(low, band.triad);
    high = std::max(high, band.triad);
    // bytes / kernel seconds against triad bytes / triad seconds, pair by pair
    const double band_paired = k.band_arrays * sizeof(T) * rows / band.triad_bytes * band.paired;
    std::printf("| %s | %s | %.0f | %.2f GB/s (%.0f%%; paired %.0f%%) | ", k.name, precision,
                rows / band.seconds * 1e-6, band_gbs * 1e-9, 100.0 * band_gbs / band.triad,
                100.0 * band_paired);
    if (k.zone_arrays == 0) {
      std::printf("- | - | - |\n");
      continue;
    }
    const Timing& zone = z.*k.time;
    low = std::min(low, zone.triad);
    high = std::max(high, zone.triad);
    const double zone_gbs = k.zone_arrays * sizeof(T) * rows / zone.seconds;
    std::printf("%.0f | %.2f GB/s (%.0f%%) | %.2f |\n", rows / zone.seconds * 1e-6, zone_gbs * 1e-9,
                100.0 * zone_gbs / zone.triad, band.seconds / zone.seconds);
  }
}

void kernel_table(const Config& cfg) {
  std::printf(
      "\n## Band kernels against constant-stencil zones, level %d (Q1 Laplacians, one stencil "
      "per macro); vs triad: against the best of a triad run alternately with the kernel's "
      "repetitions; paired: the median over the repetitions of each kernel run against the triad "
      "run just before it\n\n",
      cfg.levels.back());
  std::printf(
      "| kernel | precision | bands: Munknowns/s | bands: streamed (vs triad) | zones: "
      "Munknowns/s | zones: streamed (vs triad) | zones / bands speed |\n"
      "|---|---|---|---|---|---|---|\n");
  double low = 1e300, high = 0.0;
  kernel_rows<double>(cfg, "double", low, high);
  kernel_rows<float>(cfg, "float", low, high);
  std::printf("\nTriads beside the kernels %.2f-%.2f GB/s.\n", low * 1e-9, high * 1e-9);
}

/// The band kernels on a batch whose arrays stay in the caches (2 macros at L = 7: 3.2 MiB in
/// double), ns per unknown: what the arithmetic and its code cost without the memory. Double
/// against float: the streaming kernels (SpMV, defect, Jacobi) are bound by the cache's
/// bandwidth, 2-3 times; the sweeps with recurrences by their arithmetic, 1.3-2 (half the lanes
/// per register). The double x-line sweep took 3.4 times the float one while GCC 12 built its
/// recurrences' blocks through the stack (linear_recurrence.hpp; docs/benchmarks.md,
/// 2026-11-29, 12:40 UTC).
void cached_kernel_table(const Config& cfg) {
  const int L = std::min(7, cfg.levels.back()), macros = 2;
  const BandedMatrix<double> A = banded_only(q1_batch<double>(L, macros));
  const KernelTimes d = kernel_times(cfg, nullptr, A, true);
  const KernelTimes f = kernel_times(cfg, nullptr, banded_only(q1_batch<float>(L, macros)), true);
  const double rows = static_cast<double>(A.rows());
  std::printf(
      "\n## Band kernels in cache, level %d, %d macros (best of %d in a row): ns per unknown\n\n"
      "| kernel | double | float | double / float |\n|---|---|---|---|\n",
      L, macros, kCacheReps);
  for (const KernelRow& k : kKernelRows) {
    const double ns_double = (d.*k.time).seconds / rows * 1e9;
    const double ns_float = (f.*k.time).seconds / rows * 1e9;
    std::printf("| %s | %.2f | %.2f | %.2f |\n", k.name, ns_double, ns_float, ns_double / ns_float);
  }
}

/// One V-cycle of every smoother on the finest benchmark level, double and float.
void smoother_table(const Config& cfg, double triad) {
  using quilt::accel::SmootherType;
  using quilt::accel::SweepOrder;
  struct Variant {
    SmootherType type;
    SweepOrder order;
    int smoothing;
  };
  const Variant variants[] = {
      {SmootherType::jacobi, SweepOrder::lexicographic, 4},
      {SmootherType::jacobi, SweepOrder::lexicographic, 2},
      {SmootherType::gs, SweepOrder::lexicographic, 2},
      {SmootherType::gs, SweepOrder::colour, 2},
      {SmootherType::ssor, SweepOrder::lexicographic, 2},
      {SmootherType::trigs_x, SweepOrder::lexicographic, 2},
      {SmootherType::trigs_y, SweepOrder::lexicographic, 2},
      {SmootherType::aditrigs, SweepOrder::lexicographic, 2},
      {SmootherType::aditrigs, SweepOrder::colour, 2},
      {SmootherType::ilu, SweepOrder::lexicographic, 2},
  };
  const int L = cfg.levels.back();
  std::printf(
      "\n## One local V-cycle per smoother, level %d (levels %d..%d), ns per unknown; triad %.2f "
      "GB/s, i.e. %.2f ns to stream one double (%.2f one float)\n\n",
      L, cfg.coarse_level, L, triad * 1e-9, 8e9 / triad, 4e9 / triad);
  std::printf("| smoother | cycle | double | float | float / double |\n|---|---|---|---|---|\n");
  for (const Variant& v : variants) {
    double ns[2];
    int k = 0;
    for (auto prec : {quilt::accel::Precision::float64, quilt::accel::Precision::float32}) {
      quilt::accel::LocalSolverParams p;
      p.precision = prec;
      p.smoother = v.type;
      p.ordering = v.order;
      p.pre_smooth = p.post_smooth = v.smoothing;
      ns[k++] = vcycle_time(cfg, L, p).ns_per_unknown;
    }
    std::printf("| %s%s | V(%d,%d) | %.2f | %.2f | %.2f |\n", to_string(v.type).c_str(),
                v.order == SweepOrder::colour ? "/colour" : "", v.smoothing, v.smoothing, ns[0],
                ns[1], ns[1] / ns[0]);
  }
}

/// --cycle: the cpu time of one local solve for bench/gpu_model.py, on the band path (every
/// level banded_only: the cuda target reads the 9 bands whatever the stencil).
int model_cycle(char** arg) {
  quilt::accel::LocalSolverParams p;
  p.smoother = quilt::accel::parse_smoother(arg[0]);
  p.ordering = quilt::accel::parse_sweep_order(arg[1]);
  p.pre_smooth = std::atoi(arg[2]);
  p.post_smooth = std::atoi(arg[3]);
  const int level = std::atoi(arg[4]), macros = std::atoi(arg[5]);
  p.precision = quilt::accel::parse_precision(arg[6]);
  const int coarse = std::atoi(arg[7]), reps = std::max(1, std::atoi(arg[8]));
  auto solver = quilt::accel::make_local_solver(p);
  {
    std::vector<BandedMatrix<double>> hierarchy;
    for (int L = coarse; L <= level; ++L)
      hierarchy.push_back(banded_only(q1_batch<double>(L, macros)));
    std::vector<const BandedMatrix<double>*> levels;
    for (const auto& A : hierarchy) levels.push_back(&A);
    solver->setup(levels);
  }
  const std::size_t n = quilt::accel::nodes_per_side(level);
  const std::size_t rows = n * n * macros;
  quilt::accel::StaggeredVector<double> d(rows), c(rows);
  for (std::size_t r = 0; r < rows; ++r) d[r] = static_cast<double>((r * 7919) % 1000) * 1e-3;
  const double t = best_seconds(reps, [&] { solver->solve(d.data(), c.data()); });
  std::printf("| %s | %s | %d | %d | %d | %d | %s | %d | %d | %.6e |\n", arg[0], arg[1],
              p.pre_smooth, p.post_smooth, level, macros, arg[6], coarse, reps, t);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (argc == 11 && std::strcmp(argv[1], "--cycle") == 0) {
    try {
      return model_cycle(argv + 2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "quilt-bench-local --cycle: %s\n", e.what());
      return 2;
    }
  }
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      cfg.quick = true;
    } else if (std::strcmp(argv[i], "--kernels") == 0) {
      cfg.kernels_only = true;
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--quick] [--kernels]\n       %s --cycle SMOOTHER ORDERING PRE POST LEVEL "
          "MACROS PRECISION COARSE REPS\n",
          argv[0], argv[0]);
      return 2;
    }
  }
  const std::size_t llc = last_level_cache();
  if (cfg.quick) {
    cfg.working_set = std::size_t(24) << 20;
    cfg.reps = 2;
    cfg.cycle_reps = 1;
    cfg.levels = {5, 6};
  } else {
    cfg.working_set = std::max(std::size_t(192) << 20, 4 * llc);
    cfg.reps = 8;
    cfg.cycle_reps = 3;
    cfg.levels = {8, 9, 10};
  }

  std::size_t array_bytes = 0;
  const double triad = triad_bandwidth(cfg, &array_bytes);

  std::printf("# quilt-bench-local%s: one thread, last-level cache %.0f MiB\n\n",
              cfg.quick ? " --quick" : "", llc / 1048576.0);
  std::printf("| measurement | level | precision | macros | working set | result | vs triad |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::printf(
      "| triad a = b + s c (3 arrays) | - | double | - | 3 x %.0f MiB | %.2f GB/s | 100%% |\n",
      array_bytes / 1048576.0, triad * 1e-9);
  std::printf(
      "| triad, write-allocate counted (4 arrays) | - | double | - | 3 x %.0f MiB | %.2f GB/s "
      "| - |\n",
      array_bytes / 1048576.0, triad * 4.0 / 3.0 * 1e-9);
  // The y-line sweep's strips (512 bytes of a row), and strips a cache line wide for comparison.
  for (const int piece : {64, 512}) {
    int macros = 0;
    const int L = cfg.levels.back();
    const double gather = strip_gather_bandwidth(cfg, L, piece, &macros);
    std::printf(
        "| y-line strip gather: %d-byte pieces of every grid row, n doubles apart (read) | %d | "
        "double | %d | %.0f MiB | %.2f GB/s | %.0f%% |\n",
        piece, L, macros, 8.0 * macros * std::pow(quilt::accel::nodes_per_side(L), 2) / 1048576.0,
        gather * 1e-9, 100.0 * gather / triad);
  }
  {
    int macros = 0;
    const int L = cfg.levels.back();
    const double rate = strip_moves_rate(cfg, L, &macros);
    std::printf(
        "| y-line moves alone: x and b of every strip in, x out (24 bytes per unknown) | %d | "
        "double | %d | %.0f MiB | %.0f Munknowns/s, %.2f GB/s | %.0f%% |\n",
        L, macros, 16.0 * macros * std::pow(quilt::accel::nodes_per_side(L), 2) / 1048576.0,
        rate * 1e-6, 24.0 * rate * 1e-9, 100.0 * 24.0 * rate / triad);
  }
  for (const bool staggered : {false, true}) {
    const double bw = twelve_array_bandwidth(cfg, staggered);
    std::printf(
        "| 12 arrays, y = a_1 + ... + a_11, %s | - | double | - | %.0f MiB | %.2f GB/s | "
        "%.0f%% |\n",
        staggered ? "staggered in their pages (the kernels' storage)"
                  : "every array at one page offset",
        cfg.working_set / 1048576.0, bw * 1e-9, 100.0 * bw / triad);
  }
  if (cfg.kernels_only) {
    kernel_table(cfg);
    cached_kernel_table(cfg);
    return 0;
  }

  struct Row {
    int level;
    const char* precision;
    SpmvResult spmv;
  };
  std::vector<Row> spmv_rows;
  for (int L : cfg.levels) {
    spmv_rows.push_back({L, "double", spmv_bandwidth<double>(cfg, L)});
    spmv_rows.push_back({L, "float", spmv_bandwidth<float>(cfg, L)});
  }
  for (const Row& r : spmv_rows) {
    const std::size_t n = quilt::accel::nodes_per_side(r.level);
    const std::size_t t_size = std::strcmp(r.precision, "float") == 0 ? 4 : 8;
    std::printf("| banded SpMV, 11 streams | %d | %s | %d | %.0f MiB | %.2f GB/s | %.0f%% |\n",
                r.level, r.precision, r.spmv.macros,
                11.0 * t_size * n * n * r.spmv.macros / 1048576.0, r.spmv.bytes_per_second * 1e-9,
                100.0 * r.spmv.bytes_per_second / triad);
  }
  for (int L : cfg.levels) {
    for (auto prec : {quilt::accel::Precision::float64, quilt::accel::Precision::float32}) {
      quilt::accel::LocalSolverParams params;
      params.precision = prec;
      const CycleResult cyc = vcycle_time(cfg, L, params);
      const bool is_float = prec == quilt::accel::Precision::float32;
      const auto it = std::find_if(spmv_rows.begin(), spmv_rows.end(), [&](const Row& r) {
        return r.level == L && std::strcmp(r.precision, is_float ? "float" : "double") == 0;
      });
      const std::size_t n = quilt::accel::nodes_per_side(L);
      std::printf(
          "| local V(%d,%d) %s cycle (levels %d..%d) | %d | %s | %d | %.0f MiB | %.2f "
          "ns/unknown (= %.1f SpMV) | - |\n",
          params.pre_smooth, params.post_smooth, to_string(params.smoother).c_str(),
          cfg.coarse_level, L, L, quilt::accel::to_string(prec).c_str(), cyc.macros,
          14.0 * (is_float ? 4 : 8) * n * n * cyc.macros / 1048576.0, cyc.ns_per_unknown,
          cyc.ns_per_unknown * 1e-9 / it->spmv.seconds_per_row);
    }
  }
  kernel_table(cfg);
  cached_kernel_table(cfg);
  smoother_table(cfg, triad);
  std::printf(
      "\nSpMV bytes = (9 bands + x + y) * sizeof(T) * rows; the triad counts a, b, c once "
      "each. A V-cycle solve includes the double->T defect and T->double correction "
      "conversion; \"= k SpMV\" is its time in SpMVs of the same level and precision.\n");
  return 0;
}

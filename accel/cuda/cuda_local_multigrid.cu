// The cuda target of the local layer (design.md §7): the V(pre, post) multigrid of the cpu target
// (accel/cpu/local_multigrid.hpp), step for step, on the GPU. All macros of a level live in one
// contiguous band storage and every operation is one kernel launch over the whole batch. A solve
// moves the defect in and the correction out in double, one transfer each on the solver's own
// stream -- straight from and to the caller's vectors when pin_io() page-locked them, else
// through pinned staging buffers -- and converts to and from T on the device; with digits > 0 it
// also reads back one norm per macro per cycle.

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "accel/cpu/dense_lu.hpp"
#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/ilu_smoother.hpp"
#include "accel/cpu/smoothers/line_smoother.hpp"
#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/cuda_graph.cuh"
#include "accel/cuda/cuda_local_solver.hpp"
#include "accel/cuda/device_buffer.cuh"
#include "accel/cuda/device_probe.cuh"
#include "accel/cuda/device_selection.cuh"
#include "accel/cuda/ilu_kernels.cuh"
#include "accel/cuda/smoother_kernels.cuh"

namespace quilt::accel {
namespace cuda {
namespace {

// The coarse solve keeps one right-hand side per block in shared memory without opting in to
// more than the default 48 KiB.
constexpr std::size_t kCoarseSharedLimit = 48 * 1024;

constexpr const char* kSetup = "cuda local multigrid setup";
constexpr const char* kUpdate = "cuda local multigrid update";

bool x_lines(SmootherType s) {
  return s == SmootherType::trigs_x || s == SmootherType::aditrigs;
}
bool y_lines(SmootherType s) {
  return s == SmootherType::trigs_y || s == SmootherType::aditrigs;
}
bool lines(SmootherType s) {
  return x_lines(s) || y_lines(s);
}
bool ilu(SmootherType s) {
  return s == SmootherType::ilu;
}

void check_levels(const std::vector<const BandedMatrix<double>*>& levels) {
  check_local_levels(levels, kSetup);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const BandedMatrix<double>* A = levels[k];
    const std::string where = std::string(kSetup) + ": level " + std::to_string(k);
    // 32-bit row indices in the kernels; gridDim.y = macros in the norm reduction.
    if (A->rows() > static_cast<std::size_t>(INT_MAX))
      throw AccelError(where + ": " + std::to_string(A->rows()) +
                       " rows exceed the cuda target's limit of 2^31 - 1 per level");
    if (A->macros > 65535)
      throw AccelError(where + ": " + std::to_string(A->macros) +
                       " macros exceed the cuda target's limit of 65535 per rank");
  }
}

/// The 9 bands of a level stored one after the other in `storage` (rows each).
template <class T>
DeviceBands<T> bands_in(const DeviceBuffer<T>& storage, std::size_t rows) {
  DeviceBands<T> v{};
  for (int k = 0; k < kBands; ++k) v.band[k] = storage.get() + k * rows;
  return v;
}

/// The vectors of one level's cycle. They carry nothing from one solve to the next, so the
/// solvers of share_work (the local solvers of a global multigrid's levels, which run one at a
/// time, each solve ending with its stream synchronised) use one set. Each buffer is made by the
/// first solver that needs it and never made again: the cycle graphs name it.
template <class T>
struct LevelWork {
  DeviceBuffer<T> b;       ///< right-hand side of this level's cycle
  DeviceBuffer<T> x[2];    ///< iterate; Jacobi writes the other buffer (x[1] on levels k >= 1)
  DeviceBuffer<T> bt, xt;  ///< b and x grid-transposed (y-line smoothers, levels k >= 1)
};

/// What loading a level's numbers computes on the host (CudaLocalMultigrid::load_level): the
/// matrix converted to T, and from it the cpu target's ILU(0) factors and remainder, or the grid
/// transpose A' and the Thomas factors of one of them, which are formed only to refuse the
/// singular lines that the cpu target refuses, with its message. Uploaded or thrown away before
/// the next level loads, so one set, reshaped to each level in turn, serves every level.
template <class T>
struct HostScratch {
  BandedMatrix<T> converted;
  BandedMatrix<T> ilu;         ///< ILU(0) only
  BandedMatrix<T> transposed;  ///< y-line smoothers only
  std::vector<T> line_factors;
  typename cpu::IluSmoother<T>::Remainder remainder;
  typename cpu::IluSmoother<T>::Window ilu_window;
};

/// The work of the solvers of share_work: every level's, coarsest first, held by address so that
/// it never moves, and the host scratch of their set-ups and updates, which run one at a time.
template <class T>
struct WorkSet {
  std::vector<std::unique_ptr<LevelWork<T>>> levels;
  HostScratch<T> host;
};

/// Device-resident state of one level of the batch.
template <class T>
struct DeviceLevel {
  LevelShape shape;
  DeviceBuffer<T> bands;                  ///< band k at [k*rows, (k+1)*rows); empty on level 0
  DeviceBuffer<T> invdiag;                ///< 1 / A(r, r), formed in double; empty on level 0
  DeviceBuffer<unsigned char> dirichlet;  ///< 1 at unit rows
  std::vector<std::size_t> unit_rows;     ///< the same rows, on the host for update()'s check
  LevelWork<T>* work = nullptr;           ///< in the solver's work set
  int current = 0;                        ///< which x holds the iterate
  // y-line smoothers only (k >= 1): the grid transpose A' whose x-lines are A's y-lines (the
  // device solves each line from its bands: no factors; b and x transposed are in work).
  DeviceBuffer<T> transposed;
  // ILU(0) only (k >= 1): the cpu target's factors of the converted matrix and their remainder
  // R, in the layout of the bands.
  DeviceBuffer<T> ilu_factors, ilu_remainder;

  DeviceBands<T> transposed_view() const { return bands_in(transposed, shape.rows); }
  DeviceBands<T> ilu_view() const { return bands_in(ilu_factors, shape.rows); }
  DeviceRemainder<T> remainder_view() const {
    DeviceRemainder<T> v{};
    for (int k = 0; k < 4; ++k) v.band[k] = ilu_remainder.get() + k * std::size_t{shape.rows};
    return v;
  }

  DeviceBands<T> view() const {
    DeviceBands<T> v{};
    if (bands.size() == 0) return v;
    for (int k = 0; k < kBands; ++k)
      v.band[k] = bands.get() + static_cast<std::size_t>(k) * shape.rows;
    return v;
  }
  T* b() { return work->b.get(); }
  T* iterate() { return work->x[current].get(); }
  T* spare() { return work->x[1 - current].get(); }
  T* bt() { return work->bt.get(); }
  T* xt() { return work->xt.get(); }
};

template <class T>
class CudaLocalMultigrid final : public LocalSolver {
 public:
  /// params are valid (make_local_solver checks them); device is the ordinal, already current.
  CudaLocalMultigrid(const LocalSolverParams& params, int device, std::string device_name)
      : params_(params), device_(device), device_name_(std::move(device_name)) {}

  void setup(const std::vector<const BandedMatrix<double>*>& levels) override;
  void update(const std::vector<const BandedMatrix<double>*>& levels) override;
  void solve(const double* defect, double* correction) override;
  void pin_io(const double* defect, double* correction, std::size_t size) override;
  /// Takes the work vectors of `finer` (a CudaLocalMultigrid<T> on the same device) for its
  /// levels. Throws AccelError after setup(): its cycle graphs name its own.
  void share_work(LocalSolver& finer) override;
  LocalSolveStats last_stats() const override { return stats_; }
  std::string description() const override;

  /// Best-of-reps device time of one V-cycle on the finest level's current iterate (after a
  /// solve(), so b holds a defect); the iterate keeps changing, which the cycle's cost ignores.
  double time_vcycle(int reps);

 private:
  /// setup() after the checks: the device and staging storage, then load_numbers().
  void build(const std::vector<const BandedMatrix<double>*>& levels);
  /// The storage of level k (device buffers, Dirichlet rows uploaded), no numbers yet.
  void shape_level(std::size_t k, const BandedMatrix<double>& src);
  /// Level k's work in work_, with the buffers this solver's cycle needs (made where missing).
  /// Throws AccelError where the set's level k has another size (shared with a finer solver).
  LevelWork<T>* level_work(std::size_t k, std::size_t rows);
  /// The numbers of setup() and update(), through the staging buffers into the device storage
  /// that build() made. Messages start with `who`.
  void load_numbers(const std::vector<const BandedMatrix<double>*>& levels, const char* who);
  /// 1 / diag and the bands of level k >= 1, and what the smoother derives from them on the host.
  void load_level(std::size_t k, const BandedMatrix<double>& src, const char* who);
  /// Whether the smoother's numbers are derived on the host (ILU(0), line smoothers).
  bool loads_on_host() const;
  /// Coarsest level: dense P A = L U per macro in double on the host (factorise_dense, as the cpu
  /// target), factors stored in T, column-major so the substitution kernel reads each column
  /// with unit stride.
  void load_coarse_lu(const BandedMatrix<double>& A);
  void vcycle(int k, bool x_is_zero);
  /// One V-cycle on the finest level (from x = 0 when first), replayed from its CUDA graph;
  /// captured on first use.
  void run_cycle(bool first);
  /// Forgets the hierarchy and the graphs that name its buffers.
  void drop_hierarchy() {
    cycle_graphs_ = {};
    levels_.clear();
  }
  /// steps sweeps of the smoother on level l (backward: the post-smoother's direction).
  void smooth(DeviceLevel<T>& l, int steps, bool x_is_zero, bool backward);
  /// The zebra line smoothers (trigs-x, trigs-y, aditrigs).
  void smooth_lines(DeviceLevel<T>& l, int steps, bool x_is_zero, bool backward);
  /// ILU(0), the same sweep in both directions (as the cpu IluSmoother).
  void smooth_ilu(DeviceLevel<T>& l, int steps, bool x_is_zero);
  /// Per-macro 2-norms of b - A x (of b when x is null) on the finest level, to host_norms_.
  void finest_defect_norms(const T* x);
  void select_device() const { QUILT_CUDA_CHECK(cudaSetDevice(device_)); }
  /// Setup copies go through the solver's stream (a non-blocking stream does not order itself
  /// after legacy-stream cudaMemcpy); the caller synchronises before reusing src.
  template <class U>
  void upload(U* dst, const U* src, std::size_t count) {
    QUILT_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, count * sizeof(U), cudaMemcpyHostToDevice, stream_.get()));
  }

  LocalSolverParams params_;
  int device_ = 0;
  std::string device_name_;
  Stream stream_;
  std::vector<DeviceLevel<T>> levels_;
  std::shared_ptr<WorkSet<T>> work_ = std::make_shared<WorkSet<T>>();
  /// The V-cycle's graphs: which Jacobi buffer holds a level's iterate is host-side state that
  /// a graph bakes in. Only the finest level's start matters: every coarser level (and the
  /// finest in the first cycle) starts from x = 0, which every smoother writes before it reads.
  /// So [0] is the first cycle and [1 + c] a later one starting in x[c]. Each keeps where the
  /// iterates are after it, for the host to follow.
  struct CycleGraph {
    CudaGraph graph;
    std::vector<int> current_after;
  };
  std::array<CycleGraph, 3> cycle_graphs_;
  int macros_ = 0;
  int coarse_size_ = 0;        ///< N = n0 * n0, the dense size of the coarsest level
  DeviceBuffer<T> coarse_lu_;  ///< per macro N x N, column-major
  DeviceBuffer<int> coarse_perm_;
  // Host staging of the numbers, made by setup() so that update() allocates nothing: one band of
  // the finest level (pinned, so its uploads are true DMA), the coarse factors of every macro and
  // the factorisation's double work space.
  PinnedBuffer<T> staging_;
  std::vector<T> staging_lu_;
  std::vector<int> staging_perm_;
  std::vector<double> dense_;
  std::vector<int> pivot_;
  DeviceBuffer<double> io_;       ///< double defect / correction on the device (T = float only)
  PinnedBuffer<double> host_io_;  ///< staging of a defect or correction that pin_io() did not name
  HostRegistration pinned_defect_, pinned_correction_;
  unsigned norm_chunks_ = 1;
  DeviceBuffer<double> norm_partial_;
  DeviceBuffer<double> norms_;
  PinnedBuffer<double> host_norms_;
  std::vector<double> initial_norms_;
  LocalSolveStats stats_;
};

template <class T>
void CudaLocalMultigrid<T>::setup(const std::vector<const BandedMatrix<double>*>& levels) {
  check_levels(levels);
  select_device();
  stream_.synchronize();
  drop_hierarchy();
  // Work vectors of its own, unless it shares a finer solver's; a set only this solver held
  // goes with its old hierarchy.
  if (work_.use_count() == 1) work_ = std::make_shared<WorkSet<T>>();
  try {
    build(levels);
  } catch (...) {
    // A half-built hierarchy must not be solved with: solve() refuses an empty one.
    drop_hierarchy();
    throw;
  }
}

template <class T>
void CudaLocalMultigrid<T>::share_work(LocalSolver& finer) {
  if (!levels_.empty())
    throw AccelError(
        "cuda local multigrid: share_work() after setup(), whose levels use their own work "
        "vectors");
  auto* f = dynamic_cast<CudaLocalMultigrid<T>*>(&finer);
  if (f != nullptr && f != this && f->device_ == device_) work_ = f->work_;
}

template <class T>
void CudaLocalMultigrid<T>::update(const std::vector<const BandedMatrix<double>*>& levels) {
  check_update_levels(levels, levels_.size(), kUpdate);
  for (std::size_t k = 0; k < levels.size(); ++k)
    check_level_structure(*levels[k], k, macros_, levels_[k].shape.n, levels_[k].unit_rows,
                          kUpdate);
  select_device();
  stream_.synchronize();
  try {
    load_numbers(levels, kUpdate);
  } catch (...) {
    // Partly refreshed numbers would solve with a mix of two operators.
    drop_hierarchy();
    throw;
  }
  stats_ = {};
}

template <class T>
void CudaLocalMultigrid<T>::build(const std::vector<const BandedMatrix<double>*>& levels) {
  macros_ = levels.front()->macros;
  const int n0 = levels.front()->n;
  coarse_size_ = n0 * n0;
  if (static_cast<std::size_t>(coarse_size_) * sizeof(T) > kCoarseSharedLimit)
    throw AccelError("cuda local multigrid setup: the coarsest level (n = " + std::to_string(n0) +
                     ", " + std::to_string(coarse_size_) +
                     " unknowns per macro) is too large for the batched dense solve; start the "
                     "local hierarchy on a coarser level");

  levels_.resize(levels.size());
  for (std::size_t k = 0; k < levels.size(); ++k) shape_level(k, *levels[k]);
  const std::size_t block = static_cast<std::size_t>(coarse_size_) * coarse_size_;
  coarse_lu_ = DeviceBuffer<T>(block * macros_);
  coarse_perm_ = DeviceBuffer<int>(static_cast<std::size_t>(coarse_size_) * macros_);
  const LevelShape& fine = levels_.back().shape;
  staging_ = PinnedBuffer<T>(fine.rows);
  staging_lu_.resize(coarse_lu_.size());
  staging_perm_.resize(coarse_perm_.size());
  dense_.resize(block);
  pivot_.resize(coarse_size_);
  load_numbers(levels, kSetup);

  io_ = std::is_same_v<T, double> ? DeviceBuffer<double>() : DeviceBuffer<double>(fine.rows);
  host_io_ = PinnedBuffer<double>(fine.rows);
  norm_chunks_ = norm_chunks(fine.nn, macros_);
  norm_partial_ = DeviceBuffer<double>(static_cast<std::size_t>(norm_chunks_) * macros_);
  norms_ = DeviceBuffer<double>(macros_);
  host_norms_ = PinnedBuffer<double>(macros_);
  initial_norms_.assign(macros_, 0.0);
  stats_ = {};
}

template <class T>
void CudaLocalMultigrid<T>::shape_level(std::size_t k, const BandedMatrix<double>& src) {
  DeviceLevel<T>& l = levels_[k];
  const std::size_t rows = src.rows();
  l.shape = LevelShape{src.n, static_cast<unsigned>(src.rows_per_macro()),
                       static_cast<unsigned>(rows), src.macros};
  l.unit_rows = unit_rows(src);
  std::vector<unsigned char> mask(rows, 0);
  for (std::size_t r : l.unit_rows) mask[r] = 1;
  l.dirichlet = DeviceBuffer<unsigned char>(rows);
  upload(l.dirichlet.get(), mask.data(), rows);
  l.work = level_work(k, rows);
  l.current = 0;
  if (k > 0) {
    l.bands = DeviceBuffer<T>(rows * kBands);
    l.invdiag = DeviceBuffer<T>(rows);
    if (ilu(params_.smoother)) {
      l.ilu_factors = DeviceBuffer<T>(rows * kBands);
      l.ilu_remainder = DeviceBuffer<T>(rows * 4);
    }
    if (lines(params_.smoother) && !pcr_fits<T>(src.n))
      throw AccelError(std::string(kSetup) + ": level " + std::to_string(k) + ": lines of " +
                       std::to_string(src.n) +
                       " nodes do not fit one block of the cuda target's line solve");
    if (y_lines(params_.smoother)) l.transposed = DeviceBuffer<T>(rows * kBands);
  }
  stream_.synchronize();  // before the mask goes
}

template <class T>
LevelWork<T>* CudaLocalMultigrid<T>::level_work(std::size_t k, std::size_t rows) {
  auto& set = work_->levels;
  if (set.size() <= k) set.resize(k + 1);
  if (!set[k]) set[k] = std::make_unique<LevelWork<T>>();
  LevelWork<T>& w = *set[k];
  if (w.b.size() != 0 && w.b.size() != rows)
    throw AccelError(std::string(kSetup) + ": level " + std::to_string(k) + " has " +
                     std::to_string(rows) + " rows, but the work vectors shared with a finer " +
                     "solver (share_work) have " + std::to_string(w.b.size()));
  // Only what this solver's cycle uses and the set lacks: a buffer once made stays where it is.
  const auto fit = [rows](DeviceBuffer<T>& v) {
    if (v.size() == 0) v = DeviceBuffer<T>(rows);
  };
  fit(w.b);
  fit(w.x[0]);
  if (k > 0) fit(w.x[1]);
  if (k > 0 && y_lines(params_.smoother)) {
    fit(w.bt);
    fit(w.xt);
  }
  return &w;
}

template <class T>
void CudaLocalMultigrid<T>::load_numbers(const std::vector<const BandedMatrix<double>*>& levels,
                                         const char* who) {
  for (std::size_t k = 1; k < levels.size(); ++k) load_level(k, *levels[k], who);
  load_coarse_lu(*levels.front());
}

template <class T>
void CudaLocalMultigrid<T>::load_level(std::size_t k, const BandedMatrix<double>& src,
                                       const char* who) {
  DeviceLevel<T>& l = levels_[k];
  const std::size_t rows = src.rows();
  T* staged = staging_.get();
  for (std::size_t r = 0; r < rows; ++r) {
    // Rounded to T first, as the cpu target's smoothers see the converted matrix.
    const double diag = static_cast<T>(src.band[kCentre][r]);
    if (!(diag != 0.0) || !std::isfinite(diag))
      throw AccelError(std::string(who) + ": level " + std::to_string(k) + ", macro " +
                       std::to_string(r / src.rows_per_macro()) + ", row " +
                       std::to_string(r % src.rows_per_macro()) +
                       " has a zero or non-finite diagonal (Jacobi needs D^{-1})");
    staged[r] = static_cast<T>(1.0 / diag);
  }
  upload(l.invdiag.get(), staged, rows);
  // One band at a time through the one staging band: each upload completes before the next
  // conversion overwrites it.
  for (int b = 0; b < kBands; ++b) {
    stream_.synchronize();
    std::transform(src.band[b].begin(), src.band[b].end(), staged,
                   [](double v) { return static_cast<T>(v); });
    upload(l.bands.get() + b * rows, staged, rows);
  }
  stream_.synchronize();
  if (!loads_on_host()) return;
  // The cpu target's ILU(0) factors of the converted matrix; for the line smoothers its
  // transpose, and the cpu target's check of the lines (its factorisation, thrown away). In the
  // host scratch, reshaped to this level: it grows while the set-up loads the levels coarsest
  // first, and an update's loads stay within the capacity the finest level gave it.
  HostScratch<T>& h = work_->host;
  h.converted.reshape(src.macros, src.n);
  for (int b = 0; b < kBands; ++b)
    std::transform(src.band[b].begin(), src.band[b].end(), h.converted.band[b].begin(),
                   [](double v) { return static_cast<T>(v); });
  if (ilu(params_.smoother)) {
    h.ilu.reshape(src.macros, src.n);
    h.ilu_window.resize(2 * static_cast<std::size_t>(src.n));
    try {
      cpu::IluSmoother<T>::factorise(h.converted, h.ilu, h.ilu_window);
    } catch (const AccelError& e) {
      throw AccelError(std::string(who) + ": level " + std::to_string(k) + ", " + e.what());
    }
    cpu::IluSmoother<T>::remainder(h.ilu, h.remainder);
    for (int b = 0; b < kBands; ++b)
      upload(l.ilu_factors.get() + b * rows, h.ilu.band[b].data(), rows);
    for (int b = 0; b < 4; ++b)
      upload(l.ilu_remainder.get() + b * rows, h.remainder[b].data(), rows);
  }
  if (lines(params_.smoother)) h.line_factors.resize(2 * rows);
  if (x_lines(params_.smoother))
    cpu::LineSmoother<T>::factorise(h.converted, h.line_factors.data(),
                                    h.line_factors.data() + rows, false);
  if (y_lines(params_.smoother)) {
    h.transposed.reshape(src.macros, src.n);
    cpu::grid_transpose_into(h.converted, h.transposed);
    cpu::LineSmoother<T>::factorise(h.transposed, h.line_factors.data(),
                                    h.line_factors.data() + rows, true);
    for (int b = 0; b < kBands; ++b)
      upload(l.transposed.get() + b * rows, h.transposed.band[b].data(), rows);
  }
  stream_.synchronize();  // before the next level's numbers overwrite the scratch
}

template <class T>
bool CudaLocalMultigrid<T>::loads_on_host() const {
  return lines(params_.smoother) || ilu(params_.smoother);
}

template <class T>
void CudaLocalMultigrid<T>::load_coarse_lu(const BandedMatrix<double>& A) {
  const int N = coarse_size_;
  const std::size_t block = static_cast<std::size_t>(N) * N;
  for (int m = 0; m < macros_; ++m) {
    cpu::dense_macro(A, m, dense_.data());
    cpu::factorise_dense(N, dense_.data(), pivot_.data(), m);
    T* lu = staging_lu_.data() + m * block;
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c)
        lu[static_cast<std::size_t>(c) * N + r] =
            static_cast<T>(dense_[static_cast<std::size_t>(r) * N + c]);
    // The row swaps applied in order to the identity give the gather (P b)_i = b[perm[i]].
    int* perm = staging_perm_.data() + static_cast<std::size_t>(m) * N;
    for (int i = 0; i < N; ++i) perm[i] = i;
    for (int i = 0; i < N; ++i) std::swap(perm[i], perm[pivot_[i]]);
  }
  upload(coarse_lu_.get(), staging_lu_.data(), staging_lu_.size());
  upload(coarse_perm_.get(), staging_perm_.data(), staging_perm_.size());
  stream_.synchronize();
}

template <class T>
void CudaLocalMultigrid<T>::smooth_lines(DeviceLevel<T>& l, int steps, bool x_is_zero,
                                         bool backward) {
  const T omega = static_cast<T>(params_.omega());
  const cudaStream_t s = stream_.get();
  const std::size_t rows = l.shape.rows;
  const auto sweep_x = [&](bool reverse) {
    launch_zebra_sweep(l.view(), l.b(), l.iterate(), omega, l.shape, reverse, s);
  };
  const auto sweep_y = [&](bool reverse) {
    launch_transpose_grid(l.iterate(), l.xt(), l.shape, s);
    launch_zebra_sweep(l.transposed_view(), l.bt(), l.xt(), omega, l.shape, reverse, s);
    launch_transpose_grid(l.xt(), l.iterate(), l.shape, s);
  };
  if (x_is_zero) QUILT_CUDA_CHECK(cudaMemsetAsync(l.iterate(), 0, sizeof(T) * rows, s));
  if (y_lines(params_.smoother) && steps > 0) launch_transpose_grid(l.b(), l.bt(), l.shape, s);
  for (int step = 0; step < steps; ++step) {
    switch (params_.smoother) {
      case SmootherType::trigs_x:
        sweep_x(backward);
        break;
      case SmootherType::trigs_y:
        sweep_y(backward);
        break;
      default:
        // ADI: x-lines then y-lines; backward is its adjoint, y-lines then x-lines, each reversed
        // (as the cpu LineSmoother).
        if (!backward) {
          sweep_x(false);
          sweep_y(false);
        } else {
          sweep_y(true);
          sweep_x(true);
        }
    }
  }
}

template <class T>
void CudaLocalMultigrid<T>::smooth_ilu(DeviceLevel<T>& l, int steps, bool x_is_zero) {
  const T omega = static_cast<T>(params_.omega());
  const cudaStream_t s = stream_.get();
  // The spare iterate buffer is free while smoothing: the defect, then the correction in place.
  T* c = l.spare();
  if (x_is_zero) QUILT_CUDA_CHECK(cudaMemsetAsync(l.iterate(), 0, sizeof(T) * l.shape.rows, s));
  for (int step = 0; step < steps; ++step) {
    // From x = 0, b + R x is b (the cpu smoother copies it). No mask: the cpu sweep has none,
    // and a Dirichlet row's unit factors and zero remainder leave it at its b.
    const T* d = l.b();
    if (step > 0 || !x_is_zero) {
      launch_ilu_remainder(l.remainder_view(), l.b(), l.iterate(), c, l.shape, s);
      d = c;
    }
    launch_ilu_sweep(l.ilu_view(), d, c, omega, l.iterate(), l.shape, s);
  }
}

template <class T>
void CudaLocalMultigrid<T>::smooth(DeviceLevel<T>& l, int steps, bool x_is_zero, bool backward) {
  const T omega = static_cast<T>(params_.omega());
  const cudaStream_t s = stream_.get();
  if (lines(params_.smoother)) {
    smooth_lines(l, steps, x_is_zero, backward);
    return;
  }
  if (ilu(params_.smoother)) {
    smooth_ilu(l, steps, x_is_zero);
    return;
  }
  if (params_.smoother != SmootherType::jacobi) {
    // 4-colour Gauss-Seidel / SOR in place, from x = 0 when asked (as the cpu smoother starts);
    // SSOR sweeps forward and then backward in every step.
    if (x_is_zero) QUILT_CUDA_CHECK(cudaMemsetAsync(l.iterate(), 0, sizeof(T) * l.shape.rows, s));
    for (int step = 0; step < steps; ++step) {
      if (params_.smoother == SmootherType::ssor) {
        launch_colour_gs_sweep(l.view(), l.b(), l.invdiag.get(), omega, l.iterate(), l.shape, false,
                               s);
        launch_colour_gs_sweep(l.view(), l.b(), l.invdiag.get(), omega, l.iterate(), l.shape, true,
                               s);
      } else {
        launch_colour_gs_sweep(l.view(), l.b(), l.invdiag.get(), omega, l.iterate(), l.shape,
                               backward, s);
      }
    }
    return;
  }
  for (int step = 0; step < steps; ++step) {
    if (step == 0 && x_is_zero) {
      launch_jacobi_from_zero(l.b(), l.invdiag.get(), omega, l.iterate(), l.shape, s);
    } else {
      launch_band<T, BandOp::jacobi>(l.view(), l.iterate(), l.b(), l.invdiag.get(), nullptr, omega,
                                     l.spare(), l.shape, s);
      l.current = 1 - l.current;
    }
  }
  if (steps == 0 && x_is_zero)
    QUILT_CUDA_CHECK(cudaMemsetAsync(l.iterate(), 0, sizeof(T) * l.shape.rows, s));
}

template <class T>
void CudaLocalMultigrid<T>::vcycle(int k, bool x_is_zero) {
  const cudaStream_t s = stream_.get();
  DeviceLevel<T>& l = levels_[k];
  if (k == 0) {
    // A single level is a plain direct solve of the caller's defect, which need not be 0 at the
    // Dirichlet rows; below the finest level it is, and the exact 0 is enforced.
    const unsigned char* dirichlet = levels_.size() > 1 ? l.dirichlet.get() : nullptr;
    launch_lu_solve(coarse_lu_.get(), coarse_perm_.get(), dirichlet, l.b(), l.iterate(),
                    coarse_size_, macros_, s);
    return;
  }
  smooth(l, params_.pre_smooth, x_is_zero, false);
  // The defect goes to the spare buffer: it is free between the smoothing sweeps.
  T* d = l.spare();
  launch_band<T, BandOp::defect>(l.view(), l.iterate(), l.b(), nullptr, l.dirichlet.get(), T(0), d,
                                 l.shape, s);
  DeviceLevel<T>& c = levels_[k - 1];
  launch_restrict(d, c.dirichlet.get(), c.b(), c.shape, l.shape, s);
  vcycle(k - 1, true);
  launch_prolongate_add(c.iterate(), l.iterate(), c.shape, l.shape, s);
  smooth(l, params_.post_smooth, false, true);
}

template <class T>
void CudaLocalMultigrid<T>::run_cycle(bool first) {
  CycleGraph& g = cycle_graphs_[first ? 0 : 1 + levels_.back().current];
  if (!g.graph) {
    const int finest = static_cast<int>(levels_.size()) - 1;
    g.graph = CudaGraph::capture(stream_.get(), [&] { vcycle(finest, first); });
    g.current_after.clear();
    for (const DeviceLevel<T>& l : levels_) g.current_after.push_back(l.current);
  } else {
    for (std::size_t k = 0; k < levels_.size(); ++k) levels_[k].current = g.current_after[k];
  }
  g.graph.launch(stream_.get());
}

template <class T>
void CudaLocalMultigrid<T>::finest_defect_norms(const T* x) {
  const cudaStream_t s = stream_.get();
  DeviceLevel<T>& f = levels_.back();
  if (levels_.size() == 1 && x) {
    // One level is a direct solve: the defect is round-off, not worth a product with A (and
    // level 0 keeps no bands).
    std::fill(host_norms_.get(), host_norms_.get() + macros_, 0.0);
    return;
  }
  launch_defect_norms(f.view(), x, f.b(), f.shape, norm_chunks_, norm_partial_.get(), norms_.get(),
                      s);
  QUILT_CUDA_CHECK(cudaMemcpyAsync(host_norms_.get(), norms_.get(), sizeof(double) * macros_,
                                   cudaMemcpyDeviceToHost, s));
  stream_.synchronize();
}

template <class T>
void CudaLocalMultigrid<T>::pin_io(const double* defect, double* correction, std::size_t size) {
  if (levels_.empty()) throw AccelError("cuda local multigrid: pin_io() called before setup()");
  const std::size_t rows = levels_.back().shape.rows;
  if (size != rows)
    throw AccelError("cuda local multigrid: pin_io() with vectors of " + std::to_string(size) +
                     " values; the finest level has " + std::to_string(rows));
  select_device();
  stream_.synchronize();  // no copy of the previous vectors may still be queued
  pinned_defect_ = HostRegistration();
  pinned_correction_ = HostRegistration();
  pinned_defect_ = HostRegistration(defect, size * sizeof(double));
  pinned_correction_ = HostRegistration(correction, size * sizeof(double));
}

template <class T>
void CudaLocalMultigrid<T>::solve(const double* defect, double* correction) {
  if (levels_.empty()) throw AccelError("cuda local multigrid: solve() called before setup()");
  select_device();
  const cudaStream_t s = stream_.get();
  DeviceLevel<T>& f = levels_.back();
  const std::size_t rows = f.shape.rows;
  const std::size_t bytes = rows * sizeof(double);

  // A vector that pin_io() registered goes straight over the link; any other is staged.
  const double* source = defect;
  const bool staged_in = !pinned_defect_.covers(defect, bytes);
  if (staged_in) {
    std::memcpy(host_io_.get(), defect, bytes);
    source = host_io_.get();
  }
  if constexpr (std::is_same_v<T, double>) {
    QUILT_CUDA_CHECK(cudaMemcpyAsync(f.b(), source, bytes, cudaMemcpyHostToDevice, s));
  } else {
    QUILT_CUDA_CHECK(cudaMemcpyAsync(io_.get(), source, bytes, cudaMemcpyHostToDevice, s));
    launch_convert(io_.get(), f.b(), rows, s);
  }

  const bool measure = params_.digits > 0.0;
  const double target = std::pow(10.0, -params_.digits);
  if (measure) {
    finest_defect_norms(nullptr);
    std::copy(host_norms_.get(), host_norms_.get() + macros_, initial_norms_.begin());
  }
  stats_ = {};
  for (int cycle = 1; cycle <= params_.max_cycles; ++cycle) {
    run_cycle(cycle == 1);
    stats_.cycles = cycle;
    if (!measure) continue;
    finest_defect_norms(f.iterate());
    const double* norms = host_norms_.get();
    bool done = true;
    double worst = 0.0;
    for (int m = 0; m < macros_; ++m) {
      if (!(norms[m] <= target * initial_norms_[m])) done = false;
      // Written so that a NaN defect shows up in the stats instead of being skipped by max().
      const double ratio = initial_norms_[m] > 0.0 ? norms[m] / initial_norms_[m] : 0.0;
      if (!(ratio <= worst)) worst = ratio;
    }
    stats_.worst_reduction = worst;
    if (done) break;
  }

  const bool direct = pinned_correction_.covers(correction, bytes);
  double* out = direct ? correction : host_io_.get();
  if constexpr (std::is_same_v<T, double>) {
    QUILT_CUDA_CHECK(cudaMemcpyAsync(out, f.iterate(), bytes, cudaMemcpyDeviceToHost, s));
  } else {
    launch_convert(f.iterate(), io_.get(), rows, s);
    QUILT_CUDA_CHECK(cudaMemcpyAsync(out, io_.get(), bytes, cudaMemcpyDeviceToHost, s));
  }
  stream_.synchronize();
  if (!direct) std::memcpy(correction, host_io_.get(), bytes);
  stats_.staged = staged_in || !direct;
}

template <class T>
double CudaLocalMultigrid<T>::time_vcycle(int reps) {
  if (levels_.empty()) throw AccelError("cuda local multigrid: time_vcycle() before setup()");
  select_device();
  const cudaStream_t s = stream_.get();
  Event start, stop;
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < std::max(1, reps); ++rep) {
    start.record(s);
    run_cycle(false);
    stop.record(s);
    stop.synchronize();
    best = std::min(best, stop.seconds_since(start));
  }
  return best;
}

template <class T>
std::string CudaLocalMultigrid<T>::description() const {
  std::ostringstream s;
  s << "cuda/" << (std::is_same_v<T, float> ? "float" : "double") << " " << describe_cycle(params_)
    << " on " << device_name_;
  return s.str();
}

template <class T>
std::unique_ptr<CudaLocalMultigrid<T>> make_typed(const LocalSolverParams& params) {
  std::string name;
  const int device = open_device(params, name);
  return std::make_unique<CudaLocalMultigrid<T>>(params, device, std::move(name));
}

}  // namespace

double time_vcycle(const LocalSolverParams& params,
                   const std::vector<const BandedMatrix<double>*>& levels, const double* defect,
                   int reps) {
  const auto run = [&](auto solver) {
    solver->setup(levels);
    std::vector<double> correction(levels.back()->rows());
    solver->solve(defect, correction.data());
    return solver->time_vcycle(reps);
  };
  if (params.precision == Precision::float32) return run(make_typed<float>(params));
  return run(make_typed<double>(params));
}

}  // namespace cuda

std::unique_ptr<LocalSolver> make_cuda_local_solver(const LocalSolverParams& params) {
  if (params.precision == Precision::float32) return cuda::make_typed<float>(params);
  return cuda::make_typed<double>(params);
}

}  // namespace quilt::accel

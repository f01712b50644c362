// quilt-bench-cuda: the local layer's cuda target against the device's memory bandwidth and
// against the cpu target. Prints, in one run, Markdown tables of
//   (1) device-to-device cudaMemcpy bandwidth (read + write counted, best of reps),
//   (2) the batched banded SpMV y = A x of the local solver, L = 8..11, float and double,
//       bytes = (9 bands + x + y) * sizeof(T) * rows, and its ratio to (1) (target >= 75 % at
//       L >= 10),
//   (3) the device time of one local V(4,4) cycle (cudaEvent),
//   (4) T_loc of one full local solve (defect in, V(4,4), correction out), cpu (1 core, double)
//       vs cuda (float), and S_loc = T_cpu / T_cuda, in the layout of Table 2 of the FEAST
//       Navier-Stokes paper,
//   (5) per smoother, the V(1,1) cycle of the ScaRC default (float, L = 10): device time per
//       unknown, and T_loc of the cpu target's fastest form (lexicographic line sweeps for
//       the line smoothers, 1 core) against the cuda target's (zebra / 4 colours).
// Without a device it prints "no CUDA device" and exits 0.
//
//   quilt-bench-cuda [--quick] [--macros N] [--profile SMOOTHERS]
//     --quick     small sizes and few repetitions (a smoke run)
//     --macros N  macros per batch in tables (3), (4) and (5) (default 16)
//     --profile jacobi,aditrigs,...  only the cuda V(1,1) cycles of table (5) for these
//                 smoothers, 3 each, no cpu timing: a short run for a profiler (bench/gpu_check.sh
//                 runs Nsight Compute on it)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/device_probe.cuh"
#include "accel/local_solver.hpp"

namespace {

using quilt::accel::BandedMatrix;
using quilt::accel::LocalSolverParams;
using quilt::accel::Precision;
using quilt::accel::Target;
namespace qcuda = quilt::accel::cuda;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kGiB = std::size_t(1) << 30;

struct Config {
  bool quick = false;
  int macros = 16;       ///< tables (3) and (4)
  int coarse_level = 2;  ///< coarsest local level (the dense direct solve)
  std::vector<int> spmv_levels{8, 9, 10, 11};
  std::vector<int> solve_levels{7, 8, 9, 10};
  std::size_t spmv_bytes = kGiB;  ///< least working set of one SpMV
  int min_spmv_macros = 64;       ///< at L <= 10
  int reps = 20;
  int solve_reps = 3;
  int smoother_level = 10;                          ///< table (5)
  std::vector<quilt::accel::SmootherType> profile;  ///< --profile: only these cycles
};

/// Local Q1 Laplacians (stencil 8/3, -1/3) with Dirichlet unit rows on the whole macro boundary.
BandedMatrix<double> laplacian(int level, int macros) {
  const int n = quilt::accel::nodes_per_side(level);
  BandedMatrix<double> A(macros, n);
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n;
        if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
          A.at(quilt::accel::kCentre, m, r) = 1.0;
          continue;
        }
        for (int k = 0; k < quilt::accel::kBands; ++k)
          A.at(k, m, r) = k == quilt::accel::kCentre ? 8.0 / 3.0 : -1.0 / 3.0;
      }
  return A;
}

struct Hierarchy {
  std::vector<BandedMatrix<double>> matrices;
  std::vector<double> defect;
  std::vector<const BandedMatrix<double>*> levels() const {
    std::vector<const BandedMatrix<double>*> out;
    for (const auto& A : matrices) out.push_back(&A);
    return out;
  }
};

Hierarchy hierarchy(int coarse, int fine, int macros) {
  Hierarchy h;
  for (int L = coarse; L <= fine; ++L) h.matrices.push_back(laplacian(L, macros));
  const BandedMatrix<double>& A = h.matrices.back();
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  h.defect.resize(A.rows());
  for (std::size_t g = 0; g < A.rows(); ++g) {
    const std::size_t r = g % A.rows_per_macro();
    const int i = static_cast<int>(r % A.n), j = static_cast<int>(r / A.n);
    h.defect[g] = (i == 0 || j == 0 || i == A.n - 1 || j == A.n - 1) ? 0.0 : u(gen);
  }
  return h;
}

/// Best-of-reps wall time of one solve() after a warm-up solve.
double time_solve(const LocalSolverParams& params, const Hierarchy& h, int reps) {
  auto solver = quilt::accel::make_local_solver(params);
  solver->setup(h.levels());
  std::vector<double> c(h.defect.size());
  // The vectors named once, as the global multigrid names its own: the timed solve is ScaRC's.
  solver->pin_io(h.defect.data(), c.data(), c.size());
  solver->solve(h.defect.data(), c.data());
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    solver->solve(h.defect.data(), c.data());
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

int spmv_macros(const Config& cfg, int level, std::size_t elem, double memory_gib) {
  const std::size_t n = static_cast<std::size_t>(quilt::accel::nodes_per_side(level));
  const std::size_t per_macro = (quilt::accel::kBands + 2) * elem * n * n;
  std::size_t macros = (cfg.spmv_bytes + per_macro - 1) / per_macro;
  if (level <= 10) macros = std::max<std::size_t>(macros, cfg.min_spmv_macros);
  // Stay within 2^31 rows and well inside device memory.
  macros = std::min<std::size_t>(macros, (std::size_t(1) << 31) / (n * n + 1));
  const auto budget = static_cast<std::size_t>(0.6 * memory_gib * kGiB);
  macros = std::min<std::size_t>(macros, std::max<std::size_t>(1, budget / per_macro));
  return static_cast<int>(std::max<std::size_t>(1, macros));
}

/// The cuda target's V(1,1) cycle of smoother s in float, in its natural order (colour for the
/// Gauss-Seidel family, the one order of jacobi and ilu): table (5) and --profile.
LocalSolverParams cuda_params(quilt::accel::SmootherType s) {
  LocalSolverParams p;
  p.smoother = s;
  p.precision = Precision::float32;
  p.target = Target::cuda;
  p.ordering = quilt::accel::natural_order(s, Target::cuda);
  return p;
}

/// --profile: the cuda V(1,1) cycles of cfg.profile, float, at the table (5) size.
void profile_cycles(const Config& cfg) {
  const Hierarchy h = hierarchy(cfg.coarse_level, cfg.smoother_level, cfg.macros);
  const auto unknowns = static_cast<double>(h.defect.size());
  for (quilt::accel::SmootherType s : cfg.profile) {
    const LocalSolverParams gpu = cuda_params(s);
    const double cycle = qcuda::time_vcycle(gpu, h.levels(), h.defect.data(), 3);
    std::printf("%s V(1,1), L = %d, %d macros: %.2f ns per unknown\n",
                quilt::accel::to_string(s).c_str(), cfg.smoother_level, cfg.macros,
                cycle * 1e9 / unknowns);
  }
}

/// Table (5): each smoother in one V(1,1) cycle in float, cuda against cpu (1 core).
void smoother_table(const Config& cfg) {
  using quilt::accel::SmootherType;
  const Hierarchy h = hierarchy(cfg.coarse_level, cfg.smoother_level, cfg.macros);
  const auto unknowns = static_cast<double>(h.defect.size());
  std::printf("## Smoothers: one V(1,1) cycle in float, L = %d, %d macros; cpu 1 core\n\n",
              cfg.smoother_level, cfg.macros);
  std::printf(
      "| smoother | cuda order | ns/unknown cuda | T_loc cpu [s] | T_loc cuda [s] | S_loc |\n");
  std::printf("|---|---|---:|---:|---:|---:|\n");
  const SmootherType smoothers[] = {SmootherType::jacobi, SmootherType::gs, SmootherType::trigs_x,
                                    SmootherType::aditrigs, SmootherType::ilu};
  for (SmootherType s : smoothers) {
    const LocalSolverParams gpu = cuda_params(s);
    LocalSolverParams cpu = gpu;  // the cpu target in its own (lexicographic) order
    cpu.target = Target::cpu;
    cpu.ordering = quilt::accel::natural_order(s, Target::cpu);
    const double cycle = qcuda::time_vcycle(gpu, h.levels(), h.defect.data(), cfg.reps);
    const double t_cpu = time_solve(cpu, h, cfg.solve_reps);
    const double t_cuda = time_solve(gpu, h, cfg.reps);
    std::printf("| %s | %s | %.2f | %.4g | %.4g | %.1f |\n", quilt::accel::to_string(s).c_str(),
                quilt::accel::to_string(gpu.ordering).c_str(), cycle * 1e9 / unknowns, t_cpu,
                t_cuda, t_cpu / t_cuda);
  }
}

int run(const Config& cfg) {
  const int devices = quilt::accel::cuda_device_count();
  if (devices == 0) {
    std::printf("no CUDA device\n");
    return 0;
  }
  if (!cfg.profile.empty()) {
    profile_cycles(cfg);
    return 0;
  }
  const qcuda::DeviceInfo dev = qcuda::device_info(0);
  std::printf("# quilt-bench-cuda on %s (sm_%d%d, %d SMs, %.1f GiB)%s\n\n", dev.name.c_str(),
              dev.compute_major, dev.compute_minor, dev.multiprocessors, dev.memory_gib,
              cfg.quick ? "  [--quick]" : "");

  // (1) copy bandwidth
  const std::size_t copy_bytes =
      std::min<std::size_t>(cfg.spmv_bytes, static_cast<std::size_t>(0.25 * dev.memory_gib * kGiB));
  const double copy_bw = qcuda::copy_bandwidth(copy_bytes, cfg.reps);
  std::printf("## Device-to-device copy (cudaMemcpy, read + write counted, best of %d)\n\n",
              cfg.reps);
  std::printf("| buffer MiB | GB/s |\n|---:|---:|\n| %.0f | %.1f |\n\n",
              static_cast<double>(copy_bytes) / (1 << 20), copy_bw * 1e-9);

  // (2) banded SpMV
  std::printf("## Banded SpMV y = A x, bytes = (9 + 2) * sizeof(T) * rows, best of %d\n\n",
              cfg.reps);
  std::printf("| T | L | macros | rows | time ms | GB/s | of copy |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (Precision p : {Precision::float32, Precision::float64}) {
    const std::size_t elem = p == Precision::float32 ? 4 : 8;
    for (int L : cfg.spmv_levels) {
      const int macros = spmv_macros(cfg, L, elem, dev.memory_gib);
      const qcuda::BandApplyTiming t = qcuda::time_band_apply(p, L, macros, cfg.reps);
      std::printf("| %s | %d | %d | %zu | %.3f | %.1f | %.0f %% |\n",
                  quilt::accel::to_string(p).c_str(), L, macros, t.rows, t.seconds * 1e3,
                  t.bandwidth * 1e-9, 100.0 * t.bandwidth / copy_bw);
    }
  }
  std::printf("\n");

  // (3) V-cycle device time and (4) T_loc; one hierarchy per level serves both.
  std::printf("## Local V(4,4) cycle, device time (cudaEvent, best of %d), coarse level %d\n\n",
              cfg.reps, cfg.coarse_level);
  std::printf("| T | L | macros | unknowns | ms per cycle | ns per unknown |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  struct Row {
    int level;
    double cpu, cuda;
  };
  std::vector<Row> rows;
  for (int L : cfg.solve_levels) {
    const Hierarchy h = hierarchy(cfg.coarse_level, L, cfg.macros);
    const std::size_t unknowns = h.defect.size();
    for (Precision p : {Precision::float32, Precision::float64}) {
      LocalSolverParams params;
      params.target = Target::cuda;
      params.precision = p;
      params.smoother = quilt::accel::SmootherType::jacobi;  // FEAST's GPU smoother
      params.pre_smooth = params.post_smooth = 4;
      const double s = qcuda::time_vcycle(params, h.levels(), h.defect.data(), cfg.reps);
      std::printf("| %s | %d | %d | %zu | %.3f | %.2f |\n", quilt::accel::to_string(p).c_str(), L,
                  cfg.macros, unknowns, s * 1e3, s * 1e9 / static_cast<double>(unknowns));
    }
    LocalSolverParams cpu, gpu;
    cpu.smoother = gpu.smoother = quilt::accel::SmootherType::jacobi;
    cpu.pre_smooth = cpu.post_smooth = gpu.pre_smooth = gpu.post_smooth = 4;
    cpu.target = Target::cpu;
    cpu.precision = Precision::float64;
    gpu.target = Target::cuda;
    gpu.precision = Precision::float32;
    rows.push_back({L, time_solve(cpu, h, cfg.solve_reps), time_solve(gpu, h, cfg.reps)});
  }
  std::printf("\n");

  std::printf(
      "## T_loc: one local solve (defect in, 1 V(4,4) cycle, correction out), best of reps\n"
      "## cpu: 1 core, double; cuda: float\n\n");
  std::printf("| L | macros | T_loc cpu [s] | T_loc cuda [s] | S_loc |\n");
  std::printf("|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows)
    std::printf("| %d | %d | %.4g | %.4g | %.1f |\n", r.level, cfg.macros, r.cpu, r.cuda,
                r.cpu / r.cuda);
  std::printf("\n");
  smoother_table(cfg);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--quick") == 0) {
      cfg.quick = true;
    } else if (std::strcmp(argv[a], "--macros") == 0 && a + 1 < argc) {
      cfg.macros = std::atoi(argv[++a]);
      if (cfg.macros < 1) {
        std::fprintf(stderr, "quilt-bench-cuda: --macros must be >= 1\n");
        return 2;
      }
    } else if (std::strcmp(argv[a], "--profile") == 0 && a + 1 < argc) {
      std::stringstream list(argv[++a]);
      try {
        for (std::string name; std::getline(list, name, ',');)
          cfg.profile.push_back(quilt::accel::parse_smoother(name));
      } catch (const quilt::accel::AccelError& e) {
        std::fprintf(stderr, "quilt-bench-cuda: --profile: %s\n", e.what());
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: quilt-bench-cuda [--quick] [--macros N] [--profile SMOOTHERS]\n");
      return 2;
    }
  }
  if (cfg.quick) {
    cfg.spmv_levels = {8, 9};
    cfg.solve_levels = {5, 6};
    cfg.smoother_level = 6;
    cfg.spmv_bytes = std::size_t(64) << 20;
    cfg.min_spmv_macros = 4;
    cfg.macros = std::min(cfg.macros, 4);
    cfg.reps = 3;
    cfg.solve_reps = 1;
  }
  try {
    return run(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quilt-bench-cuda: %s\n", e.what());
    return 1;
  }
}

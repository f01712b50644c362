// The cuda target inside the global solver: on the Poisson operators of the shipped meshes the
// cuda local solve matches the cpu one, and quilt-poisson's ScaRC reaches the same tolerance in
// the same number of iterations (+-1). Skips where no CUDA device is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "solvers/local_levels.hpp"
#include "solvers/poisson_problem.hpp"

using namespace quilt;

namespace {

/// QUILT_REQUIRE_CUDA=1 (a GPU node; the host emulation) turns the skip into a failure.
bool cuda_required() {
  const char* v = std::getenv("QUILT_REQUIRE_CUDA");
  return v != nullptr && std::string(v) == "1";
}

#define QUILT_REQUIRE_CUDA_DEVICE()                                               \
  if (accel::cuda_device_count() == 0) {                                          \
    if (cuda_required())                                                          \
      FAIL() << "QUILT_REQUIRE_CUDA=1, but " << accel::cuda_unavailable_reason(); \
    GTEST_SKIP() << "no CUDA device visible";                                     \
  }

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return std::sqrt(diff / norm);
}

}  // namespace

TEST(CudaTarget, LocalSolveMatchesCpuOnShippedMeshOperators) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Communicator comm;
  for (const char* mesh : {"unit_square_4x2.msh", "unit_square_unstructured.msh"}) {
    const DistributedMesh dm = distribute(read_msh(mesh_path(mesh)), {}, comm);
    const int L = 6;
    const LevelHierarchy hierarchy(dm, comm, L, std::vector<bool>(dm.mesh.part_names.size(), true),
                                   [](const MacroGeometry& g, accel::BandedMatrix<double>& A,
                                      int m) { add_laplacian(g, A, m); });
    const auto& fine = hierarchy.level(L);
    const auto coarse = local_coarse_levels(hierarchy, L, 1);
    std::vector<const accel::BandedMatrix<double>*> levels;
    for (const auto& A : coarse) levels.push_back(&A);
    const auto fine_local = hierarchy.local_matrix(L);
    levels.push_back(&fine_local);

    std::vector<double> d(fine.matrix.rows());
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = fine.dirichlet[i] ? 0.0 : u(rng);

    auto local_solve = [&](accel::Target target, accel::Precision precision) {
      accel::LocalSolverParams p;
      p.target = target;
      p.precision = precision;
      p.smoother = accel::SmootherType::jacobi;
      auto solver = accel::make_local_solver(p);
      solver->setup(levels);
      std::vector<double> c(d.size());
      solver->solve(d.data(), c.data());
      return c;
    };
    const auto cpu_float = local_solve(accel::Target::cpu, accel::Precision::float32);
    const auto cpu_double = local_solve(accel::Target::cpu, accel::Precision::float64);
    const auto cuda_float = local_solve(accel::Target::cuda, accel::Precision::float32);
    const auto cuda_double = local_solve(accel::Target::cuda, accel::Precision::float64);
    EXPECT_LE(relative_difference(cuda_float, cpu_float), 1e-5) << mesh;
    EXPECT_LE(relative_difference(cuda_float, cpu_double), 1e-4) << mesh;
    EXPECT_LE(relative_difference(cuda_double, cpu_double), 1e-12) << mesh;
  }
}

/// ScaRC with the cuda target's local solves, float, against the cpu target's with the same
/// smoother and ordering: the same tolerance in the same number of iterations (+-1), the same
/// discretisation error. The strong smoothers on the 8-macro square (the emulation runs their
/// barrier kernels thread by thread), Jacobi also on the unstructured one.
TEST(CudaTarget, PoissonIterationsMatchCpuTarget) {
  QUILT_REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* mesh;
    accel::SmootherType smoother;
    accel::SweepOrder ordering;
  };
  using S = accel::SmootherType;
  using O = accel::SweepOrder;
  for (const Case& c : {Case{"unit_square_4x2.msh", S::jacobi, O::lexicographic},
                        Case{"unit_square_unstructured.msh", S::jacobi, O::lexicographic},
                        Case{"unit_square_4x2.msh", S::aditrigs, O::colour},
                        Case{"unit_square_4x2.msh", S::gs, O::colour},
                        Case{"unit_square_4x2.msh", S::ilu, O::lexicographic}}) {
    SCOPED_TRACE(std::string(c.mesh) + ", " + accel::to_string(c.smoother) + "/" +
                 accel::to_string(c.ordering));
    PoissonParams p;
    p.mesh_file = mesh_path(c.mesh);
    p.solution = "exp_sin";
    p.level = 5;
    p.coarse_threshold = 100;
    p.multigrid.local.smoother = c.smoother;
    p.multigrid.local.ordering = c.ordering;
    p.multigrid.local.precision = accel::Precision::float32;
    const PoissonResult cpu = solve_poisson(p, Communicator());
    p.multigrid.local.target = accel::Target::cuda;
    const PoissonResult cuda = solve_poisson(p, Communicator());
    EXPECT_LE(cuda.solve.relative_residual(), 1e-8);
    EXPECT_LE(std::abs(cuda.solve.iterations - cpu.solve.iterations), 1);
    EXPECT_NEAR(cuda.l2_error, cpu.l2_error, 1e-6 * cpu.l2_error);
  }
}

TEST(CudaTarget, WithoutDeviceTheCudaTargetStopsWithAClearMessage) {
  if (accel::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  PoissonParams p;
  p.mesh_file = mesh_path("unit_square_4x2.msh");
  p.level = 3;
  p.multigrid.local.target = accel::Target::cuda;
  p.multigrid.local.smoother = accel::SmootherType::jacobi;
  try {
    solve_poisson(p, Communicator());
    FAIL() << "expected an AccelError";
  } catch (const accel::AccelError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("no CUDA device") != std::string::npos ||
                what.find("no CUDA support") != std::string::npos)
        << what;
  }
}

// --export-matrix (solvers/global_system.hpp, io/matrix_market.hpp), at every rank count ctest
// runs: the exported system read back reproduces the residuals the solver reported for its
// initial guess and its solution (in the global numbering), is symmetric for the Poisson
// problem, and its files are byte for byte those of a one-rank run.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "io/matrix_market.hpp"
#include "io/shared_dir.hpp"
#include "mesh_files.hpp"
#include "solvers/global_system.hpp"
#include "solvers/poisson_problem.hpp"

using namespace quilt;

namespace {

struct Case {
  const char* mesh;
  const char* solution;
  int level;
};

PoissonParams params(const Case& c, const std::string& export_path) {
  PoissonParams p;
  p.mesh_file = mesh_path(c.mesh);
  p.solution = c.solution;
  p.level = c.level;
  p.solver = "cg";
  p.krylov.rel_tol = 1e-8;
  p.krylov.max_iter = 60;
  p.coarse_threshold = 100;
  p.export_matrix = export_path;
  return p;
}

double norm(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x * x;
  return std::sqrt(s);
}

/// |b - A x|
double residual_norm(const SparseMatrix& A, const std::vector<double>& b,
                     const std::vector<double>& x) {
  std::vector<double> Ax;
  A.multiply(x, Ax);
  for (std::size_t i = 0; i < Ax.size(); ++i) Ax[i] = b[i] - Ax[i];
  return norm(Ax);
}

/// The Dirichlet rows of the export: unit rows (the only entry 1 on the diagonal).
std::vector<bool> unit_rows(const SparseMatrix& A) {
  std::vector<bool> unit(A.size, false);
  for (std::size_t r = 0; r < A.size; ++r)
    unit[r] = A.row_start[r + 1] - A.row_start[r] == 1 && A.column[A.row_start[r]] == r &&
              A.value[A.row_start[r]] == 1.0;
  return unit;
}

// The 4 x 2 square with zero boundary values, the unstructured one (valences 3 to 5) with
// nonzero ones (their columns eliminated into the right-hand side).
const Case kCases[] = {{"unit_square_4x2.msh", "sin_sin", 4},
                       {"unit_square_unstructured.msh", "exp_sin", 4}};

/// Reads the export of `c` back and checks it against the solver's run `r`.
void check_export(const Case& c, const std::string& file, const PoissonResult& r,
                  const std::vector<double>& x) {
  SCOPED_TRACE(c.mesh);
  ASSERT_TRUE(r.solve.converged);
  const SparseMatrix A = read_matrix_market_matrix(file);
  const std::vector<double> b = read_matrix_market_vector(global_system_rhs_path(file));
  ASSERT_EQ(A.size, r.dofs);
  ASSERT_EQ(b.size(), r.dofs);
  ASSERT_EQ(x.size(), r.dofs);

  // The solver's initial guess: the Dirichlet values, zero elsewhere.
  const std::vector<bool> dirichlet = unit_rows(A);
  std::vector<double> x0(A.size, 0.0);
  std::size_t boundary = 0;
  for (std::size_t i = 0; i < A.size; ++i)
    if (dirichlet[i]) {
      x0[i] = b[i];
      ++boundary;
      EXPECT_EQ(x[i], b[i]) << "the solution keeps the Dirichlet value of node " << i;
    }
  EXPECT_GT(boundary, 0u);
  EXPECT_LT(boundary, A.size / 4);

  // Same residuals, up to the round-off of forming them in another order: the initial one to
  // 1e-13 of itself, the final one (|r| ~ 1e-8 |r_0|, the difference of numbers of size |r_0|)
  // to 1e-13 of |r_0|.
  const double r0 = residual_norm(A, b, x0);
  EXPECT_NEAR(r0, r.solve.initial_residual, 1e-13 * r.solve.initial_residual);
  const double rx = residual_norm(A, b, x);
  EXPECT_NEAR(rx, r.solve.final_residual, 1e-13 * r.solve.initial_residual);
  EXPECT_LE(rx / r0, 1.01e-8);
  EXPECT_GT(rx / r0, 1e-11) << "the residual must be the solver's, not that of the exact solution";

  // Symmetric (the Dirichlet columns are eliminated), bit for bit: A(i,j) and A(j,i) are the
  // same element integrals added in the same macro order.
  std::size_t checked = 0;
  for (std::size_t i = 0; i < A.size; ++i)
    for (std::size_t t = A.row_start[i]; t < A.row_start[i + 1]; ++t) {
      const std::size_t j = A.column[t];
      double transposed = std::nan("");
      for (std::size_t u = A.row_start[j]; u < A.row_start[j + 1]; ++u)
        if (A.column[u] == i) transposed = A.value[u];
      ASSERT_EQ(A.value[t], transposed) << "A(" << i << "," << j << ")";
      ++checked;
    }
  EXPECT_EQ(checked, A.nonzeros());
  EXPECT_GT(A.nonzeros(), 8 * A.size) << "a Q1 stencil has 9 entries in every interior row";
}

}  // namespace

TEST(MatrixExport, ReproducesTheSolversResidualsAndIsSymmetric) {
  const Communicator comm;
  const test::SharedDir dir(comm);
  for (const Case& c : kCases) {
    const std::string file = dir / (std::string(c.solution) + ".mtx");
    const PoissonResult r = solve_poisson(params(c, file), comm);
    const std::vector<double> x = gather_global_vector(r.mesh, r.level, r.solution, comm);
    if (comm.rank() == 0) check_export(c, file, r, x);
  }
}

TEST(MatrixExport, TheFilesDoNotDependOnTheRankCount) {
  const Communicator comm;
  const test::SharedDir dir(comm);
  for (const Case& c : kCases) {
    solve_poisson(params(c, dir / "ranks.mtx"), comm);
    if (comm.rank() == 0) {
      const Communicator alone(MPI_COMM_SELF);
      solve_poisson(params(c, dir / "alone.mtx"), alone);
      for (const char* suffix : {"", ".rhs"}) {
        const std::string ranks = test::contents(dir / "ranks.mtx" + suffix);
        EXPECT_GT(ranks.size(), 1000u);
        EXPECT_TRUE(ranks == test::contents(dir / "alone.mtx" + suffix))
            << c.mesh << ": the export" << suffix << " at " << comm.size()
            << " ranks differs from the one of 1 rank";
      }
    }
    dir.barrier();
  }
}

TEST(MatrixExportPath, AnUnwritablePathIsAnIoErrorNamingTheFile) {
  const Communicator comm;
  const std::string file = "/nonexistent-quilt-directory/system.mtx";
  std::string what = "(no IoError)";
  try {
    check_global_system_export(file, comm);
  } catch (const IoError& e) {
    what = e.what();
  }
  if (comm.rank() == 0) {
    EXPECT_NE(what.find("'" + file + "'"), std::string::npos) << what;
  }
  EXPECT_NE(what, "(no IoError)");
}

TEST(MatrixMarket, AFileReadsBackBitForBit) {
  const Communicator comm;
  const test::SharedDir dir(comm);
  if (comm.rank() != 0) return;
  SparseMatrix A;
  A.size = 3;
  A.row_start = {0, 2, 3, 5};
  A.column = {0, 2, 1, 0, 2};
  A.value = {1.0 / 3.0, -0.1, 6.02214076e23, -2.5e-300, std::nextafter(1.0, 2.0)};
  write_matrix_market(dir / "a.mtx", A);
  const SparseMatrix B = read_matrix_market_matrix(dir / "a.mtx");
  EXPECT_EQ(B.size, A.size);
  EXPECT_EQ(B.row_start, A.row_start);
  EXPECT_EQ(B.column, A.column);
  EXPECT_EQ(B.value, A.value);
  const std::vector<double> v = {std::numbers::pi, -0.0, 1e300};
  write_matrix_market(dir / "v.mtx", v);
  EXPECT_EQ(read_matrix_market_vector(dir / "v.mtx"), v);
  EXPECT_EQ(test::contents(dir / "a.mtx").substr(0, 46),
            "%%MatrixMarket matrix coordinate real general\n");
}

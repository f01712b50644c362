// The direct solves on any root (solvers/coarse_grid_solver.hpp,
// flow/coarse_navier_stokes_system.hpp). The flow solver spreads its three factorisations over
// the ranks, so each solve must give on any root bitwise what it gives on rank 0; a refresh in
// two halves (gather, then factorise) must factorise the numbers gathered, and a solve between
// the halves must fail on every rank rather than leave the others waiting in a collective. The
// velocity multigrid's second copy of its coarse grid (coarse_pair_root) must follow its
// updates, so that a pair cycle stays bitwise two cycles after the operator changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "flow/coarse_navier_stokes_system.hpp"
#include "flow/navier_stokes_assembly.hpp"
#include "parallel/communicator.hpp"
#include "solvers/coarse_grid_solver.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/solver_error.hpp"
#include "swirl_state.hpp"

using namespace quilt;

namespace {

constexpr int kCoarse = 2;  // the directly solved level below the finest (4)

/// `fields` smooth functions of the coordinates of level l, one after the other: the same value
/// on every copy of a shared node (a type-1 vector).
LevelVector smooth(const LevelHierarchy& h, int l, int fields) {
  const std::size_t nn = h.level(l).matrix.rows_per_macro();
  const int macros = h.mesh().num_local();
  LevelVector v(fields * macros * nn);
  for (int f = 0; f < fields; ++f)
    for (int m = 0; m < macros; ++m) {
      const MacroGeometry& g = h.geometry(l, m);
      for (std::size_t r = 0; r < nn; ++r)
        v[(f * macros + m) * nn + r] = std::cos(2 * g.x[r] + f) * std::exp(g.y[r] - f);
    }
  return v;
}

bool same_bits(const LevelVector& a, const LevelVector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

double max_abs(const Communicator& comm, const LevelVector& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return comm.max(m);
}

struct Cavity {
  Communicator comm{MPI_COMM_WORLD};
  NavierStokesParams params = cavity();
  FlowProblem problem{params, comm};
  NavierStokesAssembly assembly{problem, params, comm};
  FlowVector v;

  explicit Cavity(double swirl) : v(state(problem, assembly, swirl)) { linearise(); }

  void linearise() {
    assembly.assemble(v, params.nu, 0.0);
    assembly.assemble_coarse_levels();
  }
  /// K_H's blocks at the current linearisation, with the Newton blocks.
  void assemble(CoarseNavierStokesSystem& K) {
    assembly.assemble_blocks(K.level(), K.blocks(), K.scratch_operator());
    assembly.assemble_newton_blocks(K.level(), v, K.newton());
  }
};

}  // namespace

TEST(DirectSolves, CoarseGridSolutionIsTheSameOnEveryRootBitwise) {
  Cavity c(1.0);
  const LevelHierarchy& h = c.assembly.velocity();
  const LevelVector b = smooth(h, kCoarse, 1);
  LevelVector x0;
  CoarseGridSolver(h, kCoarse, 0).solve(b, x0);
  EXPECT_GT(max_abs(c.comm, x0), 0.0);
  for (int root = 1; root < c.comm.size(); ++root) {
    LevelVector x;
    CoarseGridSolver(h, kCoarse, root).solve(b, x);
    EXPECT_TRUE(same_bits(x, x0)) << "root " << root;
  }
  EXPECT_THROW(CoarseGridSolver(h, kCoarse, c.comm.size()), SolverError);
}

TEST(DirectSolves, CoarseGridFactorisesTheNumbersGatheredLast) {
  Cavity c(1.0);
  const LevelHierarchy& h = c.assembly.velocity();
  const int root = c.comm.size() - 1;
  CoarseGridSolver solver(h, kCoarse, root);
  c.v = state(c.problem, c.assembly, 3.0);
  c.linearise();
  solver.gather_numbers();
  const LevelVector b = smooth(h, kCoarse, 1);
  LevelVector x, fresh;
  EXPECT_THROW(solver.solve(b, x), SolverError);  // on every rank, or the test would hang
  solver.factorise();
  solver.solve(b, x);
  CoarseGridSolver(h, kCoarse, root).solve(b, fresh);
  EXPECT_TRUE(same_bits(x, fresh));
}

TEST(DirectSolves, CoarseNavierStokesCorrectionIsTheSameOnEveryRootBitwise) {
  Cavity c(1.0);
  const LevelHierarchy& h = c.assembly.velocity();
  const LevelVector r = smooth(h, c.problem.level, 3);
  LevelVector c0;
  for (int root = 0; root < c.comm.size(); ++root) {
    CoarseNavierStokesSystem K(h, kCoarse, true, root);
    c.assemble(K);
    K.update(true);
    LevelVector correction(r.size(), 0.0);
    K.add_correction(r, correction);
    if (root == 0) {
      c0 = correction;
      EXPECT_GT(max_abs(c.comm, c0), 0.0);
    } else {
      EXPECT_TRUE(same_bits(correction, c0)) << "root " << root;
    }
  }
  EXPECT_THROW(CoarseNavierStokesSystem(h, kCoarse, true, -1), SolverError);
}

TEST(DirectSolves, CoarseNavierStokesSystemFactorisesTheNumbersGatheredLast) {
  Cavity c(1.0);
  const LevelHierarchy& h = c.assembly.velocity();
  const int root = c.comm.size() - 1;
  CoarseNavierStokesSystem K(h, kCoarse, true, root);
  c.assemble(K);
  K.update(true);
  c.v = state(c.problem, c.assembly, 3.0);
  c.linearise();
  c.assemble(K);
  K.gather_numbers(true);
  const LevelVector r = smooth(h, c.problem.level, 3);
  LevelVector correction(r.size(), 0.0), fresh(r.size(), 0.0);
  EXPECT_THROW(K.add_correction(r, correction), SolverError);
  K.factorise();
  K.add_correction(r, correction);
  CoarseNavierStokesSystem K_fresh(h, kCoarse, true, root);
  c.assemble(K_fresh);
  K_fresh.update(true);
  K_fresh.add_correction(r, fresh);
  EXPECT_TRUE(same_bits(correction, fresh));
}

TEST(DirectSolves, CoarseGridOnASecondRootFollowsTheUpdates) {
  Cavity c(1.0);
  const LevelHierarchy& h = c.assembly.velocity();
  GlobalMultigridParams p;
  p.coarse_level = kCoarse;
  p.coarse_pair_root = c.comm.size() - 1;  // none at 1 rank
  GlobalMultigrid paired(h, p);
  c.v = state(c.problem, c.assembly, 3.0);
  c.linearise();
  paired.update(CoarseFactorisation::deferred);
  paired.factorise_coarse();
  p.coarse_pair_root = -1;
  GlobalMultigrid single(h, p);  // set up at the new operator
  const int L = c.problem.level;
  const LevelVector d = smooth(h, L, 2);
  const std::size_t half = d.size() / 2;
  const LevelVector d0(d.begin(), d.begin() + half), d1(d.begin() + half, d.end());
  LevelVector c0, c1, e0, e1;
  single.apply(d0, c0);
  single.apply(d1, c1);
  paired.apply_pair(d0, d1, e0, e1);
  EXPECT_GT(max_abs(c.comm, c1), 0.0);
  EXPECT_TRUE(same_bits(e0, c0));
  EXPECT_TRUE(same_bits(e1, c1));
}

// LocalSolver::update and the refreshes under it (smoothers, the coarse dense LU): new numbers in
// the structure of setup() are refactorised in place. The promises checked: an updated solver
// computes bitwise what a fresh setup() with the same matrices computes, for every smoother,
// ordering and precision; update() allocates nothing; another structure is refused and leaves the
// solver solving as before.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/dense_lu.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/local_solver.hpp"
#include "accel/smoother_type.hpp"
#include "allocation_counter.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

using testing::Hierarchy;
using testing::MacroSpec;
using testing::OperatorSpec;

#define EXPECT_CONTAINS(message, part) \
  EXPECT_NE(std::string(message).find(part), std::string::npos) << "message: " << (message)

struct Case {
  SmootherType smoother;
  SweepOrder order;
  Precision precision;
};

std::string describe(const Case& c) {
  std::string s = to_string(c.smoother) + (c.order == SweepOrder::colour ? "_colour" : "") + "_" +
                  to_string(c.precision);
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// Found by argument-dependent lookup: GoogleTest prints parameters with it instead of their bytes.
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* os) {
  *os << describe(c);
}

/// Every smoother with every ordering it has, in both precisions.
std::vector<Case> all_cases() {
  constexpr SmootherType kTypes[] = {
      SmootherType::jacobi,  SmootherType::gs,      SmootherType::sor,      SmootherType::ssor,
      SmootherType::trigs_x, SmootherType::trigs_y, SmootherType::aditrigs, SmootherType::ilu};
  std::vector<Case> out;
  for (SmootherType t : kTypes)
    for (SweepOrder o : {SweepOrder::lexicographic, SweepOrder::colour})
      for (Precision p : {Precision::float64, Precision::float32})
        if (o == SweepOrder::lexicographic || has_colour_order(t)) out.push_back({t, o, p});
  return out;
}

/// V(2, 1) cycles in the digits mode, so the stats (which update() resets) are compared too; sor
/// and the line smoothers with omega != 1 take their damped code paths.
LocalSolverParams params_for(const Case& c) {
  LocalSolverParams p;
  p.precision = c.precision;
  p.smoother = c.smoother;
  p.ordering = c.order;
  p.pre_smooth = 2;
  p.post_smooth = 1;
  p.max_cycles = 3;
  p.digits = 12.0;
  if (c.smoother == SmootherType::sor) p.damping = 1.2;
  if (c.smoother == SmootherType::trigs_y || c.smoother == SmootherType::ilu) p.damping = 0.9;
  return p;
}

// Macros with Dirichlet sides all round, on one side, and on two: unit rows start, end and cross
// the lines of both directions.
const std::vector<MacroSpec> kMacros = {
    {1.0, testing::kAllDirichlet},
    {4.0, testing::kSouthDirichlet},
    {0.25, {false, true, true, false}},
};

/// -nu Laplace + w . grad with a sheared w: the numbers of a Picard step of the flow.
OperatorSpec convection_diffusion(double nu, double wx, double wy) {
  OperatorSpec op;
  op.nu = nu;
  op.w = [wx, wy](double x, double y) { return std::array<double, 2>{wx * (1.0 - y), wy * x}; };
  return op;
}

Hierarchy hierarchy(int coarse, int fine, const std::vector<MacroSpec>& macros, double nu,
                    double wx, double wy) {
  return testing::galerkin_hierarchy(coarse, fine, macros, convection_diffusion(nu, wx, wy));
}

/// Two nonlinear steps' matrices: the same structure, other viscosity and velocity.
struct Steps {
  Hierarchy first = hierarchy(1, 4, kMacros, 1.0, 10.0, 4.0);
  Hierarchy second = hierarchy(1, 4, kMacros, 0.05, -3.0, 15.0);
  std::vector<double> defect = testing::random_defect(first.finest(), kMacros, 17u);
};

std::vector<double> correction(LocalSolver& solver, const std::vector<double>& defect) {
  std::vector<double> c(defect.size(), -1.0);
  solver.solve(defect.data(), c.data());
  return c;
}

/// Bit for bit (so -0 differs from 0), reporting the first row that differs.
void expect_bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t r = 0; r < a.size(); ++r)
    if (std::memcmp(&a[r], &b[r], sizeof(double)) != 0) {
      ADD_FAILURE() << "row " << r << ": " << a[r] << " vs " << b[r];
      return;
    }
}

std::unique_ptr<LocalSolver> solver_for(const Case& c, const Hierarchy& h) {
  std::unique_ptr<LocalSolver> solver = make_local_solver(params_for(c));
  solver->setup(h.levels());
  return solver;
}

/// The message of the AccelError that update() throws for h, or "" if none.
std::string update_rejection(LocalSolver& solver, const Hierarchy& h) {
  try {
    solver.update(h.levels());
  } catch (const AccelError& e) {
    return e.what();
  }
  return "";
}

class LocalSolverUpdate : public ::testing::TestWithParam<Case> {};

TEST_P(LocalSolverUpdate, GivesBitwiseTheCorrectionOfAFreshSetup) {
  const Steps steps;
  const auto solver = solver_for(GetParam(), steps.first);
  // A solve first, so that the cycle's work vectors hold the first step's numbers.
  const std::vector<double> first = correction(*solver, steps.defect);
  solver->update(steps.second.levels());
  const std::vector<double> updated = correction(*solver, steps.defect);
  const auto fresh = solver_for(GetParam(), steps.second);
  expect_bitwise_equal(updated, correction(*fresh, steps.defect));
  EXPECT_EQ(solver->last_stats().cycles, fresh->last_stats().cycles);
  EXPECT_EQ(solver->last_stats().worst_reduction, fresh->last_stats().worst_reduction);
  EXPECT_NE(updated, first) << "the second step's numbers changed nothing";
  // And back: the first step's numbers give the first correction again.
  solver->update(steps.first.levels());
  expect_bitwise_equal(correction(*solver, steps.defect), first);
}

TEST_P(LocalSolverUpdate, AllocatesNothing) {
  const Steps steps;
  const auto solver = solver_for(GetParam(), steps.first);
  correction(*solver, steps.defect);
  const std::vector<const BandedMatrix<double>*> levels = steps.second.levels();
  const long before = testing::allocation_count();
  solver->update(levels);
  EXPECT_EQ(testing::allocation_count() - before, 0);
}

TEST_P(LocalSolverUpdate, RefusesAnotherStructureAndSolvesAsBefore) {
  const Steps steps;
  const auto solver = solver_for(GetParam(), steps.first);
  const std::vector<double> before = correction(*solver, steps.defect);
  const auto expect_refused = [&](const Hierarchy& other, const std::string& what) {
    EXPECT_CONTAINS(update_rejection(*solver, other), what);
    expect_bitwise_equal(correction(*solver, steps.defect), before);
  };
  // Every level of another n (the same level count), another macro count, another level count.
  expect_refused(hierarchy(2, 5, kMacros, 0.05, -3.0, 15.0), "level 0: n = 5, set up with n = 3");
  std::vector<MacroSpec> more = kMacros;
  more.push_back({2.0, testing::kAllDirichlet});
  expect_refused(hierarchy(1, 4, more, 0.05, -3.0, 15.0), "level 0 holds 4 macros, set up with 3");
  expect_refused(hierarchy(2, 4, kMacros, 0.05, -3.0, 15.0), "3 levels given, set up with 4");
  // Another Dirichlet pattern: macro 1 Dirichlet all round, then one unit row of the finest level
  // given an off-diagonal entry.
  std::vector<MacroSpec> walled = kMacros;
  walled[1].dirichlet = testing::kAllDirichlet;
  expect_refused(hierarchy(1, 4, walled, 0.05, -3.0, 15.0),
                 "level 0: the Dirichlet (unit) rows differ from setup's: macro 1, node (0, 1) "
                 "was not a unit row");
  Hierarchy leaky = steps.second;
  leaky.matrices.back().at(band_index(1, 0), 0, 5) = -0.5;
  expect_refused(leaky,
                 "level 3: the Dirichlet (unit) rows differ from setup's: macro 0, node "
                 "(5, 0) was a unit row");
}

INSTANTIATE_TEST_SUITE_P(EverySmoother, LocalSolverUpdate, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return describe(info.param); });

TEST(LocalSolverUpdate, BeforeSetupIsRefused) {
  const Steps steps;
  const auto solver = make_local_solver(LocalSolverParams{});
  EXPECT_CONTAINS(update_rejection(*solver, steps.second), "no hierarchy to update");
}

TEST(LocalSolverUpdate, NumbersSetupRejectsLeaveNoHierarchyUntilTheNextSetup) {
  const Steps steps;
  const Case gs{SmootherType::gs, SweepOrder::lexicographic, Precision::float64};
  const auto solver = solver_for(gs, steps.first);
  Hierarchy broken = steps.second;
  broken.matrices[2].at(kCentre, 1, 3 + 4 * 9) = 0.0;
  const std::string message = update_rejection(*solver, broken);
  EXPECT_CONTAINS(message, "local multigrid update: level 2");
  EXPECT_CONTAINS(message, "macro 1, node (3, 4)");
  std::vector<double> c(steps.defect.size());
  EXPECT_THROW(solver->solve(steps.defect.data(), c.data()), AccelError);
  EXPECT_CONTAINS(update_rejection(*solver, steps.second), "no hierarchy to update");
  solver->setup(steps.second.levels());
  expect_bitwise_equal(correction(*solver, steps.defect),
                       correction(*solver_for(gs, steps.second), steps.defect));
}

// ------------------------------------------------------------------------------------------------
// The refreshes under update(), one by one.

template <class T>
std::vector<T> smoothed(cpu::Smoother<T>& s, const BandedMatrix<T>& A, const std::vector<T>& b) {
  std::vector<T> x(b.size());
  s.smooth(A, b.data(), x.data(), 2, cpu::SweepDirection::forward, true);
  s.smooth(A, b.data(), x.data(), 1, cpu::SweepDirection::backward, false);
  return x;
}

template <class T>
void expect_smoother_update_equals_construction(const Case& c) {
  const Steps steps;
  const BandedMatrix<T> A1 = steps.first.finest().template converted<T>();
  const BandedMatrix<T> A2 = steps.second.finest().template converted<T>();
  const std::vector<T> b(steps.defect.begin(), steps.defect.end());
  const cpu::SmootherParams p{c.smoother, c.order, params_for(c).omega()};
  const auto updated = cpu::make_smoother(A1, p);
  updated->update(A2);
  const std::vector<T> x = smoothed(*updated, A2, b);
  const std::vector<T> y = smoothed(*cpu::make_smoother(A2, p), A2, b);
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(T)), 0) << describe(c);
}

TEST(SmootherUpdate, SweepsBitwiseAsASmootherBuiltFromTheNewNumbers) {
  for (const Case& c : all_cases()) {
    if (c.precision == Precision::float32)
      expect_smoother_update_equals_construction<float>(c);
    else
      expect_smoother_update_equals_construction<double>(c);
  }
}

/// The message of the AccelError that f throws, or "" if none.
template <class F>
std::string rejection(F f) {
  try {
    f();
  } catch (const AccelError& e) {
    return e.what();
  }
  return "";
}

TEST(SmootherUpdate, RejectsWhatConstructionRejectsWithTheSameMessage) {
  const Steps steps;
  const BandedMatrix<double>& good = steps.first.finest();
  // A zero diagonal at a corner: a zero point diagonal, line pivot and ILU pivot alike.
  BandedMatrix<double> bad = steps.second.finest();
  bad.at(kCentre, 1, 0) = 0.0;
  for (const Case& c : all_cases()) {
    if (c.precision == Precision::float32) continue;
    const cpu::SmootherParams p{c.smoother, c.order, params_for(c).omega()};
    const std::string constructed = rejection([&] { cpu::make_smoother(bad, p); });
    EXPECT_CONTAINS(constructed, "macro 1, node (0, 0)") << describe(c);
    const auto smoother = cpu::make_smoother(good, p);
    EXPECT_EQ(rejection([&] { smoother->update(bad); }), constructed) << describe(c);
    const BandedMatrix<double> larger(good.macros, good.n + 2);
    EXPECT_CONTAINS(rejection([&] { smoother->update(larger); }),
                    "the matrix has 3 macros of n = 19, the smoother was built for 3 of n = 17");
  }
}

TEST(DenseLuUpdate, RefactorisesBitwiseAsAFreshFactorisation) {
  const Steps steps;
  const std::vector<double> b = testing::random_defect(steps.first.matrices[1], kMacros, 5u);
  cpu::BatchedDenseLU<float> updated, fresh;
  updated.factorise(steps.first.matrices[1]);
  const long before = testing::allocation_count();
  updated.factorise(steps.second.matrices[1]);
  EXPECT_EQ(testing::allocation_count() - before, 0);
  fresh.factorise(steps.second.matrices[1]);
  std::vector<float> x(b.begin(), b.end()), y(b.begin(), b.end());
  updated.solve(x.data(), x.data());
  fresh.solve(y.data(), y.data());
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0);
}

TEST(BandedMatrix, ReshapedWithinItsCapacityAllocatesNothing) {
  // A scratch batch shaped once for the largest batch serves smaller ones and the largest again
  // without allocating (the cuda target's host scratch); each shape addresses its own rows.
  BandedMatrix<float> A(3, 17);
  const long before = testing::allocation_count();
  A.reshape(2, 9);
  EXPECT_EQ(A.rows(), std::size_t{2 * 81});
  EXPECT_TRUE(A.has_bands());
  A.at(kCentre, 1, 80) = 5.0f;  // the last row of the last macro
  EXPECT_EQ(A.band[kCentre][161], 5.0f);
  A.reshape(3, 17);
  EXPECT_EQ(A.band[kBands - 1].size(), std::size_t{3 * 289});
  EXPECT_EQ(testing::allocation_count() - before, 0);
  A.reshape(4, 17);  // beyond the capacity: every band grows
  EXPECT_GE(testing::allocation_count() - before, kBands);
}

TEST(AllocationCounter, SeesAnAllocation) {
  const long before = testing::allocation_count();
  const auto v = std::make_unique<std::vector<int>>(100);
  EXPECT_GE(testing::allocation_count() - before, 2);
}

}  // namespace
}  // namespace quilt::accel

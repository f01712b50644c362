// Temporal order of the time-stepping schemes, at every rank count ctest runs: the velocity at
// T = 1 after steps dt, dt/2, ... against a reference with a far smaller step, on the same mesh
// (so the spatial error cancels). Backward Euler must converge at order 1, BDF2, Crank-Nicolson
// and the fractional-step theta scheme at order 2, for Stokes and for Navier-Stokes. A wrong
// history coefficient, a lost mass term or a boundary value at the wrong time level drops the
// order.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "flow/time_stepping.hpp"
#include "mesh_files.hpp"
#include "stokes_solution.hpp"

using namespace quilt;

namespace {

// The Stokes solution (stokes_solution.hpp) times sin(t): u = sin(t) u_s (zero on
// the boundary), p = sin(t) p_s, driven by f = cos(t) u_s + sin(t) (-Laplace(u_s) + grad p_s).
using stokes_solution::f1;
using stokes_solution::f2;
using stokes_solution::u1;
using stokes_solution::u2;

struct Case {
  bool stokes;
  TimeScheme scheme;
};

/// The velocity (u1 | u2 | p, type-1) at T = 1 with n steps.
LevelVector velocity_at_end(const Case& run, int steps, const Communicator& comm) {
  auto t = std::make_shared<double>(0.0);  // the time the load is evaluated at
  NavierStokesParams p;
  p.mesh_file = mesh_path("unit_square_4x2.msh");
  p.conditions = {"bottom noslip", "left noslip", "right noslip", "top noslip"};
  p.level = 3;
  p.nu = 1.0;
  p.stokes = run.stokes;
  p.force_x = [t](double x, double y) { return std::cos(*t) * u1(x, y) + std::sin(*t) * f1(x, y); };
  p.force_y = [t](double x, double y) { return std::cos(*t) * u2(x, y) + std::sin(*t) * f2(x, y); };
  p.nonlinear_method = NonlinearMethod::picard;
  p.nonlinear_rel_tol = 1e-10;
  p.nonlinear_abs_tol = 1e-13;
  p.linear.rel_tol = 1e-3;
  p.coarse_threshold = 200;
  NavierStokesSolver solver(p, comm);
  TimeStepper stepper(solver, {.scheme = run.scheme, .step = 1.0 / steps, .end = 1.0},
                      [t](double time) { *t = time; });
  while (!stepper.finished()) stepper.advance();
  EXPECT_EQ(stepper.steps(), steps);
  EXPECT_NEAR(stepper.time(), 1.0, 1e-12);
  return solver.state().values();
}

double velocity_difference(const LevelVector& a, const LevelVector& b, const Communicator& comm) {
  const std::size_t velocity = 2 * a.size() / 3;
  double local = 0;  // a plain nodal sum: every rank count compares like with like
  for (std::size_t i = 0; i < velocity; ++i) local += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(comm.sum(local));
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  static const char* const schemes[] = {"Euler", "Bdf2", "CrankNicolson", "FractionalStepTheta"};
  return std::string(info.param.stokes ? "Stokes" : "NavierStokes") +
         schemes[static_cast<int>(info.param.scheme)];
}

class TemporalOrder : public ::testing::TestWithParam<Case> {};

TEST_P(TemporalOrder, MatchesTheScheme) {
  const Communicator comm;
  const Case run = GetParam();
  const double order = run.scheme == TimeScheme::euler ? 1.0 : 2.0;
  const LevelVector reference = velocity_at_end(run, 256, comm);
  std::vector<double> errors;
  for (int steps : {8, 16, 32})
    errors.push_back(velocity_difference(velocity_at_end(run, steps, comm), reference, comm));
  // The fractional-step theta scheme converges faster than its order 2 on these steps (measured
  // 2.9 and 3.7: its second-order error constant is small here), so only a lower bound for it.
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double measured = std::log2(errors[k - 1] / errors[k]);
    EXPECT_GE(measured, order - 0.2) << "errors " << errors[k - 1] << " -> " << errors[k];
    if (run.scheme != TimeScheme::fractional_step_theta) {
      EXPECT_LE(measured, order + 0.2) << "errors " << errors[k - 1] << " -> " << errors[k];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, TemporalOrder,
    ::testing::Values(Case{true, TimeScheme::euler}, Case{true, TimeScheme::bdf2},
                      Case{true, TimeScheme::crank_nicolson},
                      Case{true, TimeScheme::fractional_step_theta}, Case{false, TimeScheme::euler},
                      Case{false, TimeScheme::bdf2}, Case{false, TimeScheme::crank_nicolson},
                      Case{false, TimeScheme::fractional_step_theta}),
    case_name);

}  // namespace

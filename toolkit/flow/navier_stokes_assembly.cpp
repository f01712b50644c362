#include "flow/navier_stokes_assembly.hpp"

#include <stdexcept>

#include "fem/scalar_assembly.hpp"
#include "flow/pressure_laplacian.hpp"

namespace quilt {
namespace {

const ScalarFunction& or_zero(const ScalarFunction& f) {
  static const ScalarFunction zero = [](double, double) { return 0.0; };
  return f ? f : zero;
}

}  // namespace

NavierStokesAssembly::NavierStokesAssembly(const FlowProblem& problem,
                                           const NavierStokesParams& params,
                                           const Communicator& comm)
    : problem_(&problem),
      params_(&params),
      stab_(params.stabilisation),
      convection_(!params.stokes),
      body_force_(static_cast<bool>(params.force_x) || static_cast<bool>(params.force_y)),
      velocity_(problem.mesh, comm, problem.level, problem.dirichlet_parts,
                convection_ ? LocalCoarsening::hybrid : LocalCoarsening::galerkin),
      blocks_(problem.mesh.num_local(), accel::nodes_per_side(problem.level)),
      Fp_(params.schur == SchurApproximation::pcd ? problem.mesh.num_local() : 0,
          accel::nodes_per_side(problem.level)),
      load_(problem.block_size()),
      lumped_mass_(problem.block_size()) {
  const int L = problem.level;
  const std::size_t nn = velocity_.level(L).matrix.rows_per_macro();
  for (int m = 0; m < problem.mesh.num_local(); ++m)
    assemble_lumped_mass(velocity_.geometry(L, m), lumped_mass_.data() + m * nn);
  velocity_.level(L).shared->sum(lumped_mass_.data());
  if (params.stabilisation.viscous_residual == ViscousResidual::reconstructed)
    viscous_.emplace(velocity_, lumped_mass_, problem.boundary_edges);
  if (params.stabilisation.pressure == PressureStabilisation::local_projection)
    projection_.emplace(velocity_);
  problem.impose_dirichlet_values(load_);
}

void NavierStokesAssembly::assemble(const FlowVector& v, double nu, double inverse_dtau,
                                    const TimeStepTerms& time) {
  inject_velocity(v.u1(), v.u2(), problem_->mesh.num_local(), problem_->level, w_);
  nu_ = nu;
  prepare_time_step(time);
  const Linearisation at{w_[problem_->level][0].data(), w_[problem_->level][1].data(), nu,
                         convection_, stab_};
  if (viscous_) viscous_->linearise(at);
  if (projection_) projection_->linearise(at);
  blocks_.B1.fill(0.0);
  blocks_.B2.fill(0.0);
  blocks_.D1.fill(0.0);
  blocks_.D2.fill(0.0);
  blocks_.C.fill(0.0);
  pseudo_time_shift_ = inverse_dtau;
  assemble_velocity_levels(problem_->level, problem_->level);
  assemble_time_load();
  if (body_force_) {  // the load depends on w through its SUPG/PSPG terms
    const SharedNodes& shared = *velocity_.level(problem_->level).shared;
    shared.sum(load_.u1().data());
    shared.sum(load_.u2().data());
    shared.sum(load_.p().data());
    keep_wall_load();
    problem_->impose_dirichlet_values(load_);
  }
}

void NavierStokesAssembly::keep_wall_load() {
  const auto& dirichlet = problem_->boundary.dirichlet;
  if (wall_load_.block_size() == 0) wall_load_ = FlowVector(problem_->block_size());
  for (std::size_t i = 0; i < dirichlet.size(); ++i) {
    wall_load_.u1()[i] = dirichlet[i] ? load_.u1()[i] : 0.0;
    wall_load_.u2()[i] = dirichlet[i] ? load_.u2()[i] : 0.0;
  }
}

void NavierStokesAssembly::assemble_coarse_levels() {
  if (problem_->level > 0) assemble_velocity_levels(0, problem_->level - 1);
}

void NavierStokesAssembly::assemble_velocity_levels(int first, int last) {
  const int L = problem_->level;
  const NavierStokesParams& p = *params_;
  const double nu = nu_, inverse_dtau = pseudo_time_shift_, c = time_coefficient_;
  const TimeMass mass = time_mass_;
  // One element pass per level: A everywhere, the other blocks on the finest level, and with
  // convection the part of A that the local coarse levels rediscretise (solvers/local_levels.hpp).
  const MacroPairAssembler operators = [&](const MacroGeometry& g, accel::BandedMatrix<double>& A,
                                           accel::BandedMatrix<double>* convection_part, int m) {
    const MacroVelocity wm = velocity_at(g, m);
    if (g.level == L) {
      add_navier_stokes_blocks(
          g, wm, nu, convection_, stab_,
          {&A, &blocks_.B1, &blocks_.B2, &blocks_.D1, &blocks_.D2, &blocks_.C, convection_part}, m,
          time_coefficient_);
      const std::size_t nn = A.rows_per_macro();
      if (body_force_)
        assemble_navier_stokes_load(g, wm, nu, convection_, stab_, or_zero(p.force_x),
                                    or_zero(p.force_y), load_.u1().data() + m * nn,
                                    load_.u2().data() + m * nn, load_.p().data() + m * nn);
      if (Fp_.macros > 0) {
        // A holds the element sums of add_velocity_operator alone so far (its masses come
        // below): the velocity operator of add_pressure_convection_diffusion, bitwise.
        Fp_.assign_macro(A, m);
        if (convection_) add_inflow_robin_term(g, wm, problem_->boundary_edges[m], Fp_, m);
        // F_p ~ c M_p of the Schur approximation keeps the lumped mass (flow/pressure_schur.hpp)
        if (inverse_dtau + c > 0) add_lumped_mass(g, Fp_, m, inverse_dtau + c);
      }
    } else
      add_velocity_operator(g, wm, nu, convection_, stab_, A, m, time_coefficient_,
                            convection_part);
    if (inverse_dtau > 0) add_lumped_mass(g, A, m, inverse_dtau);
    if (c > 0) add_time_mass(mass, g, A, m, c);
  };
  velocity_.assemble_levels(first, last, operators);
}

void NavierStokesAssembly::prepare_time_step(const TimeStepTerms& time) {
  time_coefficient_ = time.history ? time.mass_coefficient : 0.0;
  time_mass_ = time.mass;
  const bool time_scale = stab_.params.time_scale == StabilisationTimeScale::step && time.history;
  stab_.inverse_time_step = time_scale && time.step > 0 ? 1.0 / time.step : 0.0;
  if (!time.history) return;
  if (time_load_.block_size() == 0) {  // the first time step: its storage
    history_velocity_ = FlowVector(problem_->block_size());
    time_load_ = FlowVector(problem_->block_size());
    time_derivative_ = FlowVector(problem_->block_size());
  }
  if (!time.history_velocity)
    throw std::invalid_argument("NavierStokesAssembly: a time step's history without M^{-1} g");
  history_velocity_ = *time.history_velocity;
}

MacroVelocity NavierStokesAssembly::velocity_at(const MacroGeometry& g, int m) const {
  const std::size_t nn = static_cast<std::size_t>(g.n) * g.n;
  return {w_[g.level][0].data() + m * nn, w_[g.level][1].data() + m * nn};
}

void NavierStokesAssembly::assemble_pressure_laplacian(LevelHierarchy& laplacian, double c) const {
  laplacian.assemble([&](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
    if (c > 0)
      add_stabilised_pressure_laplacian(g, velocity_at(g, m), nu_, convection_, stab_, c, A, m);
    else
      add_laplacian(g, A, m);
    add_mass(g, A, m, kPressureLaplacianShift);
  });
}

void NavierStokesAssembly::assemble_blocks(int level, FlowBlocks& blocks,
                                           accel::BandedMatrix<double>& A) const {
  for (auto* block : {&A, &blocks.B1, &blocks.B2, &blocks.D1, &blocks.D2, &blocks.C})
    block->fill(0.0);
  for (int m = 0; m < problem_->mesh.num_local(); ++m) {
    const MacroGeometry& g = velocity_.geometry(level, m);
    add_navier_stokes_blocks(g, velocity_at(g, m), nu_, convection_, stab_,
                             {&A, &blocks.B1, &blocks.B2, &blocks.D1, &blocks.D2, &blocks.C}, m,
                             time_coefficient_);
  }
}

void NavierStokesAssembly::assemble_time_load() {
  if (time_coefficient_ == 0.0)
    time_load_.values().assign(time_load_.values().size(), 0.0);
  else
    apply_time_derivative_terms(history_velocity_, time_load_);
}

void NavierStokesAssembly::apply_time_derivative_terms(const FlowVector& z, FlowVector& y) const {
  y.values().assign(y.values().size(), 0.0);
  const int L = problem_->level;
  const std::size_t nn = velocity_.level(L).matrix.rows_per_macro();
  for (int m = 0; m < problem_->mesh.num_local(); ++m) {
    const std::size_t o = m * nn;
    add_time_derivative_load(velocity_.geometry(L, m), {w_[L][0].data() + o, w_[L][1].data() + o},
                             nu_, convection_, stab_, {z.u1().data() + o, z.u2().data() + o},
                             y.u1().data() + o, y.u2().data() + o, y.p().data() + o);
  }
  const SharedNodes& shared = *velocity_.level(L).shared;
  shared.sum(y.u1().data());
  shared.sum(y.u2().data());
  shared.sum(y.p().data());
}

void NavierStokesAssembly::assemble_newton(const FlowVector& v, double nu) {
  const int L = problem_->level;
  const int macros = problem_->mesh.num_local();
  if (!jacobian_)
    jacobian_.emplace(macros, accel::nodes_per_side(L));
  else
    for (auto* block : {&jacobian_->J11, &jacobian_->N12, &jacobian_->N21, &jacobian_->J22,
                        &jacobian_->F1, &jacobian_->F2})
      block->fill(0.0);
  const std::size_t nn = velocity_.level(L).matrix.rows_per_macro();
  if (viscous_) {  // the residual in the derivatives of tau_K, delta_K carries -nu div G_h(u_k)
    if (state_gradient_.d[0].empty()) state_gradient_ = NodalGradient(lumped_mass_.size());
    viscous_->recovery().recover(v.u1().data(), v.u2().data(), state_gradient_);
  }
  if (time_coefficient_ != 0.0)  // d = c v - z, the time derivative in the element residual
    for (int k = 0; k < 2; ++k) {
      const std::span<const double> u = k == 0 ? v.u1() : v.u2();
      const std::span<const double> z = k == 0 ? history_velocity_.u1() : history_velocity_.u2();
      const std::span<double> d = k == 0 ? time_derivative_.u1() : time_derivative_.u2();
      for (std::size_t i = 0; i < d.size(); ++i) d[i] = time_coefficient_ * u[i] - z[i];
    }
  if (projection_) projection_->linearise_jacobian(v.p().data());
  for (int m = 0; m < macros; ++m) {
    MacroGradient G{};
    if (viscous_) G = state_gradient_.macro(m, nn);
    const MacroVelocity d{time_derivative_.u1().data() + m * nn,
                          time_derivative_.u2().data() + m * nn};
    add_newton_blocks(velocity_.geometry(L, m),
                      {w_[L][0].data() + m * nn, w_[L][1].data() + m * nn}, v.p().data() + m * nn,
                      nu, stab_, params_->force_x, params_->force_y, jacobian_->newton_blocks(), m,
                      viscous_ ? &G : nullptr, time_coefficient_ != 0.0 ? &d : nullptr);
  }
  jacobian_->fold(velocity_.level(L).matrix, blocks_);
}

void NavierStokesAssembly::assemble_newton_blocks(int level, const FlowVector& v,
                                                  NewtonCoupling& newton) const {
  for (auto* block : {&newton.N11, &newton.N12, &newton.N21, &newton.N22, &newton.E1, &newton.E2})
    block->fill(0.0);
  const int macros = problem_->mesh.num_local();
  const std::size_t nn = newton.N11.rows_per_macro();
  std::vector<double> p(nn * macros);  // the pressure injected into the level, as w_ is
  inject(v.p(), macros, problem_->level, level, p);
  for (int m = 0; m < macros; ++m) {
    const MacroGeometry& g = velocity_.geometry(level, m);
    add_newton_blocks(g, velocity_at(g, m), p.data() + m * nn, nu_, stab_, params_->force_x,
                      params_->force_y, newton.blocks(), m);
  }
}

}  // namespace quilt

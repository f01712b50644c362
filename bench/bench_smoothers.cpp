// quilt-bench-smoothers: how fast the local multigrid converges with each smoother of the local
// layer on the operators the solver meets, and how fast one velocity ScaRC cycle converges with
// the configured local solver. Prints Markdown tables:
//   (1) the convergence rate per local V(2,2) cycle, worst macro, of every smoother on
//       - the Poisson local matrices of a strip of three macros of aspect ratio 1, 10, 100, 1000
//         (the middle macro's local x runs along the short side, the others' along the long side);
//       - the velocity operators A = nu L + N(w) + SUPG of the driven cavity at Re = 100 and 1000
//         and of DFG 2D-1 and the steady DFG Re = 100 (ring macros around the cylinder only),
//         linearised at the flow computed by quilt-flow's configuration on a coarser level and
//         interpolated to L;
//     with the Galerkin coarse levels the solver uses and, for the velocity, the hybrid levels:
//     Galerkin for nu L, convection and SUPG rediscretised with the coarse h (as FEAT3 assembles
//     its Burgers operator on every level);
//   (2) the convergence rate per cycle of the velocity ScaRC multigrid (A c = d alone) with the
//       configuration's solver keys.
//
//   quilt-bench-smoothers [--quick] [--levels=A-B] [--rates-only | --scarc-only] [solver keys...]
//     --levels: the levels of the rate table (default 5-9)
//     e.g. --solver.local.smoother=ilu --solver.local.pre_smooth=2 (passed to every config)
// Run from the repository root (it names the configs relative to it), on one rank.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/galerkin.hpp"
#include "accel/cpu/grid_transfer.hpp"
#include "accel/local_solver.hpp"
#include "common/flow_options.hpp"
#include "common/mpi_main.hpp"
#include "fem/scalar_assembly.hpp"
#include "flow/boundary_conditions.hpp"
#include "flow/level_velocity.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "flow/pressure_laplacian.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;
using accel::BandedMatrix;

namespace {

/// A local hierarchy, coarsest first, of one operator on a batch of macros.
using LocalLevels = std::vector<BandedMatrix<double>>;

struct SmootherChoice {
  const char* label;
  accel::SmootherType type;
  accel::SweepOrder order;
};

const std::vector<SmootherChoice> kSmoothers = {
    {"jacobi", accel::SmootherType::jacobi, accel::SweepOrder::lexicographic},
    {"gs", accel::SmootherType::gs, accel::SweepOrder::lexicographic},
    {"gs/4c", accel::SmootherType::gs, accel::SweepOrder::colour},
    {"ssor", accel::SmootherType::ssor, accel::SweepOrder::lexicographic},
    {"trigs-x", accel::SmootherType::trigs_x, accel::SweepOrder::lexicographic},
    {"trigs-y", accel::SmootherType::trigs_y, accel::SweepOrder::lexicographic},
    {"aditrigs", accel::SmootherType::aditrigs, accel::SweepOrder::lexicographic},
    {"adi/zebra", accel::SmootherType::aditrigs, accel::SweepOrder::colour},
    {"ilu", accel::SmootherType::ilu, accel::SweepOrder::lexicographic},
};

bool is_unit_row(const BandedMatrix<double>& A, std::size_t r) {
  for (int k = 0; k < accel::kBands; ++k)
    if (k != accel::kCentre && A.band[k][r] != 0.0) return false;
  return true;
}

/// Galerkin coarse levels of `fine` down to level 1, coarsest first, `fine` last.
LocalLevels galerkin_levels(BandedMatrix<double> fine, int level) {
  LocalLevels down{std::move(fine)};
  for (int l = level; l > 1; --l) down.push_back(accel::cpu::galerkin_coarse(down.back()));
  return {std::make_move_iterator(down.rbegin()), std::make_move_iterator(down.rend())};
}

/// Asymptotic defect reduction per local cycle of every macro, (|d_8| / |d_2|)^(1/6); NaN when
/// the smoother cannot be set up (e.g. a zero pivot). A value above 1 is divergence.
std::vector<double> local_rates(const LocalLevels& levels, accel::LocalSolverParams params) {
  const BandedMatrix<double>& A = levels.back();
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(A.rows()), c(A.rows()), r(A.rows());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = is_unit_row(A, i) ? 0.0 : u(gen);
  std::vector<const BandedMatrix<double>*> pointers;
  for (const auto& l : levels) pointers.push_back(&l);
  std::vector<double> norms[2];
  const int cycles[2] = {2, 8};
  for (int t = 0; t < 2; ++t) {
    params.max_cycles = cycles[t];
    auto solver = accel::make_local_solver(params);
    try {
      solver->setup(pointers);
    } catch (const accel::AccelError&) {
      return std::vector<double>(A.macros, std::nan(""));
    }
    solver->solve(d.data(), c.data());
    accel::cpu::defect(A, d.data(), c.data(), r.data());
    const std::size_t nn = A.rows_per_macro();
    for (int m = 0; m < A.macros; ++m) {
      double sum = 0;
      for (std::size_t i = m * nn; i < (m + 1) * nn; ++i) sum += r[i] * r[i];
      norms[t].push_back(std::sqrt(sum));
    }
  }
  std::vector<double> rates(A.macros);
  for (int m = 0; m < A.macros; ++m)
    rates[m] = std::pow(norms[1][m] / norms[0][m], 1.0 / (cycles[1] - cycles[0]));
  return rates;
}

/// A set of macros whose worst rate is reported on a row of its own.
struct MacroGroup {
  std::string name;
  std::vector<int> macros;  ///< indices into the measured batch
};

void print_rate_header() {
  std::printf("| operator | L | coarse levels |");
  for (const auto& s : kSmoothers) std::printf(" %s |", s.label);
  std::printf("\n|---|---|---|");
  for (std::size_t s = 0; s < kSmoothers.size(); ++s) std::printf("---|");
  std::printf("\n");
}

/// One row per group: the worst rate over its macros for every smoother, V(2,2).
void print_rate_rows(const std::vector<MacroGroup>& groups, int level, const char* coarse,
                     const LocalLevels& levels, const accel::LocalSolverParams& base) {
  std::vector<std::vector<double>> rates;  // [smoother][macro]
  for (const auto& s : kSmoothers) {
    accel::LocalSolverParams p = base;
    p.smoother = s.type;
    p.ordering = s.order;
    p.damping.reset();
    p.pre_smooth = p.post_smooth = 2;
    rates.push_back(local_rates(levels, p));
  }
  for (const MacroGroup& g : groups) {
    std::printf("| %s | %d | %s |", g.name.c_str(), level, coarse);
    for (const auto& per_macro : rates) {
      double worst = 0;
      for (int m : g.macros)
        if (!(per_macro[m] <= worst)) worst = per_macro[m];  // NaN propagates
      if (std::isfinite(worst) && worst < 1.0)
        std::printf(" %.3f |", worst);
      else
        std::printf(" div |");
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

/// Three macros in a row, each a rectangle a x 1 (a = aspect); the middle one's vertex 0 is its
/// lower right corner, so its local x runs along the short side.
DistributedMesh strip(double aspect, const Communicator& comm) {
  CoarseMesh mesh;
  mesh.source = "strip of aspect ratio " + std::to_string(aspect);
  for (int i = 0; i <= 3; ++i) mesh.vertices.push_back({i * aspect, 0.0});
  for (int i = 0; i <= 3; ++i) mesh.vertices.push_back({i * aspect, 1.0});
  mesh.cells = {{0, 1, 5, 4}, {2, 6, 5, 1}, {2, 3, 7, 6}};
  mesh.part_names = {"boundary"};
  mesh.build_topology(
      {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 7, 0}, {7, 6, 0}, {6, 5, 0}, {5, 4, 0}, {4, 0, 0}});
  return distribute(std::move(mesh), {}, comm);
}

void poisson_rates(const std::vector<int>& levels, const accel::LocalSolverParams& base,
                   const Communicator& comm) {
  for (double aspect : {1.0, 10.0, 100.0, 1000.0}) {
    const DistributedMesh dm = strip(aspect, comm);
    const std::string name = "Poisson, aspect ratio " + std::to_string(static_cast<int>(aspect));
    for (int L : levels) {
      // Dirichlet on the outer boundary only: the middle macro's local matrix is truncated on the
      // two sides it shares.
      const LevelHierarchy h(
          dm, comm, L, {true},
          [](const MacroGeometry& g, BandedMatrix<double>& A, int m) { add_laplacian(g, A, m); });
      print_rate_rows({{name, {0, 1, 2}}}, L, "Galerkin", galerkin_levels(h.local_matrix(L), L),
                      base);
    }
  }
}

/// A converged flow of a quilt-flow configuration, and what is needed to assemble its velocity
/// operator on other levels.
struct Flow {
  std::string name;
  NavierStokesParams params;
  NavierStokesResult result;
  std::vector<bool> dirichlet_parts;
  std::vector<MacroGroup> groups;  ///< all macros, and the ring around the cylinder if any
};

Flow solve_flow(const std::string& name, const std::vector<std::string>& args,
                const Communicator& comm) {
  Config config("quilt-bench-smoothers", "");
  declare_flow_keys(config);
  std::vector<char*> argv;
  std::vector<std::string> words{"quilt-bench-smoothers"};
  words.insert(words.end(), args.begin(), args.end());
  for (auto& w : words) argv.push_back(w.data());
  config.parse(static_cast<int>(argv.size()), argv.data());
  Flow f{name, read_flow_options(config, comm).params, {}, {}, {}};
  f.result = solve_navier_stokes(f.params, comm);
  const CoarseMesh& mesh = f.result.mesh.mesh;
  f.dirichlet_parts = dirichlet_parts(mesh, parse_velocity_conditions(mesh, f.params.conditions));
  MacroGroup all{name, {}}, ring{name + ", ring", {}};
  const int cylinder = mesh.part_id("cylinder");
  for (int m = 0; m < f.result.mesh.num_local(); ++m) {
    all.macros.push_back(m);
    for (int e : mesh.cell_edges[f.result.mesh.macros[m]])
      if (cylinder >= 0 && mesh.edge_part[e] == cylinder) {
        ring.macros.push_back(m);
        break;
      }
  }
  f.groups.push_back(all);
  if (!ring.macros.empty()) f.groups.push_back(ring);
  return f;
}

/// The velocity on level L: the flow's finest level prolongated (or injected, if coarser).
std::array<LevelVector, 2> velocity_on(const Flow& f, int L) {
  const int macros = f.result.mesh.num_local();
  std::array<LevelVector, 2> u{f.result.u1, f.result.u2};
  for (int l = f.result.level; l < L; ++l)
    for (auto& c : u) {
      LevelVector fine(static_cast<std::size_t>(macros) * accel::nodes_per_side(l + 1) *
                       accel::nodes_per_side(l + 1));
      accel::cpu::prolongate(macros, accel::nodes_per_side(l), c.data(), fine.data());
      c = std::move(fine);
    }
  if (L < f.result.level) {
    const auto injected = inject_velocity(u[0], u[1], macros, f.result.level);
    u = injected[L];
  }
  return u;
}

/// The velocity operator (convection on) or its diffusion part (off) on levels 0..L; with
/// `hybrid`, with the convection part the solver's local coarse levels rediscretise.
LevelHierarchy velocity_hierarchy(const Flow& f, int L, bool convection, const Communicator& comm,
                                  bool hybrid = false) {
  const auto u = velocity_on(f, L);
  const auto w = inject_velocity(u[0], u[1], f.result.mesh.num_local(), L);
  const auto velocity = [&](const MacroGeometry& g, int m) {
    const std::size_t nn = static_cast<std::size_t>(g.n) * g.n;
    return MacroVelocity{w[g.level][0].data() + m * nn, w[g.level][1].data() + m * nn};
  };
  const auto convection_part = [&](const MacroGeometry& g, BandedMatrix<double>& C, int m) {
    add_convection_operator(g, velocity(g, m), f.params.nu, f.params.stabilisation, C, m);
  };
  return LevelHierarchy(
      f.result.mesh, comm, L, f.dirichlet_parts,
      [&](const MacroGeometry& g, BandedMatrix<double>& A, int m) {
        add_velocity_operator(g, velocity(g, m), f.params.nu, convection, f.params.stabilisation, A,
                              m);
      },
      hybrid ? MacroAssembler(convection_part) : MacroAssembler());
}

/// Hybrid coarse levels: Galerkin products of the diffusion part D, plus the rediscretised
/// convection and SUPG part A_k - D_k of every coarser level (local matrices throughout).
LocalLevels hybrid_levels(const LevelHierarchy& full, const LevelHierarchy& diffusion, int L) {
  LocalLevels down{full.local_matrix(L)};
  BandedMatrix<double> g = diffusion.local_matrix(L);
  for (int l = L - 1; l >= 1; --l) {
    g = accel::cpu::galerkin_coarse(g);
    BandedMatrix<double> a = full.local_matrix(l);
    const BandedMatrix<double> d = diffusion.local_matrix(l);
    for (std::size_t r = 0; r < a.rows(); ++r) {
      if (is_unit_row(d, r)) continue;  // Dirichlet: the unit row stays
      for (int k = 0; k < accel::kBands; ++k) a.band[k][r] += g.band[k][r] - d.band[k][r];
    }
    down.push_back(std::move(a));
  }
  return {std::make_move_iterator(down.rbegin()), std::make_move_iterator(down.rend())};
}

void velocity_rates(const std::vector<Flow>& flows, const std::vector<int>& levels,
                    const accel::LocalSolverParams& base, const Communicator& comm) {
  for (const Flow& f : flows)
    for (int L : levels) {
      const LevelHierarchy full = velocity_hierarchy(f, L, true, comm);
      print_rate_rows(f.groups, L, "Galerkin", galerkin_levels(full.local_matrix(L), L), base);
      const LevelHierarchy diffusion = velocity_hierarchy(f, L, false, comm);
      print_rate_rows(f.groups, L, "hybrid", hybrid_levels(full, diffusion, L), base);
    }
}

/// Rate per cycle of a ScaRC multigrid on A c = 0 from a random start: (|r_12| / |r_4|)^(1/8).
void scarc_rate(const std::string& name, const LevelHierarchy& h, GlobalMultigridParams p,
                std::size_t coarse_threshold, const char* coarse_levels, const Communicator& comm) {
  const int L = h.finest();
  p.coarse_level = choose_coarse_level(h.mesh().mesh, L, coarse_threshold);
  GlobalMultigrid mg(h, p);
  const GlobalLevel& finest = h.level(L);
  LevelVector b(finest.matrix.rows(), 0.0), x(b.size());
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : x) v = u(gen);
  finest.shared->average(x.data());  // a consistent (type-1) start
  filter(finest.dirichlet, x);
  KrylovParams kp;
  kp.rel_tol = 0.0;
  kp.max_iter = 12;
  kp.fail_on_cap = false;
  double rho = std::nan("");
  try {
    const KrylovResult r = mg.solve(b, x, kp);
    rho = std::pow(r.history[12] / r.history[4], 1.0 / 8);
  } catch (const SolverError&) {
  }
  if (comm.rank() == 0) {
    std::printf("| %s | %d | %s | %s | ", name.c_str(), L, coarse_levels, mg.description().c_str());
    if (std::isfinite(rho) && rho < 1.0)
      std::printf("%.3f |\n", rho);
    else
      std::printf("div |\n");
  }
}

int run(int argc, char** argv, const Communicator& comm) {
  bool quick = false, rates = true, scarc = true;
  int first = 5, last = 9;
  std::vector<std::string> keys;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--rates-only") == 0)
      scarc = false;
    else if (std::strcmp(argv[i], "--scarc-only") == 0)
      rates = false;
    else if (std::sscanf(argv[i], "--levels=%d-%d", &first, &last) == 2 && first >= 2 &&
             last >= first)
      continue;
    else
      keys.push_back(argv[i]);
  }
  std::vector<int> levels;
  for (int L = quick ? 4 : first; L <= (quick ? 5 : last); ++L) levels.push_back(L);
  const auto config = [&](const char* file, std::vector<std::string> extra) {
    std::vector<std::string> args{"--config", file};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), keys.begin(), keys.end());
    return args;
  };
  // The flows are computed on a coarse level (solve_level) and interpolated.
  const std::string solve_level = quick ? "--mesh.level=4" : "--mesh.level=5";
  const std::string dfg_level = quick ? "--mesh.level=2" : "--mesh.level=4";
  std::vector<Flow> flows;
  flows.push_back(solve_flow(
      "cavity Re 100", config("apps/configs/cavity.ini", {"--flow.re=100", solve_level}), comm));
  flows.push_back(solve_flow("cavity Re 1000",
                             config("apps/configs/cavity.ini",
                                    {"--flow.re=1000", "--solver.type=fgmres",
                                     "--solver.max_iter=100", "--solver.restart=100", solve_level}),
                             comm));
  flows.push_back(solve_flow("DFG 2D-1", config("apps/configs/dfg_2d1.ini", {dfg_level}), comm));
  flows.push_back(solve_flow("DFG Re 100 steady",
                             config("apps/configs/dfg_re100_steady.ini", {dfg_level}), comm));
  const NavierStokesParams& defaults = flows.front().params;
  if (rates && comm.rank() == 0) {
    std::printf("## Local multigrid: rate per V(2,2) cycle, worst macro (levels 1..L, %s)\n\n",
                accel::to_string(defaults.multigrid.local.precision).c_str());
    print_rate_header();
    poisson_rates(levels, defaults.multigrid.local, comm);
    velocity_rates(flows, levels, defaults.multigrid.local, comm);
  }
  if (scarc) {
    if (comm.rank() == 0)
      std::printf(
          "\n## ScaRC multigrid alone (A c = d): rate per cycle\n\n| operator | L | "
          "local coarse levels | solver | rate |\n|---|---|---|---|---|\n");
    const std::pair<const Flow*, int> cases[] = {
        {&flows[1], quick ? 5 : 7}, {&flows[2], quick ? 3 : 5}, {&flows[3], quick ? 3 : 5}};
    for (const auto& [f, L] : cases) {
      GlobalMultigridParams velocity = f->params.multigrid;
      velocity.local.smoother = f->params.velocity_smoother.type;
      velocity.local.ordering = f->params.velocity_smoother.ordering;
      velocity.local.damping = f->params.velocity_smoother.damping;
      for (bool hybrid : {false, true})
        scarc_rate(f->name + ", velocity", velocity_hierarchy(*f, L, true, comm, hybrid), velocity,
                   f->params.coarse_threshold, hybrid ? "hybrid" : "Galerkin", comm);
      scarc_rate(f->name + ", pressure Laplacian", pressure_laplacian(f->result.mesh, comm, L),
                 f->params.multigrid, f->params.coarse_threshold, "Galerkin", comm);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_main("quilt-bench-smoothers", argc, argv, run);
}

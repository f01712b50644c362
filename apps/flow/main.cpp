// quilt-flow: the stationary incompressible Navier-Stokes equations on a macro mesh, solved by
// fixed-point defect correction with the Schur-complement-preconditioned two-layer solver.
// The problem is described by the configuration alone: mesh, boundary conditions per part,
// viscosity, solver and postprocessing keys. Parses and checks the configuration (all of it,
// before the solve), calls the library, prints the log, writes JSON/VTU.
//
//   mpirun -np 4 build/bin/quilt-flow --config apps/configs/cavity.ini --results cavity.json

#include "common/flow_options.hpp"
#include "common/mpi_main.hpp"
#include "flow/flow_log.hpp"
#include "flow/flow_report.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "flow/transient_flow.hpp"
#include "io/results_report.hpp"

using namespace quilt;

namespace {

int run(int argc, char** argv, const Communicator& comm, ResultsReport& report) {
  Config config("quilt-flow", "Navier-Stokes, Q1/Q1 PSPG/SUPG, two-layer ScaRC solver");
  declare_flow_keys(config);
  if (!config.parse(argc, argv)) return 0;
  // The output paths first: an error in the keys read next is then reported in --results too.
  report.check_output(config, "navier-stokes", comm);
  const FlowOptions options = read_flow_options(config, comm);

  const FlowRun run{options.params, options.scale, comm.size()};
  FlowLog log(run, comm.rank() == 0);
  if (options.time) {  // instationary: one line per time step, the series in the results
    log.time_header(!options.postprocessing.force_part.empty());
    const TransientFlowResult t = solve_transient_flow(
        options.params, *options.time, options.postprocessing, options.output, comm,
        [&](const TimeStepRecord& s, const FlowQuantities& q, const NavierStokesResult&) {
          log.time_step(s, q);
        });
    const FlowQuantities q =
        t.at_end(evaluate_flow_quantities(options.postprocessing, t.last, options.params.nu, comm));
    log.series_summary(t.series);
    log.summary(t.last, q);
    Json results = flow_results_json(run, t.last, q);
    add_time_series(t.series, options.scale.length, options.scale.velocity, results);
    report.write(results, comm);
    if (config.has("vtu")) write_flow_vtu(config.get<std::string>("vtu"), "flow", t.last, comm);
    return 0;
  }
  log.header();
  const NavierStokesResult r =
      solve_navier_stokes(options.params, comm, [&](const NonlinearStep& s) { log.step(s); });
  const FlowQuantities q =
      evaluate_flow_quantities(options.postprocessing, r, options.params.nu, comm);
  log.summary(r, q);
  report.write(flow_results_json(run, r, q), comm);
  if (config.has("vtu")) write_flow_vtu(config.get<std::string>("vtu"), "flow", r, comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_main("quilt-flow", argc, argv, run);
}

// quilt-cuda-launch-count: the stream operations one local solve of the cuda target queues,
// counted on the host emulation (accel/emulation, EmulatedDevice::queued_work), so that the
// launch counts of the performance model (bench/gpu_model.py, docs/performance_model.md) are
// checked against the code that really runs, not against a second reading of it.
//
//   quilt-cuda-launch-count SMOOTHER PRE POST LEVEL COARSE MACROS
//
// Sets up the cuda target in float (the zebra and 4-colour smoothers in their colour ordering,
// the only one the target has) on Q1 Laplacians of levels COARSE..LEVEL, then counts one
// solve() (defect in, one V(PRE, POST) cycle, correction out) and prints one line
//   SMOOTHER PRE POST LEVEL COARSE MACROS kernels=K fills=F copies=C
// Only the counts matter, so small levels suffice: they do not depend on n, only on the number
// of levels.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "../tests/accel/q1_test_matrices.hpp"
#include "accel/emulation/emulated_device.hpp"
#include "accel/local_solver.hpp"

namespace {

namespace accel = quilt::accel;

accel::emulation::EmulatedDevice::QueuedWork queued() {
  auto& device = accel::emulation::EmulatedDevice::instance();
  const auto lock = device.lock();
  return device.queued_work();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s SMOOTHER PRE POST LEVEL COARSE MACROS\n", argv[0]);
    return 2;
  }
  try {
    accel::LocalSolverParams p;
    p.target = accel::Target::cuda;
    p.precision = accel::Precision::float32;
    p.smoother = accel::parse_smoother(argv[1]);
    p.ordering = accel::has_colour_order(p.smoother) ? accel::SweepOrder::colour
                                                     : accel::SweepOrder::lexicographic;
    p.pre_smooth = std::atoi(argv[2]);
    p.post_smooth = std::atoi(argv[3]);
    const int level = std::atoi(argv[4]), coarse = std::atoi(argv[5]), macros = std::atoi(argv[6]);
    const std::vector<accel::testing::MacroSpec> specs(macros);
    const accel::testing::Hierarchy h = accel::testing::q1_hierarchy(coarse, level, specs);
    const std::vector<double> d = accel::testing::random_defect(h.finest(), specs, 1);
    std::vector<double> c(d.size());
    auto solver = accel::make_local_solver(p);
    solver->setup(h.levels());
    const auto before = queued();
    solver->solve(d.data(), c.data());
    const auto after = queued();
    std::printf("%s %d %d %d %d %d kernels=%llu fills=%llu copies=%llu\n", argv[1], p.pre_smooth,
                p.post_smooth, level, coarse, macros,
                static_cast<unsigned long long>(after.kernels - before.kernels),
                static_cast<unsigned long long>(after.fills - before.fills),
                static_cast<unsigned long long>(after.copies - before.copies));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quilt-cuda-launch-count: %s\n", e.what());
    return 1;
  }
}

#include "scarc_options.hpp"

#include <string>

#include "accel/local_solver.hpp"
#include "common/key_choice.hpp"

namespace po = boost::program_options;

namespace quilt {
namespace {

constexpr KeyChoice<SchwarzCombination> kCombinations[] = {
    {"average", SchwarzCombination::average}, {"symmetric", SchwarzCombination::symmetric}};

/// accel::parse_smoother for solver.local.smoother, whose message names kAutoSmoother as well.
accel::SmootherType parse_local_smoother(const std::string& s) {
  try {
    return accel::parse_smoother(s);
  } catch (const accel::AccelError&) {
    throw accel::AccelError("unknown smoother '" + s + "' (expected " + kAutoSmoother + ", " +
                            accel::smoother_names() + ")");
  }
}

}  // namespace

void declare_scarc_keys(Config& config) {
  const GlobalMultigridParams mg;  // the defaults of the keys
  const accel::LocalSolverParams& local = mg.local;
  // clang-format off
  config.keys()
    ("solver.mg.pre_smooth", po::value<int>()->default_value(mg.pre_smooth), "global Schwarz pre-smoothing steps")
    ("solver.mg.post_smooth", po::value<int>()->default_value(mg.post_smooth), "global Schwarz post-smoothing steps")
    ("solver.mg.damping", po::value<double>(),
     "damping of the Schwarz correction (default: 1 on levels whose local smoother is jacobi, "
     "0.7 otherwise)")
    ("solver.mg.combination",
     po::value<std::string>()->default_value(choice_name(kCombinations, mg.combination)),
     "combining local corrections at shared nodes: average | symmetric (always symmetric for cg)")
    ("solver.coarse.threshold", po::value<long long>()->default_value(static_cast<long long>(kDefaultCoarseThreshold)),
     "coarse level Lc: highest level below L with at most this many global unknowns (UMFPACK)")
    ("solver.local.target", po::value<std::string>()->default_value(accel::to_string(local.target)),
     "local solves on: cpu | cuda")
    ("solver.local.precision", po::value<std::string>()->default_value(accel::to_string(local.precision)),
     "local solve precision: double | float (mixed precision)")
    ("solver.local.smoother", po::value<std::string>()->default_value(accel::to_string(local.smoother)),
     "local MG smoother (in quilt-flow: of the pressure Laplacian): jacobi | gs | sor | ssor | "
     "trigs-x | trigs-y (line Gauss-Seidel along x- / y-lines) | aditrigs (alternating x- and "
     "y-lines) | ilu (ILU(0)) | auto (on levels whose elements all have an aspect ratio of "
     "at most 2.5 jacobi where the stencil is constant, else gs (jacobi on cuda); aditrigs on "
     "the others)")
    ("solver.local.ordering", po::value<std::string>()->default_value(kAutoOrdering),
     "local smoother sweep order: auto (lexicographic on cpu; colour on cuda where the smoother "
     "has it) | lexicographic | colour (4 colours, or zebra lines: the data-parallel form)")
    ("solver.local.pre_smooth", po::value<int>()->default_value(local.pre_smooth), "local MG pre-smoothing steps")
    ("solver.local.post_smooth", po::value<int>()->default_value(local.post_smooth), "local MG post-smoothing steps")
    ("solver.local.damping", po::value<double>(),
     "relaxation omega of the local smoother (default: 0.7 for jacobi, 1 for the others)")
    ("solver.local.cycles", po::value<int>()->default_value(local.max_cycles),
     "local V-cycles per local solve (cap with digits)")
    ("solver.local.digits", number_key(local.digits),
     "> 0: local cycles until each macro gained this many digits")
    ("solver.local.coarse_level", po::value<int>()->default_value(mg.local_coarse_level),
     "coarsest local MG level (dense LU per macro)")
    ("solver.local.device", po::value<int>()->default_value(local.device),
     "cuda device; -1: node-local rank modulo the device count");
  // clang-format on
}

ScarcOptions read_scarc_options(const Config& config, const Communicator& comm) {
  ScarcOptions o;
  auto& mg = o.multigrid;
  mg.pre_smooth = config.get("solver.mg.pre_smooth", Range<int>::at_least(0));
  mg.post_smooth = config.get("solver.mg.post_smooth", Range<int>::at_least(0));
  if (mg.pre_smooth + mg.post_smooth == 0)
    config.fail("solver.mg.pre_smooth", "smoothing steps must not both be 0");
  if (config.has("solver.mg.damping"))
    mg.damping = config.get("solver.mg.damping", Range<double>::open_closed(0, 1.5));
  mg.combination = read_choice(config, "solver.mg.combination", kCombinations);
  // Read as a signed number: -1 would wrap to 2^64 - 1 as an unsigned one.
  o.coarse_threshold = static_cast<std::size_t>(
      config.get("solver.coarse.threshold", Range<long long>::at_least(1)));
  mg.local_coarse_level = config.get("solver.local.coarse_level", Range<int>::at_least(0));
  auto& local = mg.local;
  local.target = parse_key(config, "solver.local.target", accel::parse_target);
  local.precision = parse_key(config, "solver.local.precision", accel::parse_precision);
  mg.auto_smoother = config.get<std::string>("solver.local.smoother") == kAutoSmoother;
  local.smoother = mg.auto_smoother
                       ? accel::SmootherType::aditrigs
                       : parse_key(config, "solver.local.smoother", parse_local_smoother);
  local.ordering = read_ordering(config, "solver.local.ordering", local.smoother, local.target);
  local.pre_smooth = config.get("solver.local.pre_smooth", Range<int>::at_least(0));
  local.post_smooth = config.get("solver.local.post_smooth", Range<int>::at_least(0));
  if (config.has("solver.local.damping")) {
    if (mg.auto_smoother)
      config.fail(
          "solver.local.damping",
          "not with solver.local.smoother = auto: each smoother it picks takes its default");
    local.damping = config.get("solver.local.damping", kSmootherDampingRange);
  }
  check_smoother_keys(config, local.smoother, local.ordering, local.damping, "solver.local");
  local.max_cycles = config.get("solver.local.cycles", Range<int>::at_least(1));
  local.digits = config.get("solver.local.digits", Range<double>::at_least(0));
  local.device = config.get("solver.local.device", Range<int>::at_least(-1));
  try {
    accel::check_local_solver_params(local);
  } catch (const accel::AccelError& e) {
    config.fail("solver.local", e.what());
  }
  if (local.target == accel::Target::cuda && local.device < 0) {
    const int devices = accel::cuda_device_count();
    if (devices > 0) local.device = comm.node_local_rank() % devices;
  }
  return o;
}

accel::SweepOrder read_ordering(const Config& config, const std::string& key,
                                accel::SmootherType smoother, accel::Target target) {
  if (config.get<std::string>(key) == kAutoOrdering) return accel::natural_order(smoother, target);
  return parse_key(config, key, accel::parse_sweep_order);
}

void check_smoother_keys(const Config& config, accel::SmootherType type, accel::SweepOrder order,
                         const std::optional<double>& damping, const std::string& keys) {
  try {
    accel::check_smoother(type, order, damping.value_or(accel::default_damping(type)), keys);
  } catch (const accel::AccelError& e) {
    config.fail(keys + ".smoother", e.what());
  }
}

}  // namespace quilt

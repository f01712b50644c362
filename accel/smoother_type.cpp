#include "accel/smoother_type.hpp"

#include <array>
#include <utility>

#include "accel/local_solver.hpp"

namespace quilt::accel {
namespace {

constexpr std::array<std::pair<SmootherType, const char*>, 8> kNames{{
    {SmootherType::jacobi, "jacobi"},
    {SmootherType::gs, "gs"},
    {SmootherType::sor, "sor"},
    {SmootherType::ssor, "ssor"},
    {SmootherType::trigs_x, "trigs-x"},
    {SmootherType::trigs_y, "trigs-y"},
    {SmootherType::aditrigs, "aditrigs"},
    {SmootherType::ilu, "ilu"},
}};

}  // namespace

SmootherType parse_smoother(const std::string& s) {
  for (const auto& [type, name] : kNames)
    if (s == name) return type;
  throw AccelError("solver.local.smoother: unknown smoother '" + s +
                   "' (expected jacobi, gs, sor, ssor, trigs-x, trigs-y, aditrigs or ilu)");
}

SweepOrder parse_sweep_order(const std::string& s) {
  if (s == "lexicographic") return SweepOrder::lexicographic;
  if (s == "colour") return SweepOrder::colour;
  throw AccelError("solver.local.ordering: unknown ordering '" + s +
                   "' (expected lexicographic or colour)");
}

std::string to_string(SmootherType s) {
  for (const auto& [type, name] : kNames)
    if (s == type) return name;
  return "?";
}

std::string to_string(SweepOrder o) {
  return o == SweepOrder::colour ? "colour" : "lexicographic";
}

double default_damping(SmootherType s) {
  return s == SmootherType::jacobi ? 0.7 : 1.0;
}

bool has_colour_order(SmootherType s) {
  return s != SmootherType::jacobi && s != SmootherType::ilu;
}

}  // namespace quilt::accel

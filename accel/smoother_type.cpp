#include "accel/smoother_type.hpp"

#include <array>
#include <utility>

#include "accel/local_solver.hpp"  // AccelError

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
  throw AccelError("unknown smoother '" + s + "' (expected " + smoother_names() + ")");
}

std::string smoother_names() {
  std::string names;
  for (std::size_t i = 0; i < kNames.size(); ++i)
    names += (i == 0 ? "" : i + 1 < kNames.size() ? ", " : " or ") + std::string(kNames[i].second);
  return names;
}

SweepOrder parse_sweep_order(const std::string& s) {
  if (s == "lexicographic") return SweepOrder::lexicographic;
  if (s == "colour") return SweepOrder::colour;
  throw AccelError("unknown ordering '" + s + "' (expected lexicographic or colour)");
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

void check_smoother(SmootherType s, SweepOrder o, double omega, const std::string& keys) {
  // Jacobi and SOR converge on an SPD matrix at best for omega in (0, 2) (Ostrowski-Reich).
  if (!(omega > 0.0 && omega < 2.0))
    throw AccelError(keys + ".damping must lie in (0, 2), got " + std::to_string(omega));
  if (s == SmootherType::gs && omega != 1.0)
    throw AccelError(keys + ".damping = " + std::to_string(omega) + " does not apply to " + keys +
                     ".smoother = gs (Gauss-Seidel is SOR with omega = 1); choose sor for another "
                     "omega");
  if (o == SweepOrder::colour && !has_colour_order(s))
    throw AccelError(keys + ".ordering = colour: the " + to_string(s) +
                     " smoother has no colour variant (only gs, sor, ssor, trigs-x, trigs-y and "
                     "aditrigs have)");
}

}  // namespace quilt::accel

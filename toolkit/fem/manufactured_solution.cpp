#include "fem/manufactured_solution.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace quilt {

ManufacturedSolution manufactured_solution(const std::string& name) {
  constexpr double pi = std::numbers::pi;
  if (name == "sin_sin") {
    return {name, [](double x, double y) { return std::sin(pi * x) * std::sin(pi * y); },
            [](double x, double y) { return pi * std::cos(pi * x) * std::sin(pi * y); },
            [](double x, double y) { return pi * std::sin(pi * x) * std::cos(pi * y); },
            [](double x, double y) { return 2 * pi * pi * std::sin(pi * x) * std::sin(pi * y); }};
  }
  if (name == "exp_sin") {
    // u = e^{x/2} sin s, s = 2y + x: u_xx = e^{x/2}(cos s - 3/4 sin s), u_yy = -4 e^{x/2} sin s.
    return {name, [](double x, double y) { return std::exp(0.5 * x) * std::sin(2 * y + x); },
            [](double x, double y) {
              return std::exp(0.5 * x) * (0.5 * std::sin(2 * y + x) + std::cos(2 * y + x));
            },
            [](double x, double y) { return 2 * std::exp(0.5 * x) * std::cos(2 * y + x); },
            [](double x, double y) {
              return std::exp(0.5 * x) * (4.75 * std::sin(2 * y + x) - std::cos(2 * y + x));
            }};
  }
  throw std::invalid_argument("unknown manufactured solution '" + name +
                              "' (expected sin_sin or exp_sin)");
}

}  // namespace quilt

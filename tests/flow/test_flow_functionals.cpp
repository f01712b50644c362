// Integral flow functionals of Q1 velocity fields (fem/flow_functionals.hpp), summed over the
// macros as the caller does.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "fem/flow_functionals.hpp"
#include "fem/scalar_assembly.hpp"
#include "flow/nodal_field.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;

namespace {

class FlowFunctionals : public ::testing::TestWithParam<const char*> {};

constexpr int kLevel = 3;

}  // namespace

// Linear fields are reproduced exactly by Q1 on straight-edged quadrilaterals and |u|^2 det J is
// then a polynomial of degree <= 3 per reference variable, so 3x3 Gauss gives the exact value.
TEST_P(FlowFunctionals, KineticEnergyOfLinearFields) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam()));
  double uniform = 0, shear = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, kLevel);
    const auto one = nodal(g, [](double, double) { return 1.0; });
    const auto zero = nodal(g, [](double, double) { return 0.0; });
    const auto y = nodal(g, [](double, double yy) { return yy; });
    uniform += kinetic_energy(g, one.data(), zero.data());
    shear += kinetic_energy(g, zero.data(), y.data());
  }
  EXPECT_NEAR(uniform, 0.5, 1e-14);
  EXPECT_NEAR(shear, 1.0 / 6.0, 1e-14);
}

// Solid-body rotation u = (-y, x) has vorticity 2: the load sums to twice the area, and equals
// twice the lumped mass at every node (type-0, macro by macro).
TEST_P(FlowFunctionals, VorticityLoadOfRigidRotation) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam()));
  double total = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, kLevel);
    const auto u1 = nodal(g, [](double, double y) { return -y; });
    const auto u2 = nodal(g, [](double x, double) { return x; });
    std::vector<double> load(g.x.size()), lumped(g.x.size());
    vorticity_load(g, u1.data(), u2.data(), load.data());
    assemble_lumped_mass(g, lumped.data());
    for (std::size_t r = 0; r < load.size(); ++r) {
      EXPECT_NEAR(load[r], 2.0 * lumped[r], 1e-15);
      total += load[r];
    }
  }
  EXPECT_NEAR(total, 2.0, 1e-13);
}

TEST_P(FlowFunctionals, DivergenceOfLinearFields) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam()));
  double solenoidal = 0, expanding = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, kLevel);
    const auto u1 = nodal(g, [](double x, double y) { return 0.3 + 2.0 * x + 0.5 * y; });
    const auto u2 = nodal(g, [](double x, double y) { return -0.7 + 1.5 * x - 2.0 * y; });
    const auto x = nodal(g, [](double xx, double) { return xx; });
    const auto zero = nodal(g, [](double, double) { return 0.0; });
    solenoidal += divergence_l2_squared(g, u1.data(), u2.data());
    expanding += divergence_l2_squared(g, x.data(), zero.data());
  }
  EXPECT_NEAR(solenoidal, 0.0, 1e-24);
  EXPECT_NEAR(expanding, 1.0, 1e-13);
}

INSTANTIATE_TEST_SUITE_P(Meshes, FlowFunctionals,
                         ::testing::Values("unit_square_4x2.msh", "unit_square_unstructured.msh"));

// On the axis-aligned rectangles of the 4x2 mesh xy is a Q1 function: div (xy, 0) = y, and
// int_0^1 int_0^1 y^2 = 1/3 exactly with 3x3 Gauss.
TEST(FlowFunctionalsRectangles, DivergenceOfBilinearField) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  double sum = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, kLevel);
    const auto xy = nodal(g, [](double x, double y) { return x * y; });
    const auto zero = nodal(g, [](double, double) { return 0.0; });
    sum += divergence_l2_squared(g, xy.data(), zero.data());
  }
  EXPECT_NEAR(sum, 1.0 / 3.0, 1e-14);
}

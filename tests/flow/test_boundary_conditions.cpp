// The time modulation of velocity boundary conditions (flow/boundary_conditions.hpp): the DFG
// 2D-3 inflow 'sin 8' and the smooth start-up 'ramp T' at the times where their values are
// known, and the parser's refusal of a modulation where none belongs.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "flow/boundary_conditions.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;

namespace {

VelocityCondition inflow(const std::string& modulation) {
  const CoarseMesh mesh = read_msh(mesh_path("dfg_channel.msh"));
  return parse_velocity_conditions(
      mesh, {"wall noslip", "cylinder noslip", "inflow parabolic 1.5 0 0.41 " + modulation,
             "outflow donothing"})[2];
}

TEST(VelocityCondition, SineFollowsTheDfg2d3Inflow) {
  const VelocityCondition c = inflow("sin 8");
  EXPECT_DOUBLE_EQ(c.value(0, 0.205, 0).x, 0.0);
  EXPECT_DOUBLE_EQ(c.value(0, 0.205, 4).x, 1.5);  // Umax at t = 4
  EXPECT_NEAR(c.value(0, 0.205, 2).x, 1.5 * std::sqrt(0.5), 1e-15);
}

TEST(VelocityCondition, RampRisesSmoothlyAndThenHolds) {
  const VelocityCondition c = inflow("ramp 2");
  EXPECT_DOUBLE_EQ(c.value(0, 0.205, 0).x, 0.0);
  EXPECT_NEAR(c.value(0, 0.205, 1).x, 0.75, 1e-15);  // half-way: half the value
  EXPECT_DOUBLE_EQ(c.value(0, 0.205, 2).x, 1.5);
  EXPECT_DOUBLE_EQ(c.value(0, 0.205, 7).x, 1.5);
  EXPECT_LT(c.value(0, 0.205, 0.01).x, 1e-4);  // starts with zero slope
}

TEST(VelocityCondition, ModulationOnlyWhereAVelocityIsPrescribed) {
  const CoarseMesh mesh = read_msh(mesh_path("dfg_channel.msh"));
  const auto parse = [&](const std::string& wall) {
    parse_velocity_conditions(
        mesh, {wall, "cylinder noslip", "inflow parabolic 1.5 0 0.41", "outflow donothing"});
  };
  EXPECT_THROW(parse("wall noslip ramp 1"), std::invalid_argument);
  EXPECT_THROW(parse("wall velocity 1 0 ramp -1"), std::invalid_argument);
  EXPECT_THROW(parse("wall velocity 1 0 ramp 1 2"), std::invalid_argument);
  EXPECT_THROW(parse("wall velocity 1 0 cos 1"), std::invalid_argument);
  EXPECT_NO_THROW(parse("wall velocity 1 0 ramp 1"));
}

}  // namespace

#pragma once
// The implicit time discretisations of flow/time_stepping.hpp.

namespace quilt {

enum class TimeScheme { euler, bdf2, crank_nicolson, fractional_step_theta };

}  // namespace quilt

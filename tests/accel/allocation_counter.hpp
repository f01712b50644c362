#pragma once
// A count of the allocations of the whole test executable, for the promises of "allocates
// nothing" (LocalSolver::update). Linking allocation_counter.cpp replaces the global operator new
// and delete with counting ones that otherwise behave as the library's; only executables that
// check such a promise link it.

namespace quilt::accel::testing {

/// Allocations (operator new, of any form that goes through it) since the program started.
long allocation_count();

}  // namespace quilt::accel::testing

#pragma once
// The pressure Laplacian A_p of the PCD Schur approximation (pressure_schur.hpp) on every
// level 0..L: natural (Neumann) conditions on the whole boundary, as in Kay, Loghin & Wathen
// (2002), plus eps M_p with eps = 1e-4, far below the smallest nonzero Neumann eigenvalue (~pi^2
// of a unit-sized domain), so that A_p is invertible without changing it elsewhere.
//
// Why not Dirichlet on the do-nothing parts (Elman & Tuminaro 2009): that is consistent only with
// the same Dirichlet rows in F_p and M_p. Dirichlet rows in A_p alone cost 2.5x the FGMRES
// iterations per nonlinear step on DFG 2D-1 (measured: 43 / 17 at L = 4), and the pressure nodes
// on the outflow had to fall back to the Stokes limit nu M_p^{-1}.

#include "parallel/distributed_mesh.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// eps of the shift eps M_p.
inline constexpr double kPressureLaplacianShift = 1e-4;

LevelHierarchy pressure_laplacian(const DistributedMesh& dm, const Communicator& comm, int L);

}  // namespace quilt

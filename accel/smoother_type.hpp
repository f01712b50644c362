#pragma once
// The local multigrid's smoothers (design.md §7): FEAST's family on the 9-band storage, from the
// weakest (damped Jacobi) to the ones that stay robust for anisotropic macros and convection
// (line Gauss-Seidel in both directions, ILU(0)).

#include <string>

namespace quilt::accel {

enum class SmootherType {
  jacobi,    ///< x += omega D^{-1} (b - A x)
  gs,        ///< point Gauss-Seidel (SOR with omega = 1)
  sor,       ///< point SOR
  ssor,      ///< symmetric SOR: a forward and a backward sweep
  trigs_x,   ///< line Gauss-Seidel along x-lines (TRIGS): bands -1, 0, +1 solved per line
  trigs_y,   ///< line Gauss-Seidel along y-lines: bands -n, 0, +n solved per line
  aditrigs,  ///< alternating x-line and y-line sweeps (ADI-TRIGS)
  ilu,       ///< ILU(0) on the 9-band pattern: x += omega (L U)^{-1} (b - A x)
};

/// The order in which a sweep visits the unknowns (point smoothers) or lines (line smoothers).
/// `colour`: 4 colours (i mod 2, j mod 2) for the point smoothers, 2 colours of lines (zebra)
/// for the line smoothers. No two unknowns (lines) of a colour are coupled by the 9-point
/// stencil, so every colour is updated at once: the data-parallel form of the cuda target.
enum class SweepOrder { lexicographic, colour };

/// "jacobi" | "gs" | "sor" | "ssor" | "trigs-x" | "trigs-y" | "aditrigs" | "ilu", else AccelError.
SmootherType parse_smoother(const std::string& s);
/// The names parse_smoother takes, for messages: "jacobi, gs, ..., aditrigs or ilu".
std::string smoother_names();
/// "lexicographic" | "colour", else AccelError.
SweepOrder parse_sweep_order(const std::string& s);
std::string to_string(SmootherType s);
std::string to_string(SweepOrder o);

/// omega when solver.local.damping is not given: 0.7 for Jacobi (near the optimal smoothing
/// factor 4/5 of the 5-point Laplacian, safe for the 9-point one), 1 for the others (their
/// smoothing comes from the ordering, not from damping).
double default_damping(SmootherType s);
/// Whether the smoother has a colour variant (every one but jacobi and ilu).
bool has_colour_order(SmootherType s);
/// Throws AccelError, naming the key keys + ".damping" or keys + ".ordering", when omega is
/// outside (0, 2), gs is given an omega other than 1, or the ordering does not exist for s.
void check_smoother(SmootherType s, SweepOrder o, double omega, const std::string& keys);

}  // namespace quilt::accel

#pragma once
// Bilinear grid transfer between consecutive levels of a batch of macros (design.md §7), shared
// by the local multigrid and the toolkit's global multigrid.
//
// A coarse macro grid has n_c x n_c nodes, its refinement n_f = 2 n_c - 1 per side, both numbered
// lexicographically and stored macro after macro. Prolongation P is the Q1 embedding on the index
// grid: fine(2i, 2j) = coarse(i, j), a fine node halfway along a coarse edge takes the mean of the
// edge's two ends, a fine node at a coarse cell centre the mean of its four corners. Restriction
// is exactly P^T (weights 1, 1/2, 1/4), so <P x, y> = <x, P^T y>.

namespace quilt::accel::cpu {

/// fine = P coarse on every macro; fine (macros * n_f^2 values) is overwritten.
template <class T>
void prolongate(int macros, int n_coarse, const T* coarse, T* fine);

/// fine += P coarse on every macro (the coarse-grid correction of a multigrid cycle); with
/// `fixed`, only where fixed is 0 (the global layer's Dirichlet rows keep their values): bitwise
/// the product into a vector of its own added there, in one sweep instead of three.
template <class T>
void prolongate_add(int macros, int n_coarse, const T* coarse, T* fine,
                    const char* fixed = nullptr);

/// coarse = P^T fine on every macro; coarse (macros * n_c^2 values) is overwritten.
template <class T>
void restrict_transpose(int macros, int n_coarse, const T* fine, T* coarse);

}  // namespace quilt::accel::cpu

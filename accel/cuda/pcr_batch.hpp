#pragma once
// A test hook into the cuda target's batched tridiagonal solver (accel/cuda/pcr.cuh), the line
// solve of its zebra line smoothers, so that tests can check it on its own against a reference.
// A plain C++ header (no CUDA types); defined in pcr_batch.cu.

namespace quilt::accel::cuda {

/// Solves `systems` tridiagonal systems of n equations each, stored one after another:
/// sub[i] x[i-1] + diag[i] x[i] + super[i] x[i+1] = rhs[i] within each system (sub at a system's
/// first equation and super at its last are ignored), by the PCR kernel on the current device.
/// Throws AccelError on a CUDA error, or when a system of n equations does not fit one block.
template <class T>
void solve_tridiagonal_batch(int n, int systems, const T* sub, const T* diag, const T* super,
                             const T* rhs, T* x);

}  // namespace quilt::accel::cuda

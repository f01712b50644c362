#!/usr/bin/env bash
# The local smoothers (robust-local-layer issue figures), in one run:
#  1. quilt-bench-local: triad bandwidth, banded SpMV, and the time per unknown of one local
#     V-cycle of every smoother, double and float;
#  2. quilt-bench-smoothers: the rate per local V(2,2) cycle of every smoother on the Poisson
#     operators of aspect ratio 1, 10, 100, 1000 and the velocity operators of the cavity
#     (Re = 100, 1000) and of DFG 2D-1 / steady Re = 100 (all macros and the ring), L = 5..9,
#     Galerkin and hybrid coarse levels; and the rate per ScaRC cycle of the velocity and the
#     pressure-Laplacian multigrids of those flows with the shipped configs.
# Run the timing part on a quiet machine: it is one thread and measures memory bandwidth.
# Usage: bench/smoother_benchmark.sh [build-dir]   (QUICK=1: a smoke run; LEVELS=5-8 to cap L)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
for b in quilt-bench-local quilt-bench-smoothers; do
  [ -x "$BUILD/bin/$b" ] || { echo "smoother_benchmark.sh: $BUILD/bin/$b is missing" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ "${QUICK:-0}" = 1 ]; then
  "$BUILD/bin/quilt-bench-local" --quick
  echo
  "$BUILD/bin/quilt-bench-smoothers" --quick
else
  "$BUILD/bin/quilt-bench-local"
  echo
  "$BUILD/bin/quilt-bench-smoothers" --levels="${LEVELS:-5-9}"
fi

#!/bin/bash
# Builds bench/peers/peer_solve.c, the peer solver driver of bench/peer_comparison.sh, into
# BUILD_DIR (default build/peers) when hypre is installed (Debian: libhypre-dev), with PETSc's
# GAMG as well when PETSc is (petsc-dev, found through pkg-config). Neither is needed by the
# normal build or the tests; without hypre this script says so and exits 3.
#   bench/peers/build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build/peers}
CC=${MPICC:-mpicc}
HYPRE_INCLUDE=${HYPRE_INCLUDE:-/usr/include/hypre}
if [ ! -f "$HYPRE_INCLUDE/HYPRE.h" ]; then
  echo "bench/peers/build.sh: hypre not found ($HYPRE_INCLUDE/HYPRE.h; apt-get install libhypre-dev)" >&2
  exit 3
fi
FLAGS=(-O2 -std=c11 -Wall -Wextra -Werror -I"$HYPRE_INCLUDE")
LIBS=(-lHYPRE -lm)
# Debian installs PETSc's pkg-config file under its own prefix.
for dir in /usr/lib/petscdir/petsc*/x86_64-linux-gnu-real/lib/pkgconfig; do
  [ -d "$dir" ] && export PKG_CONFIG_PATH="$dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
done
if pkg-config --exists PETSc 2>/dev/null; then
  FLAGS+=(-DPEER_WITH_PETSC $(pkg-config --cflags PETSc))
  LIBS+=($(pkg-config --libs PETSc) -Wl,-rpath,"$(pkg-config --variable=libdir PETSc)")
  echo "bench/peers/build.sh: with PETSc $(pkg-config --modversion PETSc) (gamg)"
else
  echo "bench/peers/build.sh: PETSc not found, hypre only"
fi
mkdir -p "$OUT"
"$CC" "${FLAGS[@]}" -o "$OUT/peer_solve" bench/peers/peer_solve.c "${LIBS[@]}"
echo "built $OUT/peer_solve"

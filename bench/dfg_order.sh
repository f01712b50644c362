#!/usr/bin/env bash
# Convergence orders of DFG 2D-1 (Re = 20) over the levels, per stabilisation variant (design.md
# §8: stabilisation.pressure, stabilisation.viscous_residual): c_D, c_L, dp (from the wall
# traction) and dp of the Q1 pressure's own point values against docs/reference/dfg_cylinder.csv,
# and p at the two points of dp (front and back of the cylinder), which have no published values,
# from successive differences. Iterations and time per level.
# Usage: bench/dfg_order.sh [build-dir] [reference-dir]
#   LEVELS (default "2 3 4 5 6"), NP (ranks, default 2), VARIANTS (PRESSURE/VISCOUS pairs, default
#   "pspg/dropped pspg/reconstructed local_projection/dropped"), OUT (folder of the JSON results
#   and logs, default a new temporary one).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin/quilt-flow
REF=${2:-docs/reference}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OUT=${OUT:-$(mktemp -d)}
LEVELS=${LEVELS:-"2 3 4 5 6"}
NP=${NP:-2}
VARIANTS=${VARIANTS:-"pspg/dropped pspg/reconstructed local_projection/dropped"}
NAMES=
mkdir -p "$OUT"
for variant in $VARIANTS; do
  pressure=${variant%/*} viscous=${variant#*/}
  NAMES="$NAMES ${pressure}_$viscous"
  for L in $LEVELS; do
    name="${pressure}_${viscous}_L$L"
    mpirun -np "$NP" "$BIN" --config apps/configs/dfg_2d1.ini --mesh.level="$L" \
      --stabilisation.pressure="$pressure" --stabilisation.viscous_residual="$viscous" \
      --results "$OUT/$name.json" > "$OUT/$name.log" 2>&1 \
      || echo "$name failed: $(grep -m1 error "$OUT/$name.log")"
  done
done
python3 bench/dfg_order.py "$OUT" "$LEVELS" "$NAMES" "$REF"
echo
echo "(JSON results and logs in $OUT)"

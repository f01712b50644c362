#!/usr/bin/env bash
# Driven-cavity figures of the Navier-Stokes issue, in one run (docs/design.md §9):
#  - Re = 100, L = 4..8: kinetic energy, centreline deviation from Ghia et al., iterations;
#  - linear iterations per nonlinear step L = 5 vs L = 8; ranks 1, 2, 4, 8; float vs double;
#  - the FEAST NS paper's Table 2/3 layout for Stokes and Re = 100 (cpu target);
#  - Re = 400, L = 7 against Ghia et al. (only --flow.re changed);
#  - Re = 1000, L = 7 against Botella & Peyret and Bruneau & Saad.
# Usage: bench/cavity_benchmark.sh [build-dir] [reference-dir]
#   QUICK=1 for small levels (smoke run); the reference dir defaults to docs/reference.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin/quilt-flow
REF=${2:-docs/reference}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
if [ "${QUICK:-0}" = 1 ]; then
  LEVELS="3 4 5"; TABLE_LEVELS="3 4"; RANK_LEVEL=4; RE1000_LEVEL=5; NP=2
else
  LEVELS="4 5 6 7 8"; TABLE_LEVELS="5 6 7 8"; RANK_LEVEL=6; RE1000_LEVEL=7; NP=2
fi
run() {  # run NAME NP ARGS...
  local name=$1 np=$2; shift 2
  mpirun -np "$np" "$BIN" --config apps/configs/cavity.ini --results "$OUT/$name.json" "$@" \
    > "$OUT/$name.log"
}
for L in $LEVELS; do run "re100_L$L" $NP --mesh.level=$L; done
for np in 1 2 4 8; do run "ranks${np}_L$RANK_LEVEL" $np --mesh.level=$RANK_LEVEL; done
run "float_L$RANK_LEVEL" $NP --mesh.level=$RANK_LEVEL --solver.local.precision=float
for L in $TABLE_LEVELS; do
  run "table_stokes_L$L" 1 --mesh.level=$L --flow.stokes=true
  run "table_re100_L$L" 1 --mesh.level=$L
done
run "re400_L$RE1000_LEVEL" $NP --mesh.level=$RE1000_LEVEL --flow.re=400
run "re1000_L$RE1000_LEVEL" $NP --mesh.level=$RE1000_LEVEL --flow.re=1000 --nonlinear.rel_tol=1e-6
python3 bench/cavity_report.py "$OUT" "$REF" "$LEVELS" "$TABLE_LEVELS" $RANK_LEVEL $RE1000_LEVEL
# Figures next to the JSON (a note instead where matplotlib is missing): Re = 100 over the
# levels, Re = 400 and Re = 1000, centrelines against Ghia / Botella, convergence.
python3 bench/plot_results.py --ref "$REF" "$OUT"/re100_L*.json "$OUT/re400_L$RE1000_LEVEL.json" \
  "$OUT/re1000_L$RE1000_LEVEL.json"
echo
echo "(JSON results, logs and PNG figures in $OUT)"

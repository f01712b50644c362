#!/usr/bin/env bash
# DFG flow-around-a-cylinder figures of the DFG issue, in one run (docs/design.md §9; reference
# values from docs/reference/dfg_cylinder.csv):
#  - 2D-1 (Re = 20) over levels: c_D, c_L, dp, L_a with their errors against the reference
#    values, iterations, time, and a fit of the convergence order;
#  - the same solution on 1, 2, 4 and 8 ranks;
#  - the FEAST paper's Table 4 layout (R_ass, R_lin, R_acc, S_max) for steady Re = 100 (1 rank,
#    cpu target; pseudo-time continuation as set in the config).
# Usage: bench/dfg_benchmark.sh [build-dir] [reference-dir]
#   QUICK=1 for small levels (smoke run); the reference dir defaults to docs/reference.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin/quilt-flow
REF=${2:-docs/reference}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
if [ "${QUICK:-0}" = 1 ]; then
  LEVELS="1 2 3"; RANK_LEVEL=2; TABLE_LEVELS="1 2"; NP=2
else
  LEVELS="2 3 4 5 6"; RANK_LEVEL=3; TABLE_LEVELS="2 3 4"; NP=2
fi
run() {  # run NAME CONFIG NP ARGS... (a failed run leaves its log and a JSON with its error)
  local name=$1 config=$2 np=$3; shift 3
  mpirun -np "$np" "$BIN" --config "$config" --results "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1 \
    || echo "$name failed: $(grep -m1 error "$OUT/$name.log")"
}
for L in $LEVELS; do run "2d1_L$L" apps/configs/dfg_2d1.ini $NP --mesh.level=$L; done
for np in 1 2 4 8; do run "ranks${np}_L$RANK_LEVEL" apps/configs/dfg_2d1.ini $np --mesh.level=$RANK_LEVEL; done
for L in $TABLE_LEVELS; do
  run "re100_L$L" apps/configs/dfg_re100_steady.ini 1 --mesh.level=$L
done
python3 bench/dfg_report.py "$OUT" "$LEVELS" $RANK_LEVEL "$TABLE_LEVELS" "$REF"
# Figures next to the JSON (a note instead where matplotlib is missing): 2D-1 and steady
# Re = 100 over the levels, forces against dfg_cylinder.csv, convergence. A failed run left no JSON.
python3 bench/plot_results.py --ref "$REF" $(ls "$OUT"/2d1_L*.json "$OUT"/re100_L*.json 2>/dev/null)
echo
echo "(JSON results, logs and PNG figures in $OUT)"

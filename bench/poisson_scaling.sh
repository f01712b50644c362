#!/usr/bin/env bash
# ScaRC on the Poisson problem (foundation issue figures), all in one run:
#  1. iterations to 1e-8 vs level L (1 rank), both meshes, double and float local solves;
#  2. iterations vs rank count (1, 2, 4, 8) at one level, both meshes;
#  3. bitwise reproducibility: two runs at 4 ranks, checksums compared;
#  4. solve time per unknown for L = 8, 9 on 1 and 2 ranks.
# Usage: bench/poisson_scaling.sh [build-dir]   (QUICK=1 for smaller levels)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin/quilt-poisson
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "${QUICK:-0}" = 1 ]; then LEVELS="4 5 6"; RANK_LEVEL=5; TIME_LEVELS="6 7"; else LEVELS="4 5 6 7 8 9"; RANK_LEVEL=7; TIME_LEVELS="8 9"; fi

field() { grep -m1 "\"$2\":" "$1" | sed -E 's/.*: *"?([^",]*)"?,?$/\1/'; }
run() {  # run NP OUT ARGS...
  local np=$1 out=$2; shift 2
  mpirun -np "$np" "$BIN" --config apps/configs/poisson.ini --results "$out" "$@" > /dev/null
}
MESHES="unit_square_4x2:sin_sin unit_square_unstructured:exp_sin"

echo "## Iterations to |r|/|r0| <= 1e-8 vs level (CG + one ScaRC V-cycle, 1 rank)"
echo
echo "| mesh | precision | $(for L in $LEVELS; do printf 'L=%s | ' $L; done)spread |"
echo "|---|---|$(for L in $LEVELS; do printf -- '---|'; done)---|"
for entry in $MESHES; do
  mesh=${entry%%:*}; solution=${entry##*:}
  for precision in double float; do
    row=""; lo=999; hi=0
    for L in $LEVELS; do
      run 1 "$TMP/r.json" --mesh.file=meshes/$mesh.msh --problem.solution=$solution \
        --mesh.level=$L --solver.local.precision=$precision
      it=$(field "$TMP/r.json" iterations)
      row="$row $it |"; lo=$((it < lo ? it : lo)); hi=$((it > hi ? it : hi))
    done
    echo "| $mesh | $precision |$row $((hi - lo)) |"
  done
done

echo
echo "## L2 error vs level (1 rank), ratio to the previous level"
echo
echo "| mesh | L | dofs | L2 error | ratio | H1 error |"
echo "|---|---|---|---|---|---|"
for entry in $MESHES; do
  mesh=${entry%%:*}; solution=${entry##*:}
  prev=""
  for L in 3 $LEVELS; do
    run 1 "$TMP/r.json" --mesh.file=meshes/$mesh.msh --problem.solution=$solution --mesh.level=$L
    e=$(field "$TMP/r.json" l2_error)
    ratio=$([ -n "$prev" ] && awk -v a="$prev" -v b="$e" 'BEGIN{printf "%.3f", a/b}' || echo "-")
    echo "| $mesh | $L | $(field "$TMP/r.json" dofs) | $e | $ratio | $(field "$TMP/r.json" h1_error) |"
    prev=$e
  done
done

echo
echo "## Iterations vs ranks at L=$RANK_LEVEL"
echo
echo "| mesh | 1 | 2 | 4 | 8 | spread | L2 error (1 rank) | max rel. deviation of L2 error |"
echo "|---|---|---|---|---|---|---|---|"
for entry in $MESHES; do
  mesh=${entry%%:*}; solution=${entry##*:}
  row=""; lo=999; hi=0; ref=""; dev=0
  for np in 1 2 4 8; do
    run $np "$TMP/r.json" --mesh.file=meshes/$mesh.msh --problem.solution=$solution --mesh.level=$RANK_LEVEL
    it=$(field "$TMP/r.json" iterations); e=$(field "$TMP/r.json" l2_error)
    [ -z "$ref" ] && ref=$e
    dev=$(awk -v a="$e" -v b="$ref" -v d="$dev" 'BEGIN{x=(a-b)/b; if(x<0)x=-x; if(x>d)d=x; printf "%.2e", d}')
    row="$row $it |"; lo=$((it < lo ? it : lo)); hi=$((it > hi ? it : hi))
  done
  echo "| $mesh |$row $((hi - lo)) | $ref | $dev |"
done

echo
echo "## Bitwise reproducibility (two runs, 4 ranks, L=$RANK_LEVEL, unstructured mesh)"
run 4 "$TMP/a.json" --mesh.file=meshes/unit_square_unstructured.msh --problem.solution=exp_sin --mesh.level=$RANK_LEVEL
run 4 "$TMP/b.json" --mesh.file=meshes/unit_square_unstructured.msh --problem.solution=exp_sin --mesh.level=$RANK_LEVEL
a=$(field "$TMP/a.json" checksum); b=$(field "$TMP/b.json" checksum)
echo
echo "checksums: $a $b -> $([ "$a" = "$b" ] && echo identical || echo DIFFERENT)"

echo
echo "## Solve time per unknown (4x2 mesh, CG + ScaRC, double local solves)"
echo
echo "| L | ranks | dofs | iterations | T_solve [s] | T_solve/dof [us] | T_local/T_solve |"
echo "|---|---|---|---|---|---|---|"
for L in $TIME_LEVELS; do
  for np in 1 2; do
    run $np "$TMP/r.json" --mesh.level=$L
    dofs=$(field "$TMP/r.json" dofs); solve=$(grep -m1 '"solve":' "$TMP/r.json" | sed -E 's/.*: *([^,]*),?/\1/')
    local_t=$(field "$TMP/r.json" local_solve)
    echo "| $L | $np | $dofs | $(field "$TMP/r.json" iterations) | $solve | $(awk -v t="$solve" -v n="$dofs" 'BEGIN{printf "%.3f", 1e6*t/n}') | $(awk -v a="$local_t" -v b="$solve" 'BEGIN{printf "%.2f", a/b}') |"
  done
done

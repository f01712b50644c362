#!/usr/bin/env bash
# ScaRC-CG robustness on the Poisson problem (anisotropic-macro issue figures), shipped config
# apps/configs/poisson.ini with exp_sin (any domain), all in one run:
#  1. iterations to 1e-8 vs level (1 rank): the strips of 4 macros of aspect ratio 10 and 100
#     (L = 3..7) and the unstructured mesh (valences 3, 4, 5, skewed macros; L = 3..9), spread;
#  2. L2 error per level and its ratio to the previous level (~4 for second order), solve time;
#  3. iterations vs rank count (1, 2, 4, 8) at L = 6 on the same meshes, spread.
# A run that hits solver.max_iter shows as ">N" (the spread is then "-"); a rank count above the
# mesh's macro count (8 ranks on a 4-macro strip) cannot run and shows as "n/a".
# Usage: bench/scarc_robustness.sh [build-dir] [--section.key=value ...]
#   Extra arguments go to every run, after the config, e.g. to try a local smoother:
#   bench/scarc_robustness.sh build --solver.local.smoother=aditrigs --solver.local.pre_smooth=2
#   (not mesh.file, mesh.level, problem.solution or results: the script sets those).
#   QUICK=1: a smoke run (L = 3..5, ranks at L = 4).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then BUILD=$1; shift; fi
EXTRA=("$@")
BIN=$BUILD/bin/quilt-poisson
CONFIG=apps/configs/poisson.ini
STRIPS="strip_ar10 strip_ar100"
UNSTRUCTURED=unit_square_unstructured
if [ "${QUICK:-0}" = 1 ]; then
  STRIP_LEVELS="3 4 5"; UNSTRUCTURED_LEVELS="3 4 5"; RANK_LEVEL=4
else
  STRIP_LEVELS="3 4 5 6 7"; UNSTRUCTURED_LEVELS="3 4 5 6 7 8 9"; RANK_LEVEL=6
fi
RANKS="1 2 4 8"

# Everything a run needs, checked before the first one.
missing=0
[ -x "$BIN" ] || { echo "scarc_robustness.sh: $BIN is missing (build the quilt-poisson target)" >&2; missing=1; }
command -v mpirun > /dev/null || { echo "scarc_robustness.sh: mpirun is not on PATH" >&2; missing=1; }
for f in "$CONFIG" $(for m in $STRIPS $UNSTRUCTURED; do echo "meshes/$m.msh"; done); do
  [ -f "$f" ] || { echo "scarc_robustness.sh: $f is missing" >&2; missing=1; }
done
[ "$missing" = 0 ] || exit 1

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

field() { grep -m1 "\"$2\":" "$1" | sed -E 's/.*: *"?([^",]*)"?,?$/\1/'; }
# run NP MESH L: leaves $TMP/NP_MESH_L.json, or $TMP/NP_MESH_L.err when the solve failed; a
# configuration already run is not run again.
run() {
  local np=$1 mesh=$2 L=$3 out="$TMP/$1_$2_$3"
  if [ -f "$out.json" ] || [ -f "$out.err" ]; then return 0; fi
  if ! mpirun -np "$np" "$BIN" --config "$CONFIG" --mesh.file="meshes/$mesh.msh" \
      --problem.solution=exp_sin --mesh.level="$L" ${EXTRA[@]+"${EXTRA[@]}"} \
      --results "$out.json" > "$out.log" 2>&1; then
    rm -f "$out.json"
    mv "$out.log" "$out.err"
    # Only the iteration cap is a result; anything else (a bad key, a crash) stops the script.
    if ! grep -q "no convergence in solver.max_iter" "$out.err"; then
      echo "scarc_robustness.sh: run failed (np $np, $mesh, L=$L):" >&2
      cat "$out.err" >&2
      exit 1
    fi
  fi
}
# iterations NP MESH L: the count, or ">N" for a run stopped by the iteration cap N.
iterations() {
  local out="$TMP/$1_$2_$3"
  if [ -f "$out.json" ]; then
    field "$out.json" iterations
  else
    echo ">$(sed -nE 's/.*solver\.max_iter = ([0-9]+).*/\1/p' "$out.err" | head -1)"
  fi
}
# spread ITERATIONS...: max - min, "-" when one of them is not a number (a capped run).
spread() {
  local lo=999999 hi=0 it
  for it in "$@"; do
    case $it in '' | *[!0-9]*) echo "-"; return ;; esac
    lo=$((it < lo ? it : lo)); hi=$((it > hi ? it : hi))
  done
  echo $((hi - lo))
}

ALL_LEVELS=$(for L in $STRIP_LEVELS $UNSTRUCTURED_LEVELS; do echo "$L"; done | sort -n | uniq | tr '\n' ' ')
macros_of() { awk '/^\$Elements/{e=1; next} /^\$EndElements/{e=0} e && $2 == 3' "meshes/$1.msh" | wc -l; }
levels_of() { if [ "$1" = "$UNSTRUCTURED" ]; then echo "$UNSTRUCTURED_LEVELS"; else echo "$STRIP_LEVELS"; fi; }

for mesh in $STRIPS $UNSTRUCTURED; do
  for L in $(levels_of "$mesh"); do run 1 "$mesh" "$L"; done
  for np in $RANKS; do
    if [ "$np" -le "$(macros_of "$mesh")" ]; then run "$np" "$mesh" "$RANK_LEVEL"; fi
  done
done

echo "# ScaRC-CG robustness: $CONFIG, exp_sin${EXTRA[*]+, ${EXTRA[*]}}"
echo
for f in "$TMP"/1_*.json; do  # the first run that converged (its levels are that run's)
  [ -f "$f" ] && echo "solver ($(basename "$f" .json)): $(grep -m1 '"description":' "$f" | sed -E 's/.*: *"(.*)",?$/\1/')" && echo
  break
done
echo "## Iterations to |r|/|r0| <= 1e-8 vs level (1 rank)"
echo
echo "| mesh | $(for L in $ALL_LEVELS; do printf 'L=%s | ' "$L"; done)spread |"
echo "|---|$(for L in $ALL_LEVELS; do printf -- '---|'; done)---|"
for mesh in $STRIPS $UNSTRUCTURED; do
  row=""; its=()
  for L in $ALL_LEVELS; do
    if [[ " $(levels_of "$mesh") " == *" $L "* ]]; then
      it=$(iterations 1 "$mesh" "$L"); its+=("$it"); row="$row $it |"
    else
      row="$row |"
    fi
  done
  echo "| $mesh |$row $(spread "${its[@]}") |"
done

echo
echo "## L2 error vs level (1 rank), ratio to the previous level"
echo
echo "| mesh | L | dofs | iterations | L2 error | ratio | H1 error | T_solve [s] |"
echo "|---|---|---|---|---|---|---|---|"
for mesh in $STRIPS $UNSTRUCTURED; do
  prev=""
  for L in $(levels_of "$mesh"); do
    out="$TMP/1_${mesh}_$L.json"
    if [ ! -f "$out" ]; then
      echo "| $mesh | $L | - | $(iterations 1 "$mesh" "$L") | - | - | - | - |"; prev=""; continue
    fi
    e=$(field "$out" l2_error)
    ratio=$([ -n "$prev" ] && awk -v a="$prev" -v b="$e" 'BEGIN{printf "%.3f", a/b}' || echo "-")
    solve=$(grep -m1 '"solve":' "$out" | sed -E 's/.*: *([^,]*),?/\1/')
    printf '| %s | %s | %s | %s | %.4e | %s | %.4e | %.3f |\n' "$mesh" "$L" "$(field "$out" dofs)" \
      "$(field "$out" iterations)" "$e" "$ratio" "$(field "$out" h1_error)" "$solve"
    prev=$e
  done
done

echo
echo "## Iterations vs ranks at L=$RANK_LEVEL (spread over the rank counts that can run)"
echo
echo "| mesh | $(for np in $RANKS; do printf '%s | ' "$np"; done)spread |"
echo "|---|$(for np in $RANKS; do printf -- '---|'; done)---|"
for mesh in $STRIPS $UNSTRUCTURED; do
  row=""; its=()
  for np in $RANKS; do
    if [ "$np" -gt "$(macros_of "$mesh")" ]; then row="$row n/a |"; continue; fi
    it=$(iterations "$np" "$mesh" "$RANK_LEVEL"); its+=("$it"); row="$row $it |"
  done
  echo "| $mesh |$row $(spread "${its[@]}") |"
done

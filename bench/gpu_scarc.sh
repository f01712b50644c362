#!/usr/bin/env bash
# The whole ScaRC solver with its local solves on the GPU (solver.local.target=cuda) beside the
# same run on the cpu target, on a GPU machine: Poisson on the 2x2 square (L = 9, 10) and the
# unstructured square (L = 8), Poisson on 2 ranks sharing the GPU, and the Re = 100 cavity. Each
# case runs in float (mixed precision) three ways: the cpu target as shipped (its automatic,
# lexicographic order), the cpu target in the cuda target's (colour) order, and the cuda target;
# ROUNDS (default 1) alternated rounds. It prints iterations, error and median times side by
# side, with the checks of bench/gpu_scarc_table.py (converged, iterations, accuracy).
#
#   bench/gpu_scarc.sh [BUNDLE]     (run from the repository root)
#
# BUNDLE: a folder made by bench/portable_bundle.sh pack, for machines without MPI and the other
# libraries; without it, build/bin and mpirun are used. Results JSON: $QUILT_SCARC_OUT (default
# build/gpu-scarc). Exit status 0 when every case passed.
set -uo pipefail

bundle=${1:-}
out=${QUILT_SCARC_OUT:-build/gpu-scarc}
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# launch NP PROGRAM ARGS...: through the bundle, or the installed MPI.
launch() {
  local np=$1 program=$2
  shift 2
  if [[ -n $bundle ]]; then
    if [[ $np -eq 1 ]]; then
      "$here/portable_bundle.sh" run "$bundle" "$program" "$@"
    else
      "$here/portable_bundle.sh" mpirun "$bundle" "$np" "$program" "$@"
    fi
  else
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --oversubscribe -np "$np" "build/bin/$program" "$@"
  fi
}

# The three runs of a case: the keys that pick each (the cuda target's automatic order is
# colour; the second run gives the cpu target the same, so that both run one algorithm).
runs=("cpu-default --solver.local.target=cpu"
      "cpu --solver.local.target=cpu --solver.local.ordering=colour"
      "cuda --solver.local.target=cuda --solver.local.ordering=colour")

# add_case NAME NP PROGRAM ARGS...: a case; its runs write $out/NAME-RUN-ROUND.json.
failed=0
cases=()
declare -A case_args case_np case_program
add_case() {
  local name=$1
  case_np[$name]=$2
  case_program[$name]=$3
  shift 3
  case_args[$name]="$*"
  cases+=("$name")
}

add_case square-L9 1 quilt-poisson --config apps/configs/poisson.ini \
  --mesh.file=meshes/unit_square_2x2.msh --mesh.level=9
add_case square-L10 1 quilt-poisson --config apps/configs/poisson.ini \
  --mesh.file=meshes/unit_square_2x2.msh --mesh.level=10
add_case unstructured-L8 1 quilt-poisson --config apps/configs/poisson.ini \
  --mesh.file=meshes/unit_square_unstructured.msh --mesh.level=8
add_case square-L9-2ranks 2 quilt-poisson --config apps/configs/poisson.ini \
  --mesh.file=meshes/unit_square_2x2.msh --mesh.level=9
add_case cavity-Re100-L7 1 quilt-flow --config apps/configs/cavity.ini --mesh.level=7

for round in $(seq "${ROUNDS:-1}"); do
  for name in "${cases[@]}"; do
    for run in "${runs[@]}"; do
      read -r label keys <<<"$run"
      echo "== $name $label $round"
      # shellcheck disable=SC2086 # the case's and the run's keys, split on purpose
      launch "${case_np[$name]}" "${case_program[$name]}" ${case_args[$name]} $keys \
        --solver.local.precision=float --results "$out/$name-$label-$round.json" || failed=1
    done
  done
done

python3 "$here/gpu_scarc_table.py" "$out" "${cases[@]}" || failed=1
exit $failed

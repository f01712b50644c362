#!/usr/bin/env bash
# The whole ScaRC solver with its local solves on the GPU (solver.local.target=cuda) beside the
# same run on the cpu target, on a GPU machine: Poisson on the 2x2 square (L = 9, 10) and the
# unstructured square (L = 8), Poisson on 2 ranks sharing the GPU, and the Re = 100 cavity. Each
# case runs both targets in float (mixed precision) and prints iterations, error and times
# side by side, with the checks of bench/gpu_scarc_table.py (converged, iterations, accuracy).
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

# case NAME NP PROGRAM ARGS...: the run on each target, its JSON in $out/NAME-TARGET.json.
failed=0
cases=()
run_case() {
  local name=$1 np=$2 program=$3
  shift 3
  for target in cpu cuda; do
    echo "== $name $target"
    launch "$np" "$program" "$@" --solver.local.target=$target --solver.local.precision=float \
      --results "$out/$name-$target.json" || failed=1
  done
  cases+=("$name")
}

# The cuda target runs the line smoothers in zebra order (colour, its automatic ordering); the
# cpu runs are told the same, so that both targets run the same algorithm.
colour=(--solver.local.ordering=colour)
poisson=(--config apps/configs/poisson.ini "${colour[@]}")
run_case square-L9 1 quilt-poisson "${poisson[@]}" --mesh.file=meshes/unit_square_2x2.msh --mesh.level=9
run_case square-L10 1 quilt-poisson "${poisson[@]}" --mesh.file=meshes/unit_square_2x2.msh --mesh.level=10
run_case unstructured-L8 1 quilt-poisson "${poisson[@]}" \
  --mesh.file=meshes/unit_square_unstructured.msh --mesh.level=8
run_case square-L9-2ranks 2 quilt-poisson "${poisson[@]}" --mesh.file=meshes/unit_square_2x2.msh \
  --mesh.level=9
run_case cavity-Re100-L7 1 quilt-flow --config apps/configs/cavity.ini "${colour[@]}" --mesh.level=7

python3 "$here/gpu_scarc_table.py" "$out" "${cases[@]}" || failed=1
exit $failed
